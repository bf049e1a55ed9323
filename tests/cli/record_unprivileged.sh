#!/usr/bin/env bash
# `perfx record ./prog` as a real unprivileged user under perf_event_paranoid 2: kernel
# samples are not allowed, so perfx falls back to user-space-only events (":u") and says
# so, as `perf record` does for the same user. The test creates the user, sets the sysctl
# and restores both on exit.
set -u
: "${PERFX:?}" "${BUILD_DIR:?}"
[ "$(id -u)" -eq 0 ] || { echo "needs root to create a user and set the sysctl"; exit 77; }
command -v useradd >/dev/null || { echo "useradd missing"; exit 77; }
command -v setpriv >/dev/null || { echo "setpriv missing"; exit 77; }
source "$(dirname "$0")/common.bash"
user=perfxu$$
old_paranoid=$(cat /proc/sys/kernel/perf_event_paranoid)
cleanup() {
  echo "$old_paranoid" > /proc/sys/kernel/perf_event_paranoid
  userdel "$user" 2>/dev/null
  rm -rf "$tmp"
}
trap cleanup EXIT
useradd --no-create-home --shell /usr/sbin/nologin "$user" || { echo "useradd failed"; exit 77; }
echo 2 > /proc/sys/kernel/perf_event_paranoid
uid=$(id -u "$user")
gid=$(id -g "$user")
as_user() { setpriv --reuid="$uid" --regid="$gid" --clear-groups --inh-caps=-all "$@"; }
# The user's own copies of the tools: the build tree may not be readable by others.
cp "$PERFX" "$tmp/perfx"
cp "$BUILD_DIR/bin/perfx_demo" "$tmp/demo"
chmod 755 "$tmp" "$tmp/perfx" "$tmp/demo"
mkdir "$tmp/out" && chown "$uid:$gid" "$tmp/out"
check "the user cannot sample the kernel here" \
  '! as_user perf record -q -e cpu-clock:k -o "$tmp/out/k.data" true 2>/dev/null'

as_user "$tmp/perfx" record -e cpu-clock -o "$tmp/out/perfx.data" -- "$tmp/demo" 10 \
  >"$tmp/perfx.out" 2>"$tmp/perfx.err"
rc=$?
cat "$tmp/perfx.err"
check "perfx record as $user exits 0 (got $rc)" '[ $rc -eq 0 ]'
check "perfx says it records user space only" \
  'grep -q "recording user space only (cpu-clock:u)" "$tmp/perfx.err"'
check "perfx names perf_event_paranoid" 'grep -q "perf_event_paranoid is 2" "$tmp/perfx.err"'

if command -v perf >/dev/null; then
  as_user perf record -e cpu-clock -o "$tmp/out/perf.data" -- "$tmp/demo" 10 >/dev/null 2>"$tmp/perf.err"
  prc=$?
  check "perf record as $user exits 0 too (got $prc)" '[ $prc -eq 0 ]'
  # Same event, same privilege filter: perf's evlist of both files agrees.
  perf evlist -f -i "$tmp/out/perf.data" > "$tmp/perf.evlist" 2>/dev/null
  perf evlist -f -i "$tmp/out/perfx.data" > "$tmp/perfx.evlist" 2>/dev/null
  cat "$tmp/perf.evlist" "$tmp/perfx.evlist"
  check "perf evlist of perfx's file matches perf's (cpu-clock:u)" \
    'grep -qx "cpu-clock:u" "$tmp/perfx.evlist" && diff -q "$tmp/perf.evlist" "$tmp/perfx.evlist" >/dev/null'
  # Both see the demo's hot function on top, and no kernel samples.
  top_of() {
    perf report -f -i "$1" --stdio --no-children --sort sym 2>/dev/null |
      awk '$1 ~ /%$/ { print $NF; exit }'
  }
  check "same hottest symbol as perf ($(top_of "$tmp/out/perf.data"))" \
    '[ "$(top_of "$tmp/out/perfx.data")" = "$(top_of "$tmp/out/perf.data")" ]'
  check "no kernel samples in perfx's file" \
    '! perf report -f -i "$tmp/out/perfx.data" --stdio --sort sym 2>/dev/null | grep -q "\[k\]"'
fi
# An explicit ':k' is the user's choice: no fallback, a clear error.
as_user "$tmp/perfx" record -e cpu-clock:k -o "$tmp/out/k.data" -- "$tmp/demo" 1 >/dev/null 2>"$tmp/k.err"
krc=$?
cat "$tmp/k.err"
check "explicit :k fails (got $krc)" '[ $krc -ne 0 ]'
check "explicit :k names perf_event_paranoid" 'grep -q "perf_event_paranoid" "$tmp/k.err"'
exit $fail
