#!/usr/bin/env bash
# perfx trace vs perf trace in the same run, on the syscall_loop fixture (N iterations of
# openat+read+close of /dev/zero and one openat failing with ENOENT):
#   1. `trace -s --errno-summary -- PROG N`: the same syscall rows with the same call and
#      error counts as perf trace -s, the same errno lines (openat: ENOENT: N);
#   2. `-p PID` on a running loop: its openat rows (half of them ENOENT) in the summary,
#      and lines with the decoded path, flags and errno;
#   3. `-a -e openat`: the loop's thread block appears in the system-wide summary;
#   4. `-F all --no-syscalls -s`: minor faults within 10% of perf trace's count (the
#      same program faults a few pages more or less from run to run), and fault lines
#      name the mapping of their address.
set -u
PERFX=${PERFX:-build/bin/perfx}
BUILD_DIR=${BUILD_DIR:-build}
SOURCE_DIR=${SOURCE_DIR:-.}
command -v perf >/dev/null || { echo "perf not installed"; exit 77; }
perf trace -s -- true >/dev/null 2>&1 || { echo "perf trace does not work here"; exit 77; }
tmp=$(mktemp -d)
loop_pid=
trap '[ -n "$loop_pid" ] && kill "$loop_pid" 2>/dev/null; rm -rf "$tmp"' EXIT
prog="$BUILD_DIR/fixtures/syscall_loop"
if [ ! -x "$prog" ]; then
  cc -O1 -o "$tmp/syscall_loop" "$SOURCE_DIR/tests/fixtures/syscall_loop.c" || exit 77
  prog="$tmp/syscall_loop"
fi
ok=1
fail() { echo "FAIL: $*"; ok=0; }
# "name calls errors" per row of a -s table
rows() { awk '$1 ~ /^[a-z_0-9]+$/ && $2 ~ /^[0-9]+$/ && $3 ~ /^[0-9]+$/ && NF == 8 { print $1, $2, $3 }' "$1" | sort; }

# 1. -s on a forked command
n=300
"$PERFX" trace -s --errno-summary -o "$tmp/perfx.txt" -- "$prog" $n || fail "perfx trace -s exited $?"
rows "$tmp/perfx.txt" >"$tmp/perfx.rows"
# perf trace itself now and then misses a syscall pair on a loaded machine (CI saw
# "openat 600 299" once for the 602/300 the program makes, under the ASan stage's load),
# so perf gets up to three runs to agree; perfx's own counts are checked exactly below.
for attempt in 1 2 3; do
  perf trace -s --errno-summary -o "$tmp/perf.txt" -- "$prog" $n 2>/dev/null || fail "perf trace -s exited $?"
  rows "$tmp/perf.txt" >"$tmp/perf.rows"
  cmp -s "$tmp/perf.rows" "$tmp/perfx.rows" && break
  echo "perf trace -s run $attempt differs from perfx:"
  diff -u "$tmp/perf.rows" "$tmp/perfx.rows"
  [ $attempt = 3 ] && fail "-s rows differ from perf trace -s in three runs"
done
grep -q "^openat $((2 * n + 2)) $n\$" "$tmp/perfx.rows" ||
  fail "openat row is not '$((2 * n + 2)) calls, $n errors': $(grep openat "$tmp/perfx.rows")"
grep -q "^read $((n + 1)) 0\$" "$tmp/perfx.rows" || fail "read row: $(grep '^read' "$tmp/perfx.rows")"
grep -q "Summary of events" "$tmp/perfx.txt" || fail "no summary header"
# --errno-summary: the same errno lines under the same rows
errnos() { awk '$1 ~ /^[a-z_0-9]+$/ && NF == 8 { row = $1 } /^\t+E[A-Z0-9]+: / { print row, $1, $2 }' "$1" | sort; }
diff -u <(errnos "$tmp/perf.txt") <(errnos "$tmp/perfx.txt") || fail "--errno-summary lines differ"
grep -q "^openat ENOENT: $n\$" <(errnos "$tmp/perfx.txt") || fail "no 'ENOENT: $n' under openat"

# 2. -p on a running loop (2 ms between iterations)
"$prog" 0 2 &
loop_pid=$!
sleep 0.2
# 5 s: a cold start (tracefs formats of every syscall not yet cached) once took most of
# 1 s on an idle machine, and more than 2 s while a build shared its two CPUs. timeout
# sends SIGINT twice (the command, then its group): perfx trace must survive the second.
timeout -s INT 5 "$PERFX" trace -s -p "$loop_pid" -o "$tmp/p.txt"
grep -q "syscall_loop ($loop_pid)" "$tmp/p.txt" ||
  fail "-p: no block for pid $loop_pid in $(wc -c <"$tmp/p.txt") bytes: $(head -3 "$tmp/p.txt")"
read -r calls errors < <(rows "$tmp/p.txt" | awk '$1 == "openat" { print $2, $3 }')
if [ -z "${calls:-}" ] || [ "$errors" -lt 20 ] || [ $((calls - 2 * errors)) -gt 1 ] ||
   [ $((calls - 2 * errors)) -lt -1 ]; then
  fail "-p: openat calls/errors '${calls:-}/${errors:-}' (want ~2:1, >= 20 errors)"
fi
timeout -s INT 5 "$PERFX" trace -p "$loop_pid" -e openat --max-events 6 -o "$tmp/lines.txt"
grep -q 'openat(dfd: CWD, filename: "/dev/zero", flags: RDONLY|CLOEXEC) *= [0-9]' "$tmp/lines.txt" ||
  fail "-p lines: no decoded openat of /dev/zero: $(head -3 "$tmp/lines.txt")"
grep -q 'filename: "/nonexistent/perfx-syscall-loop") *= -1 ENOENT (No such file or directory)' \
  "$tmp/lines.txt" || fail "-p lines: no ENOENT openat: $(head -3 "$tmp/lines.txt")"
[ "$(grep -c 'openat(' "$tmp/lines.txt")" -eq 6 ] || fail "--max-events 6 printed $(wc -l <"$tmp/lines.txt") lines"

# 3. -a (system-wide) with a syscall filter
"$PERFX" trace -a -s -e openat -o "$tmp/a.txt" &
tracer=$!
sleep 3  # the cold start above
kill -INT "$tracer"
wait "$tracer" || fail "-a: perfx trace exited $? on SIGINT"
grep -q "syscall_loop ($loop_pid)" "$tmp/a.txt" || fail "-a: no block for the loop ($loop_pid)"
grep -Eq '^   (read|close) ' "$tmp/a.txt" && fail "-a -e openat: other syscalls in the summary"
grep -q "($tracer)" "$tmp/a.txt" && fail "-a: perfx traced itself"
# 4. page faults
faults() { sed -n 's/.*, \([0-9]*\) minfaults.*/\1/p' "$1" | head -1; }
"$PERFX" trace -F all --no-syscalls -s -o "$tmp/pf.txt" -- "$prog" 5
perf trace -F all --no-syscalls -s -o "$tmp/pf_perf.txt" -- "$prog" 5 2>/dev/null
a=$(faults "$tmp/pf.txt") b=$(faults "$tmp/pf_perf.txt")
if [ -z "$a" ] || [ -z "$b" ] || [ $((a * 10)) -lt $((b * 9)) ] || [ $((a * 10)) -gt $((b * 11)) ]; then
  fail "-F all: perfx ${a:-no} minfaults, perf ${b:-no}"
fi
"$PERFX" trace -F min --no-syscalls -o "$tmp/pf_lines.txt" -- "$prog" 5
grep -Eq 'minfault \[.*\] => .*/syscall_loop@0x[0-9a-f]+ \(d\.\)' "$tmp/pf_lines.txt" ||
  fail "-F min: no fault on the program's own data: $(head -2 "$tmp/pf_lines.txt")"

[ $ok = 1 ] && echo "PASS: trace -s rows as perf; -p and -a see the loop"
[ $ok = 1 ]
