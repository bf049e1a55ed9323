#!/bin/bash
# Interop: `perfx report --stats` prints what `perf report --stats` prints (records by
# type with their shares, per-event samples), byte for byte, for a plain recording with
# a tracepoint and context switches, a zstd-compressed one (-z: COMPRESSED counted with
# the records inside), a pipe-mode one read from stdin, and with --no-skip-empty; and
# --tasks / --mmaps the same as perf's, on recordings whose threads are known.
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
# --tasks / --mmaps: the thread tree (and each process's maps) as perf prints it, on
# recordings whose threads are all known: the command above (processes forked and
# exec'd), a perfx that runs a second thread (its read-ahead reader) under perf, and a
# system-wide-like thread table written by perfx's writer (perfdata_tool synth-tasks:
# synthesized FORKs that copy no maps, threads known only from samples, EXITs or
# sample_ids, which perf does not list, unnamed threads and leaders perf adds). A live
# `-a` recording is not compared: its threads are whatever else ran.
perf record -q -e cpu-clock -F 2000 -o "$tmp/mt.data" -- "$PERFX" report -i "$tmp/p.data" \
  --stdio >/dev/null 2>&1 || { echo "perf record of perfx failed"; exit 77; }
tool="$BUILD_DIR/tools/perfdata_tool"
if [ -x "$tool" ]; then
  "$tool" synth-tasks "$tmp/tasks.data" --binary "$fixture" || { echo "synth-tasks failed"; fail=1; }
else
  echo "no $tool (target testtool_perfdata_tool)"; fail=1
fi
for f in p.data mt.data tasks.data; do
  for opt in --tasks --mmaps; do
    perf report -i "$tmp/$f" $opt > "$tmp/perf.$f$opt" 2>/dev/null
    "$PERFX" report -i "$tmp/$f" $opt > "$tmp/perfx.$f$opt" 2>/dev/null
    grep -q "pid      tid     ppid  comm" "$tmp/perf.$f$opt" || { echo "$f $opt: perf printed no tasks"; fail=1; continue; }
    cmp -s "$tmp/perf.$f$opt" "$tmp/perfx.$f$opt" ||
      { echo "$f $opt differs:"; diff "$tmp/perf.$f$opt" "$tmp/perfx.$f$opt" | head -10; fail=1; }
  done
done
# perfx's own second thread is a task of the perfx process (comm: 15 characters at most).
comm=$(basename "$PERFX" | cut -c1-15)
[ "$(grep -c "|.*$comm\$" "$tmp/perfx.mt.data--tasks")" -ge 2 ] ||
  { echo "mt.data --tasks: perfx's two threads are not listed"; cat "$tmp/perfx.mt.data--tasks"; fail=1; }
# The synthesized table: a child task with its own maps, and no thread perf leaves out.
grep -Eq '^ +100 +101 +100 \| +worker$' "$tmp/perfx.tasks.data--tasks" ||
  { echo "tasks.data --tasks: no synthesized child thread"; fail=1; }
grep -Eq '^ +[0-9]+ +(102|103|600|700) ' "$tmp/perfx.tasks.data--tasks" &&
  { echo "tasks.data --tasks: lists a thread known only from samples, EXIT or sample_id"; fail=1; }
# A truncated file: the threads read before the cut, then the error naming the offset.
# The cut is in the middle of the data section (the header's data offset and size).
read -r data_off data_size < <(od -An -t u8 -j 40 -N 16 "$tmp/p.data")
head -c $(( data_off + data_size / 2 )) "$tmp/p.data" > "$tmp/cut.data"
if "$PERFX" report -i "$tmp/cut.data" --tasks > "$tmp/cut.out" 2> "$tmp/cut.err"; then
  echo "--tasks on a truncated file: status 0"; fail=1
fi
grep -q "|swapper" "$tmp/cut.out" && grep -q "offset" "$tmp/cut.err" ||
  { echo "--tasks on a truncated file: $(cat "$tmp/cut.err")"; fail=1; }
[ $fail = 0 ] && echo "perfx report --stats, --tasks and --mmaps match perf"
exit $fail
