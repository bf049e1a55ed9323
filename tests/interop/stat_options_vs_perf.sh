#!/bin/bash
# Interop: perf stat's run-control options give perf's layout and behaviour (numbers
# masked: both tools run the workload in turn): -n/--null (no counters, and no blank
# line before the elapsed time), -n -r 3, -D (the "Events disabled/enabled" lines, the
# elapsed time counting from the enable), --timeout (the workload gets SIGTERM: perf's
# "sleep: Terminated", status 0), -I with --interval-count (N lines, then the workload
# runs to its end), --pre/--post around every run, --quiet, --append, -B/--no-big-num,
# -d/-dd/-ddd (the cache events appended, after -e events too), --per-socket/die/core/node,
# --table, --summary, --no-csv-summary, --interval-clear, -S, -G a,b, --for-each-cgroup;
# and issue #25's: signal-killed workloads, tool events, -a's defaults, -e without a
# command, -M, --topdown, --metric-only, --per-thread -a.
set -u
PERFX=${PERFX:-build/bin/perfx}
command -v perf >/dev/null || { echo "perf not installed"; exit 77; }
perf stat -e task-clock -- true >/dev/null 2>&1 || { echo "perf stat does not work here"; exit 77; }
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
fail=0
mask() { sed -E 's/[0-9]+/N/g; s/([ ,"])[KMG]\/sec/\1\/sec/g; s/ +/ /g; s/\) #+$/) #/; s/\([+-]N/(N/'; }  # --table bars, signs and rate units (K/sec near 1000/s) vary
same() {  # name, args...: same text with digits masked, same exit status
  local name=$1; shift
  perf stat "$@" > "$tmp/perf.$name" 2>&1; local a=$?
  "$PERFX" stat "$@" > "$tmp/perfx.$name" 2>&1; local b=$?
  [ $a = $b ] || { echo "$name: exit $b, perf $a"; fail=1; }
  if ! diff <(mask < "$tmp/perf.$name") <(mask < "$tmp/perfx.$name") > "$tmp/diff"; then
    echo "$name differs (digits masked):"; head -20 "$tmp/diff"; fail=1
  fi
}
same null -n -- sleep 0.05
same null_runs -n -r 3 -- true
same delay -D 50 -e task-clock -- sleep 0.1
same timeout --timeout 150 -e task-clock -- sleep 2
same quiet --quiet -e task-clock -- true
same pre_post -e task-clock --pre 'echo PRE' --post 'echo POST' -r 2 -- true
same no_big_num --no-big-num -e page-faults -- true
same big_num -B -e page-faults -- true
same detailed -d -- true
same detailed3 -ddd -- true
same detailed_events -d -e task-clock -- true
# Counts summed per socket/die/core/node (perf's aggr_printout() and interval headers),
# -C with them, the last of -A/--per-* winning, and no run-to-run noise on split lines.
same per_socket -a --per-socket -e task-clock,context-switches,cycles -- sleep 0.05
same per_die_csv -a --per-die -x, -e task-clock,context-switches -- sleep 0.05
same per_core_json -a --per-core -j -e task-clock,context-switches -- sleep 0.05
same per_node_interval -a --per-node -I 100 -e task-clock -- sleep 0.25
same per_core_interval_csv -a --per-core -I 100 -x';' -e task-clock -- sleep 0.25
same per_core_cpu -C 1 --per-core -e task-clock -- sleep 0.02
same aggr_last_wins -a -A --per-core -e task-clock -- true
same aggr_last_wins2 -a --per-core -A -e task-clock -- true
same no_aggr_runs -a -A -r 2 -e task-clock -- true
same no_aggr_runs_csv -a -A -r 2 -x, -e task-clock -- true
same per_socket_runs_json -a --per-socket -r 2 -j -e task-clock -- true
# --table (each run's wall time), --summary after intervals (text, CSV with and without
# the "summary" column, JSON, per CPU), -S.
same table -r 3 --table -e task-clock -- sleep 0.01
same table_csv -r 2 --table -x, -e task-clock -- true
same summary -I 100 --summary -e task-clock,page-faults -- sleep 0.25
same summary_csv -I 100 --summary -x, -e task-clock -- sleep 0.15
same summary_no_csv -I 100 --summary --no-csv-summary -x, -e task-clock -- sleep 0.15
same summary_json -I 100 --summary -j -e task-clock -- sleep 0.15
same summary_per_cpu -I 100 --summary -A -a -x, -e task-clock -- sleep 0.15
same summary_no_interval --summary -e task-clock -- true
same sync -S -e task-clock -- true

# -D: the elapsed time counts from the enable (sleep 0.2, delay 0.15: about 0.05 s).
el=$("$PERFX" stat -D 150 -e task-clock -- sleep 0.2 2>&1 | awk '/time elapsed/ {print $1}')
awk -v e="$el" 'BEGIN { exit !(e > 0.03 && e < 0.12) }' || { echo "-D 150: elapsed $el"; fail=1; }
# --timeout: stops at the timeout.
start=$(date +%s%N)
"$PERFX" stat --timeout 200 -e task-clock -- sleep 5 >/dev/null 2>&1 || { echo "--timeout: status $?"; fail=1; }
ms=$(( ($(date +%s%N) - start) / 1000000 ))
[ $ms -lt 2000 ] || { echo "--timeout 200 took $ms ms"; fail=1; }
# --interval-count: 2 lines of counts, then the workload still runs to its end.
start=$(date +%s%N)
n=$("$PERFX" stat -I 100 --interval-count 2 -e task-clock -- sleep 0.6 2>&1 | grep -c 'task-clock')
ms=$(( ($(date +%s%N) - start) / 1000000 ))
[ "$n" = 2 ] || { echo "--interval-count 2: $n lines"; fail=1; }
[ $ms -ge 550 ] || { echo "--interval-count: returned after $ms ms, before the workload ended"; fail=1; }
# --append adds a second report to the file.
"$PERFX" stat -e task-clock -o "$tmp/out.txt" -- true 2>/dev/null
"$PERFX" stat -e task-clock -o "$tmp/out.txt" --append -- true 2>/dev/null
[ "$(grep -c 'Performance counter stats' "$tmp/out.txt")" = 2 ] || { echo "--append did not append"; fail=1; }
# A failing --pre stops before the workload, naming the status.
if "$PERFX" stat -e task-clock --pre 'exit 3' -- touch "$tmp/ran" 2>"$tmp/err" || [ -e "$tmp/ran" ] ||
   ! grep -q -- "--pre" "$tmp/err"; then
  echo "--pre failing: $(cat "$tmp/err")"; fail=1
fi
"$PERFX" stat --interval-count 2 -- true >/dev/null 2>&1 && { echo "--interval-count without -I accepted"; fail=1; }
# Cgroups per event (-G a,b, -G a,,b) and --for-each-cgroup (text, CSV, JSON, -A, -I):
# the workload moves itself into the first cgroup, so its lines count and the second's
# are <not counted>, in both tools.
cg_mount=$(awk '$3 == "cgroup2" {print $2; exit}' /proc/mounts)
cga=perfx_it_a_$$ cgb=perfx_it_b_$$
if [ -n "$cg_mount" ] && mkdir "$cg_mount/$cga" "$cg_mount/$cgb" 2>/dev/null; then
  # Pinned to CPU 0: with -A the counted line must be the same CPU's in both runs.
  work=(taskset -c 0 sh -c "echo \$\$ > $cg_mount/$cga/cgroup.procs; i=0; while [ \$i -lt 20000 ]; do i=\$((i+1)); done")
  same cg_for_each -a --for-each-cgroup "$cga,$cgb" -e task-clock,context-switches -- "${work[@]}"
  same cg_per_event -a -e task-clock,context-switches -G "$cga,$cgb" -- "${work[@]}"
  same cg_gap -a -e task-clock,context-switches,page-faults -G "$cga,,$cgb" -- "${work[@]}"
  same cg_csv -a --for-each-cgroup "$cga,$cgb" -x, -e task-clock -- "${work[@]}"
  same cg_json -a --for-each-cgroup "$cga,$cgb" -j -e task-clock -- "${work[@]}"
  same cg_per_cpu -a -A --for-each-cgroup "$cga,$cgb" -e task-clock -- "${work[@]}"
  same cg_interval -a -I 1000 --for-each-cgroup "$cga,$cgb" -e task-clock -- "${work[@]}"
  rmdir "$cg_mount/$cga" "$cg_mount/$cgb"
else
  echo "no cgroup2 mount to create cgroups in: the cgroup cases are skipped"
fi
"$PERFX" stat -a -e task-clock -G a,b,c -- true 2>"$tmp/cg.err" && { echo "-G with 3 cgroups for 1 event accepted"; fail=1; }
grep -q "3 cgroups for 1 event:" "$tmp/cg.err" || { echo "-G too many: $(cat "$tmp/cg.err")"; fail=1; }

# Issue #25: a workload killed by a signal (perf: its name, status 0), an exit status
# passed on; tool events (duration_time, user_time: ns, "<not counted>" for 0); -a's
# default cpu-clock; -M's and --topdown's messages on a machine without their tables;
# --metric-only (rate metrics and no-PMU counters leave empty cells).
# The workloads die after a pause: perf 6.1 prints "sh: Killed" only when its wait4() runs
# before the SIGCHLD (its handler sets child_pid = -1 and the wait is skipped), a race
# a busy machine loses when the child dies at once.
same killed -e task-clock -- sh -c 'sleep 0.2; kill -9 $$'
same killed_term -- sh -c 'sleep 0.2; kill -15 $$'
same exit_status -e task-clock -- sh -c 'exit 3'
loop=(sh -c 'i=0; while [ $i -lt 30000 ]; do i=$((i+1)); done')
same tool_events -e duration_time,task-clock,user_time -- "${loop[@]}"
same tool_events_csv -x, -e task-clock,user_time,duration_time -- "${loop[@]}"
same tool_system_wide -a -e duration_time -- sleep 0.02
same default_system_wide -a -- sleep 0.02
same metric_unknown -M IPC,TopdownL1 -e task-clock -- true
same topdown --topdown -- true
same topdown_a --topdown -a -- true
same metric_only --metric-only -- true
same metric_only_events --metric-only -e task-clock,cycles,instructions -- true
# -e with no command counts the system until Ctrl-C; both die by SIGINT (status 130).
for tool in perf "$PERFX"; do
  "$tool" stat -e task-clock > "$tmp/sigint.$(basename "$tool")" 2>&1 & pid=$!
  sleep 0.3; kill -INT $pid; wait $pid; echo "status $?" >> "$tmp/sigint.$(basename "$tool")"
done
diff <(mask < "$tmp/sigint.perf") <(mask < "$tmp/sigint.perfx") ||
  { echo "-e without a command differs from perf's"; fail=1; }
# --per-thread -a: one line per thread that counted, "comm-tid" first (the threads of the
# machine differ from run to run: the layout is checked).
"$PERFX" stat --per-thread -a -e task-clock -- sleep 0.02 2>"$tmp/pt.err" ||
  { echo "--per-thread -a: $(head -2 "$tmp/pt.err")"; fail=1; }
grep -Eq '^ *[^ ]+-[0-9]+ +[0-9.]+ msec task-clock' "$tmp/pt.err" &&
  ! grep -q 'not counted' "$tmp/pt.err" || { echo "--per-thread -a: $(head -5 "$tmp/pt.err")"; fail=1; }

# --interval-clear: the clear-screen sequence on stdout before every interval, and the
# column header repeated after it.
"$PERFX" stat -I 100 --interval-clear -e task-clock -- sleep 0.25 >"$tmp/clear.out" 2>"$tmp/clear.err"
[ "$(grep -c $'\e\[H\e\[2J' "$tmp/clear.out")" = 3 ] && [ "$(grep -c '^#  *time' "$tmp/clear.err")" = 3 ] ||
  { echo "--interval-clear: $(cat -A "$tmp/clear.out") / $(cat "$tmp/clear.err")"; fail=1; }
[ $fail = 0 ] && echo "perfx stat's run options behave like perf's"
exit $fail
