#!/usr/bin/env bash
# perfx trace's options and errors: bad input gives one line and a non-zero exit; the
# print filters (--duration, --failure, -e '!name'), -S, -o, --max-events and a missing
# command's exit status. Env: PERFX (the CLI), BUILD_DIR.
set -u
source "$(dirname "$0")/common.bash"
[ -r /sys/kernel/tracing/events/raw_syscalls/sys_enter/id ] ||
  { echo "no raw_syscalls tracepoints here"; exit 77; }
prog=${BUILD_DIR:-build}/fixtures/syscall_loop
[ -x "$prog" ] || { echo "missing $prog"; exit 77; }

bad() {  # bad NAME PATTERN ARGS...: exit 1 or 129, one error line matching PATTERN
  local name=$1 pat=$2
  shift 2
  "$PERFX" trace "$@" >"$tmp/out" 2>"$tmp/err"
  local rc=$?
  check "$name: non-zero exit" '[ $rc -ne 0 ]'
  check "$name: says '$pat'" 'grep -q -- "$pat" "$tmp/err"'
}
bad "no target" "give a command to trace"
bad "-F bogus" "give all, maj or min" -F bogus -- true
bad "unknown syscall" "'no_such_call' is not a system call" -e no_such_call -- true
bad "-s with -S" "pick one" -s -S -- true
bad "-m 3" "power of two" -m 3 -- true
bad "-p abc" "'abc' is not a pid" -p abc
bad "-p of no process" "no process" -p 999999999
bad "unknown tracepoint" "no_such_sys" -e no_such_sys:no_such_event -- true
bad "unknown option" "bogus" --bogus -- true

"$PERFX" trace -- /nonexistent/perfx-prog 2>"$tmp/err"
rc=$?
check "missing command exits 127" '[ $rc -eq 127 ]'
check "missing command is named" 'grep -q "perfx-prog" "$tmp/err"'

# --failure: only failed calls; -e '!openat': no openat at all.
"$PERFX" trace --failure -o "$tmp/fail.txt" -- "$prog" 3
check "--failure prints the 3 ENOENT opens" '[ "$(grep -c "ENOENT" "$tmp/fail.txt")" -ge 3 ]'
check "--failure prints no success" '! grep -Eq "= [0-9]" "$tmp/fail.txt"'
"$PERFX" trace -e '!openat' -o "$tmp/neg.txt" -- "$prog" 3
check "-e '!openat' drops openat" '! grep -q " openat(" "$tmp/neg.txt"'
check "-e '!openat' keeps close" '[ "$(grep -Ec " close\(fd: [0-9]+\)" "$tmp/neg.txt")" -ge 3 ]'
# --duration: calls under the threshold are not printed (nothing takes 10 s).
"$PERFX" trace --duration 10000 -o "$tmp/dur.txt" -- "$prog" 3
check "--duration 10000 prints nothing" '[ ! -s "$tmp/dur.txt" ]'
# -S: the lines, then the summary; the summary counts what the filter hid.
"$PERFX" trace -S --duration 10000 -o "$tmp/S.txt" -- "$prog" 3
check "-S summary counts hidden calls" 'grep -Eq "^   openat +8 +3 " "$tmp/S.txt"'
"$PERFX" trace -S -e close -o "$tmp/S2.txt" -- "$prog" 3
check "-S prints lines and summary" 'grep -Eq " close\(fd: [0-9]+\)" "$tmp/S2.txt" && grep -q "Summary of events" "$tmp/S2.txt"'
# -o never follows a symlink.
ln -s "$tmp/target" "$tmp/link"
"$PERFX" trace -o "$tmp/link" -- true 2>"$tmp/err"
check "-o refuses a symlink" '[ ! -e "$tmp/target" ]'
# Output goes to stderr by default, the command's stdout stays clean.
"$PERFX" trace -e write -- echo hello >"$tmp/stdout" 2>"$tmp/stderr"
check "trace lines on stderr" 'grep -q "write(fd: 1" "$tmp/stderr"'
check "command output alone on stdout" '[ "$(cat "$tmp/stdout")" = hello ]'
exit $fail
