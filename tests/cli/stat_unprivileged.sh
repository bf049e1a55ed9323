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
echo "$out2" | grep -q "task-clock:u" || { echo "FAIL: task-clock not renamed task-clock:u"; fail=1; }

nobody() { setpriv --reuid=65534 --regid=65534 --clear-groups --inh-caps=-all "$@"; }

# An event perf marks <not supported> (here: msr/tsc/ after the automatic ':u', which
# the msr PMU rejects with EINVAL) does not abort the run: perf 6.1 prints
# "<not supported> msr/tsc/u" and exits 0. -v says why, and that perfx added the ':u'.
if [ -e /sys/bus/event_source/devices/msr ] && [ "$paranoid" -ge 2 ]; then
  out3=$(nobody "$PERFX" stat -v -e msr/tsc/ -e task-clock -- true 2>&1)
  rc3=$?
  echo "$out3"
  [ $rc3 -eq 0 ] || { echo "FAIL: msr/tsc/ as nobody exit $rc3"; fail=1; }
  echo "$out3" | grep -Eq "<not supported> +msr/tsc/u" || { echo "FAIL: msr/tsc/u line"; fail=1; }
  echo "$out3" | grep -Eq "^ +[0-9.]+ msec task-clock:u" || { echo "FAIL: task-clock:u counted"; fail=1; }
  echo "$out3" | grep -q "':u' (user space only) was added by perfx" ||
    { echo "FAIL: -v does not say perfx added the :u"; fail=1; }
  echo "$out3" | grep -q "drop the ':u'" && { echo "FAIL: tells the user to drop a :u they never typed"; fail=1; }
fi

# -C as nobody: the permission message names -C, not -a.
out4=$(nobody "$PERFX" stat -C 0 -e task-clock -- true 2>&1)
rc4=$?
echo "$out4"
[ $rc4 -ne 0 ] || { echo "FAIL: -C 0 as nobody exit 0"; fail=1; }
echo "$out4" | grep -q "counting on CPU(s) 0 (-C) needs perf_event_paranoid <= 0" ||
  { echo "FAIL: -C message"; fail=1; }
echo "$out4" | grep -q "(-a)" && { echo "FAIL: -C message names -a"; fail=1; }

# Tracepoints with tracefs mounted but not readable (mode 700): a permission problem,
# not "tracefs is not mounted" (perf: "No permissions to read ... remount,mode=755").
tfs=$(awk '$3 == "tracefs" { print $2; exit }' /proc/mounts)
if [ -n "$tfs" ] && ! nobody test -r "$tfs/events"; then
  out5=$(nobody "$PERFX" stat -e sched:sched_switch -- true 2>&1)
  rc5=$?
  echo "$out5"
  [ $rc5 -ne 0 ] || { echo "FAIL: unreadable tracefs exit 0"; fail=1; }
  echo "$out5" | grep -q "not mounted" && { echo "FAIL: says tracefs is not mounted"; fail=1; }
  echo "$out5" | grep -q "mount -o remount,mode=755 $tfs" || { echo "FAIL: remount remedy"; fail=1; }
fi
exit $fail
