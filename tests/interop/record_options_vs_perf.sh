#!/bin/bash
# Interop: perf record's sample-field and run options in perfx record give files perf
# reads as perf's own: -P -W -R --phys-data --data-page-size --code-page-size
# --sample-identifier (perf's header names the fields; perf script and perfx script print
# the same), -k (perf's clockid header lines), --all-user / --all-kernel, -D (perf's
# "Events disabled/enabled"), --max-size (stops the session, status 0),
# --timestamp-filename, --strict-freq, -B (no BUILD_ID feature), -N, --namespaces and
# --all-cgroups (synthesized NAMESPACES and CGROUP records).
set -u
source "$(dirname "$0")/common.bash"
fail=0
rec() {  # out, args... (workload after --)
  local out=$1; shift
  "$PERFX" record -o "$tmp/$out" "$@" > "$tmp/$out.stdout" 2> "$tmp/$out.err" ||
    { echo "perfx record $* failed: $(tail -2 "$tmp/$out.err")"; fail=1; return 1; }
}
has() { grep -q -- "$2" "$1" || { echo "missing '$2' in $1:"; head -5 "$1"; fail=1; }; }

rec fields.data -P -W -R --phys-data --data-page-size --code-page-size --sample-identifier -- \
  "$fixture" 20000000
perf report -i "$tmp/fields.data" --header-only > "$tmp/fields.hdr" 2>&1
has "$tmp/fields.hdr" "sample_type = IP|TID|TIME|CPU|PERIOD|RAW|IDENTIFIER|WEIGHT|PHYS_ADDR|DATA_PAGE_SIZE|CODE_PAGE_SIZE,"
perf script -i "$tmp/fields.data" > "$tmp/fields.perf" 2>&1 || { echo "perf script failed"; fail=1; }
"$PERFX" script -i "$tmp/fields.data" > "$tmp/fields.perfx" 2>&1
[ -s "$tmp/fields.perf" ] && cmp -s "$tmp/fields.perf" "$tmp/fields.perfx" ||
  { echo "script of the -P -W -R ... file differs:"; diff "$tmp/fields.perf" "$tmp/fields.perfx" | head -5; fail=1; }

rec clock.data -k mono -- "$fixture" 20000000
perf report -i "$tmp/clock.data" --header-only > "$tmp/clock.hdr" 2>&1
has "$tmp/clock.hdr" "use_clockid = 1"
has "$tmp/clock.hdr" "# clockid: monotonic (1)"
has "$tmp/clock.hdr" "# clockid frequency: "
rec clock_raw.data --clockid CLOCK_MONOTONIC_RAW -- true
perf report -i "$tmp/clock_raw.data" --header-only 2>&1 | grep -q "# clockid: monotonic_raw (4)" ||
  { echo "--clockid CLOCK_MONOTONIC_RAW not in the header"; fail=1; }
"$PERFX" record -o "$tmp/x.data" -k bogus -- true 2>"$tmp/err" && { echo "-k bogus accepted"; fail=1; }
grep -q "bogus" "$tmp/err" || { echo "-k bogus: $(cat "$tmp/err")"; fail=1; }

rec user.data --all-user -- "$fixture" 20000000
perf report -i "$tmp/user.data" --stdio --sort sym 2>/dev/null | grep -q '\[k\]' &&
  { echo "--all-user: kernel rows"; fail=1; }
has "$tmp/user.data.err" "Captured and wrote"
perf report -i "$tmp/user.data" --header-only 2>&1 | grep -q "exclude_kernel = 1" ||
  { echo "--all-user: no exclude_kernel"; fail=1; }
rec kernel.data --all-kernel -- "$fixture" 20000000
perf report -i "$tmp/kernel.data" --header-only 2>&1 | grep -q "exclude_user = 1" ||
  { echo "--all-kernel: no exclude_user"; fail=1; }

rec delay.data -D 100 -- "$fixture" 300000000
has "$tmp/delay.data.err" "Events disabled"
has "$tmp/delay.data.err" "Events enabled"
perf report -i "$tmp/delay.data" --header-only 2>&1 | grep -q "enable_on_exec" &&
  { echo "-D: still enable_on_exec"; fail=1; }

start=$(date +%s)
# (the workload runs for minutes unless --max-size stops the session; timeout guards it)
timeout 120 "$PERFX" record -o "$tmp/size.data" --max-size 20K -F 10000 -- "$fixture" 100000000000 \
  > /dev/null 2> "$tmp/size.data.err" || { echo "--max-size: status $?"; fail=1; }
[ $(( $(date +%s) - start )) -lt 20 ] || { echo "--max-size did not stop the session"; fail=1; }
has "$tmp/size.data.err" "size limit reached"
perf report -i "$tmp/size.data" --stdio >/dev/null 2>&1 || { echo "perf cannot read the --max-size file"; fail=1; }

rec ts.data --timestamp-filename -- true
ls "$tmp"/ts.data.* 2>/dev/null | grep -Eq '/ts\.data\.[0-9]{16}$' || { echo "--timestamp-filename: $(ls "$tmp")"; fail=1; }
has "$tmp/ts.data.err" "Dump $tmp/ts.data."

if "$PERFX" record -o "$tmp/sf.data" --strict-freq -F 100000000 -- true 2>"$tmp/err"; then
  echo "--strict-freq above the maximum was accepted"; fail=1
fi
has "$tmp/err" "Maximum frequency rate"

rec nobid.data -B -N -- "$fixture" 2000000
perf report -i "$tmp/nobid.data" --header-only 2>&1 | grep "missing features" | grep -q BUILD_ID ||
  { echo "-B: a BUILD_ID feature was written"; fail=1; }
# --namespaces / --all-cgroups: the existing task's namespaces and the cgroup tree are
# synthesized as perf does; perf script shows them (the net namespace is this shell's).
rec ns.data --namespaces --all-cgroups -- "$fixture" 2000000
perf script -i "$tmp/ns.data" --show-namespace-events --show-cgroup-events > "$tmp/ns.txt" 2>&1
has "$tmp/ns.txt" "PERF_RECORD_NAMESPACES"
net=$(printf '0/net: %d/%#x' "$(stat -L -c %d /proc/$$/ns/net)" "$(stat -L -c %i /proc/$$/ns/net)")
has "$tmp/ns.txt" "$net"
if grep -q cgroup2 /proc/mounts; then has "$tmp/ns.txt" "PERF_RECORD_CGROUP cgroup: [0-9]* /$"; fi
[ $fail = 0 ] && echo "perfx record's options give files perf reads"
exit $fail
