#!/bin/bash
# Interop: `perfx report --stats` prints what `perf report --stats` prints (records by
# type with their shares, per-event samples), byte for byte, for a plain recording with
# a tracepoint and context switches, a zstd-compressed one (-z: COMPRESSED counted with
# the records inside), a pipe-mode one read from stdin, and with --no-skip-empty; and
# --tasks / --mmaps the same as perf's, for a command and a system-wide recording.
set -u
source "$(dirname "$0")/common.bash"
perf record -q -e cpu-clock,syscalls:sys_enter_write -F 2000 -g --switch-events -o "$tmp/p.data" -- \
  sh -c "\"$fixture\" 20000000; echo hi; sleep 0.01" >/dev/null 2>&1 ||
  { echo "perf record failed"; exit 77; }
perf record -q -z -e cpu-clock -F 2000 -o "$tmp/z.data" -- "$fixture" 20000000 >/dev/null 2>&1 || exit 77
perf record -q -e cpu-clock -F 2000 -o - -- "$fixture" 20000000 2>/dev/null > "$tmp/pipe.data" || exit 77
fail=0
same() {  # name, input (file or "-" with $tmp/pipe.data on stdin), args...
  local name=$1 in=$2; shift 2
  if [ "$in" = - ]; then
    perf report -i - --stats "$@" < "$tmp/pipe.data" > "$tmp/perf.$name" 2>&1
    "$PERFX" report -i - --stats "$@" < "$tmp/pipe.data" > "$tmp/perfx.$name" 2>&1
  else
    perf report -i "$in" --stats "$@" > "$tmp/perf.$name" 2>&1
    "$PERFX" report -i "$in" --stats "$@" > "$tmp/perfx.$name" 2>&1
  fi
  grep -q "SAMPLE events:" "$tmp/perf.$name" || { echo "$name: perf printed no stats"; fail=1; return; }
  cmp -s "$tmp/perf.$name" "$tmp/perfx.$name" ||
    { echo "$name differs:"; diff "$tmp/perf.$name" "$tmp/perfx.$name" | head -20; fail=1; }
}
same plain "$tmp/p.data"
same plain_all "$tmp/p.data" --no-skip-empty
same compressed "$tmp/z.data"
same pipe -
grep -q "COMPRESSED events:" "$tmp/perfx.compressed" || { echo "no COMPRESSED line"; fail=1; }
grep -q "SWITCH events:" "$tmp/perfx.plain" || { echo "no SWITCH line"; fail=1; }
# --tasks / --mmaps: the thread tree (and each process's maps) as perf prints it, for a
# command and for a system-wide recording (synthesized FORKs copy no maps).
perf record -q -a -e cpu-clock -F 1000 -o "$tmp/sys.data" -- sleep 0.3 >/dev/null 2>&1 ||
  { echo "perf record -a failed"; exit 77; }
for f in p.data sys.data; do
  for opt in --tasks --mmaps; do
    perf report -i "$tmp/$f" $opt > "$tmp/perf.t" 2>/dev/null
    "$PERFX" report -i "$tmp/$f" $opt > "$tmp/perfx.t" 2>/dev/null
    grep -q "pid      tid     ppid  comm" "$tmp/perf.t" || { echo "$f $opt: perf printed no tasks"; fail=1; continue; }
    cmp -s "$tmp/perf.t" "$tmp/perfx.t" ||
      { echo "$f $opt differs:"; diff "$tmp/perf.t" "$tmp/perfx.t" | head -10; fail=1; }
  done
done
# A truncated file: the threads read before the cut, then the error naming the offset.
head -c $(( $(stat -c %s "$tmp/sys.data") * 2 / 3 )) "$tmp/sys.data" > "$tmp/cut.data"
if "$PERFX" report -i "$tmp/cut.data" --tasks > "$tmp/cut.out" 2> "$tmp/cut.err"; then
  echo "--tasks on a truncated file: status 0"; fail=1
fi
grep -q "|swapper" "$tmp/cut.out" && grep -q "offset" "$tmp/cut.err" ||
  { echo "--tasks on a truncated file: $(cat "$tmp/cut.err")"; fail=1; }
grep -q " | " "$tmp/perfx.t" || { echo "--mmaps of a system-wide recording: no child task"; fail=1; }
[ $fail = 0 ] && echo "perfx report --stats, --tasks and --mmaps match perf"
exit $fail
