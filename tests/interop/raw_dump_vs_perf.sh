#!/bin/bash
# Interop: `perfx report -D`, `script -D`, `annotate -D` and `diff -D` print what perf 6.1
# prints, byte for byte, on the same files: a zstd-compressed (-z) recording without
# callchains (with NAMESPACES and CGROUP records), one with frame-pointer callchains,
# tracepoints (raw data, cpu columns) and context-switch records,
# one with --call-graph dwarf (user registers and stack size), and a pipe-mode stream
# read from stdin (perf's "pipe" name and offsets; perf inject's of the first: perf 6.1
# inject garbles a stream with tracepoints), and perf stat record files, perf's and perfx's. perf's dump is a function of the file alone
# (records in its round order, perf's own records where they are read), so no comparison
# depends on timing or on the compiler of the fixture.
set -u
source "$(dirname "$0")/common.bash"
use_fixture hot rec_hot -O1 -g
workload=("$hot" 20)
rec() {  # output, perf record options...
  local out=$1
  shift
  perf record -q "$@" -o "$tmp/$out" -- "${workload[@]}" >/dev/null 2>&1 ||
    { echo "perf record $* failed"; exit 77; }
}
rec plain.data -z --namespaces --all-cgroups -e cpu-clock -F 2000
# The busy loop alone may run to its end unpreempted on an idle machine (no switch at
# all); a shell that waits for it and then sleeps is sure to switch out.
workload=(sh -c '"$0" 20; sleep 0.01' "$hot")
rec fp.data --switch-events -e cpu-clock -F 2000 -g -e sched:sched_switch -e raw_syscalls:sys_enter
record_dwarf dwarf.data 20
perf inject -i "$tmp/plain.data" -o - >"$tmp/pipe.data" 2>/dev/null ||
  { echo "perf inject -o - failed"; exit 77; }
cd "$tmp" || exit 1
fail=0
want="PERF_RECORD_SAMPLE(IP"  # what perf's dump must show for a comparison to count
same() {  # name, command, input (a file, or - for pipe.data on stdin), options...
  local name=$1 cmd=$2 in=$3
  shift 3
  if [ "$in" = - ]; then
    perf "$cmd" -D -i - "$@" >"perf.$name" 2>&1 <pipe.data
    "$PERFX" "$cmd" -D -i - "$@" >"perfx.$name" 2>&1 <pipe.data
  else
    perf "$cmd" -D -i "$in" "$@" >"perf.$name" 2>&1
    "$PERFX" "$cmd" -D -i "$in" "$@" >"perfx.$name" 2>&1
  fi
  grep -qF "$want" "perf.$name" || { echo "$name: perf dumped no $want"; fail=1; return; }
  cmp -s "perf.$name" "perfx.$name" ||
    { echo "$name differs:"; diff "perf.$name" "perfx.$name" | head -20; fail=1; }
}
for f in plain fp dwarf; do
  same "report.$f" report "$f.data"
  same "script.$f" script "$f.data"
done
same report.pipe report -
same script.pipe script -
same annotate.plain annotate plain.data
same report.quiet report plain.data -q
# diff -D: each file's dump (diff's handlers, no counts), then the table.
perf diff -D plain.data dwarf.data >perf.diff 2>&1
"$PERFX" diff -D plain.data dwarf.data >perfx.diff 2>&1
grep -q "^# Baseline" perf.diff || { echo "diff: perf printed no table"; fail=1; }
cmp -s perf.diff perfx.diff || { echo "diff -D differs:"; diff perf.diff perfx.diff | head -20; fail=1; }
# Stat recordings (THREAD_MAP, CPU_MAP, STAT_CONFIG, STAT, STAT_ROUND, EVENT_UPDATE), perf's
# and perfx's: report's stubs print them ": unhandled!", script prints its stat table after
# each round.
perf stat record -o stat.perf -e task-clock,context-switches -- true >/dev/null 2>&1 ||
  { echo "perf stat record failed"; exit 77; }
"$PERFX" stat record -o stat.perfx -e task-clock,context-switches -- true >/dev/null 2>&1 ||
  { echo "perfx stat record failed"; fail=1; }
want="PERF_RECORD_STAT_ROUND"
same report.stat.perf report stat.perf
same script.stat.perf script stat.perf
same annotate.stat.perf annotate stat.perf
# perfx's file has perf's placeholder kernel MMAP (synthesized to quiet old tools): perf
# prints no kptr_restrict warning on it, so stderr is compared too.
same report.stat.perfx report stat.perfx
same script.stat.perfx script stat.perfx
# (where kallsyms hides addresses here, neither file has the MMAP and perf warns on both)
if ! grep -q kptr_restrict perf.report.stat.perf && grep -q kptr_restrict perf.report.stat.perfx; then
  echo "perf warns about kptr_restrict on perfx's stat file, not on its own"
  fail=1
fi
perf diff -D stat.perf stat.perfx >perf.diff.stat 2>&1
"$PERFX" diff -D stat.perf stat.perfx >perfx.diff.stat 2>&1
cmp -s perf.diff.stat perfx.diff.stat ||
  { echo "diff -D of stat files differs:"; diff perf.diff.stat perfx.diff.stat | head -20; fail=1; }
grep -q "^\.\.\. id [0-9]*, cpu -1, thread 0$" perfx.report.stat.perfx || { echo "no STAT text"; fail=1; }
grep -q "PERF_RECORD_CPU_MAP: -1$" perfx.report.stat.perf || { echo "no CPU_MAP text"; fail=1; }
grep -q " context-switches$" perfx.script.stat.perfx || { echo "no stat table in script -D"; fail=1; }
# What the comparisons rest on: the dwarf dump has the registers and stack, the tracepoint
# samples their raw data, the script dump its script lines after the samples.
grep -q "^\.\.\. user regs: mask 0x" perfx.report.dwarf || { echo "no user regs in the dump"; fail=1; }
grep -q "^\.\.\. ustack: size " perfx.report.dwarf || { echo "no ustack in the dump"; fail=1; }
grep -q "^\.\.\. FP chain: nr:" perfx.script.fp || { echo "no callchain in the dump"; fail=1; }
grep -q "^Aggregated stats:" perfx.report.plain || { echo "no counts after the dump"; fail=1; }
grep -q "COMPRESSED events:" perfx.report.plain || { echo "not compressed"; fail=1; }
grep -q "PERF_RECORD_NAMESPACES" perfx.report.plain || { echo "no NAMESPACES record"; fail=1; }
grep -q "PERF_RECORD_SWITCH" perfx.report.fp || { echo "no SWITCH record"; fail=1; }
grep -q "sched:sched_switch:" perfx.script.fp || { echo "no tracepoint samples"; fail=1; }
grep -q "cpu-clock:" perfx.script.plain || { echo "no script lines in script -D"; fail=1; }
grep -q "@pipe \[" perfx.report.pipe || { echo "no pipe offsets"; fail=1; }
exit $fail
