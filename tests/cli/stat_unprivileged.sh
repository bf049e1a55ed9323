#!/usr/bin/env bash
# perfx stat -a as an unprivileged user must fail with a message naming
# perf_event_paranoid, its value, and what would allow the request.
set -u
PERFX=${PERFX:-build/bin/perfx}
command -v setpriv >/dev/null || { echo "setpriv missing"; exit 77; }
[ "$(id -u)" -eq 0 ] || { echo "needs root to drop privileges"; exit 77; }
paranoid=$(cat /proc/sys/kernel/perf_event_paranoid)
[ "$paranoid" -gt 0 ] || { echo "perf_event_paranoid=$paranoid allows -a for everyone"; exit 77; }
out=$(setpriv --reuid=65534 --regid=65534 --clear-groups --inh-caps=-all \
  "$PERFX" stat -a -e task-clock -- true 2>&1)
rc=$?
echo "$out"
fail=0
[ $rc -ne 0 ] || { echo "FAIL: exit status 0"; fail=1; }
echo "$out" | grep -q "perf_event_paranoid <= 0 (it is $paranoid)" || { echo "FAIL: paranoid value"; fail=1; }
echo "$out" | grep -q "CAP_PERFMON" || { echo "FAIL: capability"; fail=1; }
echo "$out" | grep -q "sysctl -w kernel.perf_event_paranoid=0" || { echo "FAIL: remedy"; fail=1; }
# Counting a workload stays possible (user space only, perf's :u fallback).
out2=$(setpriv --reuid=65534 --regid=65534 --clear-groups --inh-caps=-all \
  "$PERFX" stat -e task-clock,page-faults -- true 2>&1)
rc2=$?
echo "$out2"
[ $rc2 -eq 0 ] || { echo "FAIL: unprivileged workload counting exit $rc2"; fail=1; }
exit $fail
