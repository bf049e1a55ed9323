#!/usr/bin/env bash
# perfx stat: unsupported events, unknown events, missing commands, exit status
# passthrough, -o files. Env: PERFX (the CLI), BUILD_DIR.
set -u
source "$(dirname "$0")/common.bash"

# cycles: exit 0; <not supported> on a machine without a hardware PMU.
"$PERFX" stat -e cycles -- true 2>"$tmp/cycles.err"
rc=$?
check "cycles exits 0" '[ $rc -eq 0 ]'
if [ ! -e /sys/bus/event_source/devices/cpu ]; then
  check "cycles marked <not supported>" 'grep -Eq "<not supported> +cycles" "$tmp/cycles.err"'
fi

# Unknown event: non-zero, names it.
"$PERFX" stat -e no_such_event -- true 2>"$tmp/bad.err"
rc=$?
check "unknown event exits non-zero" '[ $rc -ne 0 ]'
check "unknown event is named" 'grep -q "no_such_event" "$tmp/bad.err"'

# Empty event: an error like perf's "event syntax error: ''", not the default events.
"$PERFX" stat -e '' -- true 2>"$tmp/empty.err"
rc=$?
check "-e '' exits non-zero" '[ $rc -ne 0 ]'
check "-e '' says empty event" 'grep -q "empty event" "$tmp/empty.err"'
check "-e '' counts nothing" '! grep -q "task-clock" "$tmp/empty.err"'
"$PERFX" stat -e task-clock -e ' ' -- true 2>"$tmp/empty2.err"
check "-e ' ' after another -e is rejected" '[ $? -ne 0 ] && grep -q "empty event" "$tmp/empty2.err"'

# --per-socket/die/core/node sum CPUs: without -a/-C/-G an error names the option;
# --per-thread with one of them is refused, naming both.
"$PERFX" stat --per-core -- true 2>"$tmp/percore.err"
check "--per-core without -a fails naming it" '[ $? -ne 0 ] && grep -q -- "--per-core needs -a" "$tmp/percore.err"'
"$PERFX" stat -t $$ --per-thread --per-socket -- true 2>"$tmp/perthread.err"
check "--per-thread --per-socket refused" \
  '[ $? -ne 0 ] && grep -q -- "--per-thread and --per-socket" "$tmp/perthread.err"'

# Missing command: 127 and a message, like a shell.
"$PERFX" stat -- /nonexistent 2>"$tmp/nx.err"
rc=$?
check "missing command exits 127" '[ $rc -eq 127 ]'
check "missing command message" 'grep -q "perfx: command not found: /nonexistent" "$tmp/nx.err"'

# Exit status passthrough; a workload killed by a signal: its name, status 0 (perf 6.1).
"$PERFX" stat -e task-clock -- sh -c 'exit 3' 2>/dev/null
rc=$?
check "exit code passthrough" '[ $rc -eq 3 ]'
"$PERFX" stat -e task-clock -- sh -c 'kill -9 $$' 2>"$tmp/killed.err"
rc=$?
check "killed workload -> 0, as perf" '[ $rc -eq 0 ] && grep -q "^sh: Killed" "$tmp/killed.err"'

# No `--`: -e takes one value, the rest is the command (perf's habit).
"$PERFX" stat -e task-clock sh -c 'exit 4' 2>"$tmp/nodash.err"
rc=$?
check "stat -e EV cmd runs cmd" '[ $rc -eq 4 ] && grep -q task-clock "$tmp/nodash.err"'
"$PERFX" record -q -e cpu-clock -o "$tmp/nodash.data" sh -c 'exit 5' 2>/dev/null
rc=$?
check "record -e EV cmd runs cmd" '[ $rc -eq 5 ] && [ -s "$tmp/nodash.data" ]'

# -p: ends by itself when the target exits (perf does), with the counts so far.
sleep 0.4 &
target=$!
start=$(date +%s%N)
timeout 10 "$PERFX" stat -e task-clock -p "$target" 2>"$tmp/p.err"
rc=$?
took_ms=$(( ($(date +%s%N) - start) / 1000000 ))
check "stat -p stops when the target exits (rc $rc, ${took_ms} ms)" \
  '[ $rc -eq 0 ] && [ $took_ms -lt 3000 ] && grep -q task-clock "$tmp/p.err"'

# -o FILE with CSV: the started-on line, then one line per event.
"$PERFX" stat -x, -o "$tmp/out.csv" -e page-faults,task-clock -- true 2>"$tmp/o.err"
rc=$?
check "-o exits 0" '[ $rc -eq 0 ]'
check "-o leaves stderr empty" '[ ! -s "$tmp/o.err" ]'
check "-o started-on line" 'head -1 "$tmp/out.csv" | grep -q "^# started on "'
check "-o CSV page-faults line" 'grep -Eq "^[0-9]+,,page-faults,[0-9]+,100.00,[0-9.]+,K?/sec$" "$tmp/out.csv"'
check "-o CSV task-clock line" 'grep -Eq "^[0-9.]+,msec,task-clock,[0-9]+,100.00,[0-9.]+,CPUs utilized$" "$tmp/out.csv"'

# Bad options are reported.
"$PERFX" stat -C 0,x -- true 2>"$tmp/c.err"
rc=$?
check "bad -C rejected" '[ $rc -ne 0 ] && grep -q "x" "$tmp/c.err"'
"$PERFX" stat -x, -j -- true 2>/dev/null
check "-x with -j rejected" '[ $? -ne 0 ]'

# Interval mode prints at least two intervals for a 250 ms command.
"$PERFX" stat -I 100 -x, -e task-clock -- sleep 0.25 2>"$tmp/i.err"
check "interval lines" '[ "$(grep -c ",msec,task-clock," "$tmp/i.err")" -ge 2 ]'

# -r prints the noise column in CSV and the runs count in text.
"$PERFX" stat -r 3 -e page-faults -- true 2>"$tmp/r.err"
check "-r header" 'grep -q "(3 runs):" "$tmp/r.err"'
check "-r elapsed +-" 'grep -q " +- .* seconds time elapsed" "$tmp/r.err"'

# Per-thread on an existing process.
sleep 2 &
spid=$!
# Until the forked shell has exec'd sleep, its comm is still "bash".
for _ in $(seq 50); do [ "$(cat /proc/$spid/comm 2>/dev/null)" = sleep ] && break; sleep 0.02; done
"$PERFX" stat --per-thread -p "$spid" -x, -e task-clock -- sleep 0.1 2>"$tmp/t.err"
check "--per-thread line" 'grep -q "^sleep-$spid,.*,task-clock," "$tmp/t.err"'
kill "$spid" 2>/dev/null
wait "$spid" 2>/dev/null

# A breakpoint that counted 0 gets the reason when breakpoints cannot fire here (perfx
# list says which): a silent 0 would read as "never touched".
"$PERFX" stat -e mem:0x1000:w -- true 2>"$tmp/bp.err" >/dev/null
if "$PERFX" list 2>/dev/null | grep -q "mem:.*never fire on this machine"; then
  check "silent breakpoint note" \
    'grep -q "^perfx stat: mem:0x1000:w: hardware breakpoints open but never fire on this machine" "$tmp/bp.err"'
else
  check "no note where breakpoints fire" '! grep -q "never fire" "$tmp/bp.err"'
fi

exit $fail
