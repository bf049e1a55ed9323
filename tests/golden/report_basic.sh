#!/bin/bash
# Golden: perfx report / perfx script layouts on the perf.data files perf recorded into
# tests/data (see tests/data/README.md). Only keys that need no symbol files (comm, pid,
# dso, period, time) so the output is stable on any machine.
# Regenerate: REGEN=1 PERFX=build/bin/perfx SOURCE_DIR=. bash tests/golden/report_basic.sh
set -u
: "${PERFX:?}" "${SOURCE_DIR:?}"
DATA="$SOURCE_DIR/tests/data"
GOLD="$SOURCE_DIR/tests/golden/report"
fail=0
check() {  # name, command...
  local name=$1; shift
  local out
  # stdout only: warnings about symbol files depend on the machine (the recorded
  # binaries are not on this one); the error cases below capture stderr themselves.
  out=$("$@" 2>/dev/null)
  if [ "${REGEN:-0}" = 1 ]; then
    printf '%s\n' "$out" > "$GOLD/$name.txt"
    return
  fi
  if ! diff -u "$GOLD/$name.txt" <(printf '%s\n' "$out"); then
    echo "golden mismatch: $name" >&2
    fail=1
  fi
}
check report_fp_comm_dso "$PERFX" report -i "$DATA/fmt-cpuclock-fp.data" --stdio --no-children -g none --sort comm,dso
check report_fp_pid_n "$PERFX" report -i "$DATA/fmt-cpuclock-fp.data" --stdio --no-children -g none -n --sort pid
check report_zstd_dso "$PERFX" report -i "$DATA/fmt-cpuclock-zstd.data" --stdio --no-children -g none --sort dso
check report_multi_event "$PERFX" report -i "$DATA/fmt-multi-event.data" --stdio --no-children -g none --sort comm,dso
check report_sched_cpu "$PERFX" report -i "$DATA/fmt-sched-switch.data" --stdio --no-children -g none --sort comm,cpu -n
check report_pipe_dso bash -c "\"$PERFX\" report -i - --stdio --no-children -g none --sort dso < \"$DATA/fmt-cpuclock-pipe.data\""
check script_fp_fields "$PERFX" script -i "$DATA/fmt-cpuclock-fp.data" -F comm,tid,time,event,period
check script_sched_fields "$PERFX" script -i "$DATA/fmt-sched-switch.data" -F comm,tid,cpu,time,event --ns
check script_fp_task_events "$PERFX" script -i "$DATA/fmt-cpuclock-fp.data" -F comm,tid,time --show-task-events --show-mmap-events
# Errors: a truncated file is one line naming the offset, exit status non-zero.
tmp=$(mktemp -d)
head -c 3000 "$DATA/fmt-cpuclock-fp.data" > "$tmp/truncated.data"
check report_truncated bash -c "cd $tmp && \"$PERFX\" report -i truncated.data --stdio --no-children -g none --sort comm,dso 2>&1; echo exit=\$?"
check script_truncated bash -c "cd $tmp && \"$PERFX\" script -i truncated.data -F comm,tid,time 2>&1; echo exit=\$?"
rm -rf "$tmp"
exit $fail
