#!/usr/bin/env bash
# perfx list on this machine: the acceptance items of the foundation issue, plus the
# filter, JSON and probe behaviour a perf list user relies on. Env: PERFX.
set -u
source "$(dirname "$0")/common.bash"

"$PERFX" list >"$tmp/all.txt" 2>"$tmp/all.err"
rc=$?
check "list exits 0" '[ $rc -eq 0 ]'
check "software events are supported" \
  'grep -Eq "^  task-clock +\[Software event\] \[supported\]" "$tmp/all.txt"'
check "page-faults with its alias" 'grep -Eq "^  page-faults OR faults " "$tmp/all.txt"'
check "tracepoint sched:sched_switch" \
  'grep -Eq "^  sched:sched_switch +\[Tracepoint event\]" "$tmp/all.txt"'
check "msr/tsc/ PMU event" 'grep -Eq "^  msr/tsc/ +\[Kernel PMU event\] \[supported\]" "$tmp/all.txt"'
# On hypervisors that deliver no debug traps (PVM guests) a breakpoint opens but never
# fires: the probe says so instead of [supported].
check "breakpoint syntax mem:" \
  'grep -Eq "^  mem:<addr>.*\[Hardware breakpoint\] \[(supported|hardware breakpoints open but never fire on this machine .*)\]" "$tmp/all.txt"'
check "uprobe syntax" 'grep -Eq "^  uprobe:<path>.*\[Uprobe\] \[supported\]" "$tmp/all.txt"'
if [ ! -e /sys/bus/event_source/devices/cpu ]; then
  check "cycles: not supported, no PMU" \
    'grep -Eq "^  cpu-cycles OR cycles +\[Hardware event\] \[not supported: no hardware PMU\]" "$tmp/all.txt"'
fi

# Filters: a glob, a class word.
"$PERFX" list 'sched:*' >"$tmp/sched.txt"
check "glob keeps only matches" '! grep -qv "^  sched:" "$tmp/sched.txt"'
check "glob finds sched_switch" 'grep -q "sched:sched_switch" "$tmp/sched.txt"'
"$PERFX" list sw >"$tmp/sw.txt"
check "class sw" '[ "$(grep -c "\[Software event\]" "$tmp/sw.txt")" -eq "$(wc -l <"$tmp/sw.txt")" ]'
"$PERFX" list no_such_event_anywhere >"$tmp/none.txt" 2>"$tmp/none.err"
rc=$?
check "no match: exit 0 like perf, note on stderr" \
  '[ $rc -eq 0 ] && [ ! -s "$tmp/none.txt" ] && grep -q no_such_event_anywhere "$tmp/none.err"'

# JSON parses; every entry has its fields; the probe really opened software events.
"$PERFX" list --json >"$tmp/list.json"
check "json parses with the documented fields" "python3 - '$tmp/list.json' <<'PY'
import json, sys
d = json.load(open(sys.argv[1]))
keys = {'name','aliases','kind','kind_label','syntax','type','config','description','supported','probed','status'}
assert all(set(e) == keys for e in d), 'fields'
by = {e['name']: e for e in d}
assert by['task-clock']['supported'] and by['task-clock']['probed']
assert by['sched:sched_switch']['kind'] == 'tracepoint'
assert by['msr/tsc/']['type'] > 5
PY"

# --no-probe opens nothing; every entry says so.
"$PERFX" list --no-probe sw >"$tmp/np.txt"
check "--no-probe" '! grep -v "\[not probed\]" "$tmp/np.txt" | grep -q .'

# Bad option: non-zero with a message.
"$PERFX" list --bogus >/dev/null 2>"$tmp/bad.err"
rc=$?
check "bad option rejected" '[ $rc -ne 0 ] && grep -q -- "--bogus" "$tmp/bad.err"'
exit $fail
