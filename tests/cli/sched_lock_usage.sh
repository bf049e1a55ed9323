#!/usr/bin/env bash
# perfx sched and perfx lock: usage errors exit 129 with one message (perf's usage exit),
# unreadable or unsuitable inputs exit 1 with one line, help exits 0. No kernel needed.
set -u
source "$(dirname "$0")/common.bash"
data=$(dirname "$0")/../data/fmt-multi-event.data

"$PERFX" sched >/dev/null 2>"$tmp/e"; rc=$?
check "sched without a subcommand: usage, 129" '[ $rc -eq 129 ] && grep -q "usage: perfx sched" "$tmp/e"'
"$PERFX" sched latncy >/dev/null 2>"$tmp/e"; rc=$?
check "sched latncy suggests latency" '[ $rc -eq 129 ] && grep -q "did you mean '"'latency'"'" "$tmp/e"'
"$PERFX" sched latency -s bogus -i "$tmp/none" >/dev/null 2>"$tmp/e"; rc=$?
check "latency -s bogus: 129 naming the keys" '[ $rc -eq 129 ] && grep -q "unknown sort key .bogus." "$tmp/e"'
"$PERFX" sched latency -i "$tmp/none" >/dev/null 2>"$tmp/e"; rc=$?
check "latency on a missing file: one line, exit 1" '[ $rc -eq 1 ] && [ "$(wc -l <"$tmp/e")" -eq 1 ]'
"$PERFX" sched -i "$data" timehist >/dev/null 2>"$tmp/e"; rc=$?
check "timehist on a recording without sched_switch: one line, exit 1" \
  '[ $rc -eq 1 ] && [ "$(wc -l <"$tmp/e")" -eq 1 ] && grep -q "no sched:sched_switch" "$tmp/e"'
"$PERFX" sched --help >"$tmp/o"; rc=$?
check "sched --help: exit 0" '[ $rc -eq 0 ] && grep -q timehist "$tmp/o"'
"$PERFX" sched map --bogus >/dev/null 2>&1; rc=$?
check "sched map --bogus: 129" '[ $rc -eq 129 ]'

"$PERFX" lock >/dev/null 2>"$tmp/e"; rc=$?
check "lock without a subcommand: usage, 129" '[ $rc -eq 129 ] && grep -q "usage: perfx lock" "$tmp/e"'
"$PERFX" lock contention -k bogus >/dev/null 2>"$tmp/e"; rc=$?
check "contention -k bogus: 129" '[ $rc -eq 129 ] && grep -q "unknown sort key" "$tmp/e"'
"$PERFX" lock contention -l -t >/dev/null 2>"$tmp/e"; rc=$?
check "contention -l -t: 129" '[ $rc -eq 129 ]'
"$PERFX" lock contention -i "$data" >/dev/null 2>"$tmp/e"; rc=$?
check "contention on a recording without lock events: one line, exit 1" \
  '[ $rc -eq 1 ] && [ "$(wc -l <"$tmp/e")" -eq 1 ] && grep -q "no lock:contention" "$tmp/e"'
exit $fail
