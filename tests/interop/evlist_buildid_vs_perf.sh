#!/bin/bash
# Interop: `perfx evlist` (-v, -F, -g, --trace-fields) and `perfx buildid-list` (-H, -k) print what perf
# evlist and perf buildid-list print, byte for byte, on a perf recording with a group
# and a tracepoint and on a perfx recording.
set -u
source "$(dirname "$0")/common.bash"
fail=0
perf record -q -e '{cpu-clock,task-clock}' -e syscalls:sys_enter_write -c 100000 \
  -o "$tmp/perf.data" -- sh -c "'$fixture' 20000000; echo hi" >/dev/null 2>&1 ||
  { echo "perf record failed"; exit 77; }
"$PERFX" record -q -e cpu-clock -F 999 -g -o "$tmp/perfx.data" -- "$fixture" 20000000 \
  >/dev/null 2>&1 || { echo "perfx record failed"; fail=1; }
same() {
  local cmd=$1 file=$2; shift 2
  perf "$cmd" -i "$file" "$@" > "$tmp/perf.out" 2>/dev/null || { echo "perf $cmd $* failed"; fail=1; return; }
  "$PERFX" "$cmd" -i "$file" "$@" > "$tmp/perfx.out" 2>"$tmp/err" ||
    { echo "perfx $cmd $* failed: $(cat "$tmp/err")"; fail=1; return; }
  [ -s "$tmp/perf.out" ] || { echo "perf $cmd $* printed nothing"; fail=1; return; }
  if ! cmp -s "$tmp/perf.out" "$tmp/perfx.out"; then
    echo "DIFF: $cmd $* ($(basename "$file"))"; diff "$tmp/perf.out" "$tmp/perfx.out" | head -6; fail=1
  fi
}
for f in "$tmp/perf.data" "$tmp/perfx.data"; do
  for o in "" -v -F -g --trace-fields "--trace-fields -v" "--trace-fields -F"; do
    same evlist "$f" $o
  done
  same buildid-list "$f"
  same buildid-list "$f" -H
done
[ "$(perf buildid-list -k 2>/dev/null)" = "$("$PERFX" buildid-list -k 2>/dev/null)" ] ||
  { echo "buildid-list -k differs"; fail=1; }
grep -q sym_pinned <("$PERFX" buildid-list -i "$tmp/perf.data" -H) ||
  { echo "buildid-list -H lacks the sampled fixture"; fail=1; }
if "$PERFX" evlist -i "$tmp/missing.data" >/dev/null 2>"$tmp/err" || ! grep -q missing.data "$tmp/err"; then
  echo "a missing file is not named: $(cat "$tmp/err")"; fail=1
fi
[ $fail = 0 ] && echo "perfx evlist and buildid-list match perf"
