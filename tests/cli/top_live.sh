#!/bin/bash
# perfx top on this machine: a busy fixture followed with -p shows its hot function in
# perf top's screen (header, dashes, rows of percent / DSO / symbol); -K and -U leave out
# kernel and user rows; -s comm,dso,sym adds the command column; -g and --call-graph
# dwarf show Children/Self rows with call graphs (--no-children: Self only); Ctrl-C (SIGINT) and a
# 'q' typed on the terminal end it with status 0; bad options are named. A call graph's first
# branch is '|--N%--' when kernel samples (timer interrupts) under sym_alpha make a second one.
set -u
source "$(dirname "$0")/common.bash"
: "${BUILD_DIR:=build}"
fixture="$BUILD_DIR/fixtures/sym_pinned"
[ -x "$fixture" ] || { echo "no fixture $fixture"; exit 77; }
"$fixture" 100000000000 >/dev/null &  # minutes of work; killed on exit
busy=$!
trap 'kill $busy 2>/dev/null; rm -rf "$tmp"' EXIT
sleep 0.2
# top FILE ARGS...: runs perfx top for ~2.5 s ($TOP_SECONDS), then SIGINT; its status goes
# in $tmp/FILE.rc
top() {
  local out=$1; shift
  timeout --preserve-status -s INT "${TOP_SECONDS:-2.5}" "$PERFX" top "$@" > "$tmp/$out" \
    2>"$tmp/$out.err"
  echo $? > "$tmp/$out.rc"
}
top pid.out -d 0.5 -E 6 -p "$busy"
if grep -q "Permission denied\|not permitted" "$tmp/pid.out.err"; then
  echo "sampling not allowed here"; exit 77
fi
check "SIGINT ends top with status 0" '[ "$(cat "$tmp/pid.out.rc")" = 0 ] || { cat "$tmp/pid.out.err"; false; }'
check "a screen header per refresh" '[ "$(grep -c "^   PerfTop: *[0-9]* irqs/sec  kernel: *[0-9.]*%  exact: *[0-9.]*% lost: 0/0 drop: 0/0 \[4000Hz cpu-clock:ppp\],  (target_pid: $busy, [0-9]* CPUs\?)$" "$tmp/pid.out")" -ge 3 ]'
check "79 dashes under it" 'grep -qx -- "-\{79\}" "$tmp/pid.out"'
check "the fixture's hot function is a row" 'grep -Eq "^ +[0-9]+\.[0-9]{2}%  sym_pinned +\[\.\] sym_(alpha|outer)$" "$tmp/pid.out"'
check "at most 6 rows per screen" '! awk "/PerfTop/ {n=0; next} /%  / {n++; if (n > 6) bad=1} END {exit !bad}" "$tmp/pid.out"'
check "a screen's shares add up to at most 100%" '! awk "/PerfTop/ {s=0; next} /%  / {s+=\$1; if (s > 100.05) bad=1} END {exit !bad}" "$tmp/pid.out"'

top nok.out -d 0.5 -K -p "$busy"
check "-K: no kernel rows" '[ "$(cat "$tmp/nok.out.rc")" = 0 ] && grep -q "sym_pinned" "$tmp/nok.out" && ! grep -q "\[k\]" "$tmp/nok.out"'
top all.out -d 0.5 -U
check "-U: only kernel rows, system-wide header" 'grep -q "(all, [0-9]* CPUs\?)" "$tmp/all.out" && ! grep -q "\[\.\]" "$tmp/all.out"'
top comm.out -d 0.5 -s comm,dso,sym -p "$busy" -z
check "-s comm,dso,sym: a command column" 'grep -Eq "^ +[0-9.]+%  sym_pinned +sym_pinned +\[\.\] sym_" "$tmp/comm.out"'

top g.out -d 0.5 -E 4 -g -p "$busy"
check "-g: Children and Self columns" '[ "$(cat "$tmp/g.out.rc")" = 0 ] && grep -Eq "^ +[0-9.]+% +[0-9.]+%  sym_pinned +\[\.\] sym_alpha$" "$tmp/g.out" || { cat "$tmp/g.out.err"; false; }'
check "-g: main above sym_alpha in a call graph" 'grep -A8 "\[\.\] sym_alpha$" "$tmp/g.out" | grep -Eq "^ +\|?(---|--[0-9.]+%--)(__libc_start_call_main|main)$"'
check "-g: main has its own row (children only)" 'grep -Eq "^ +[0-9.]+% +0\.00%  sym_pinned +\[\.\] main$" "$tmp/g.out"'
check "-g: at most 4 entries per screen" '! awk "/PerfTop/ {n=0; next} /%  / {n++; if (n > 4) bad=1} END {exit !bad}" "$tmp/g.out"'
top gself.out -d 0.5 -E 4 -g --no-children -p "$busy"
check "-g --no-children: Self only, callee first" 'grep -Eq "^ +[0-9.]+%  sym_pinned +\[\.\] sym_alpha$" "$tmp/gself.out" && grep -A3 "\[\.\] sym_alpha$" "$tmp/gself.out" | grep -Eq "^ +---sym_alpha$"'
# 6 s: under ASan with the other tests of ctest -j2 alongside, unwinding the stack copies
# once left 2.5 s without a screen that reached main.
TOP_SECONDS=6 top dwarf.out -d 0.5 -E 6 --call-graph dwarf -p "$busy"
# Still none within 6 s once more in the ASan stage: one longer run before judging.
grep -A10 "\[\.\] sym_alpha$" "$tmp/dwarf.out" | grep -Eq "^ +main$" ||
  TOP_SECONDS=12 top dwarf.out -d 0.5 -E 6 --call-graph dwarf -p "$busy"
check "--call-graph dwarf: the unwound callers" 'grep -A10 "\[\.\] sym_alpha$" "$tmp/dwarf.out" | grep -Eq "^ +main$"'

if command -v script >/dev/null; then
  start=$(date +%s)
  (sleep 1.5; printf q) | timeout 10 script -qec "$PERFX top -d 0.5 -p $busy" /dev/null > "$tmp/tty.out" 2>&1
  rc=$?
  check "'q' on a terminal quits" '[ $rc = 0 ] && [ $(( $(date +%s) - start )) -lt 8 ] && grep -q "PerfTop" "$tmp/tty.out"'
fi

check "unknown sort key named" '! "$PERFX" top -s dso,bogus 2>"$tmp/e" && grep -q "bogus" "$tmp/e"'
check "bad -d refused" '! "$PERFX" top -d 0 2>"$tmp/e" && grep -q -- "-d" "$tmp/e"'
check "bad --call-graph named" '! "$PERFX" top --call-graph bogus 2>"$tmp/e" && grep -q "bogus" "$tmp/e"'
check "unknown event named" '! "$PERFX" top -e no-such-event 2>"$tmp/e" && grep -q "no-such-event" "$tmp/e"'
exit $fail
