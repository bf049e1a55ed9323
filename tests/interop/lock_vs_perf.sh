#!/usr/bin/env bash
# perfx lock contention vs perf 6.1's `perf lock contention -i` on one `perf lock record`
# recording of the lock_mmap_storm fixture (threads contending on mmap_lock through
# mmap/munmap), and perf's reading of a `perfx lock record` recording: the same rows
# (contended count, waits, type, caller), per caller, per thread (-t), with -E and -k.
set -u
source "$(dirname "$0")/common.bash"
[ -e /sys/kernel/tracing/events/lock/contention_begin ] ||
  { echo "no lock:contention_begin tracepoint"; exit 77; }
use_fixture prog lock_mmap_storm -O1 -pthread
ok=1
fail() { echo "FAIL: $*"; ok=0; }
perf lock record -o "$tmp/perf.data" -- "$prog" 800 4 >/dev/null 2>&1 ||
  { echo "perf lock record does not work here"; exit 77; }
"$PERFX" lock record -o "$tmp/perfx.data" -- "$prog" 800 4 >/dev/null 2>"$tmp/err" ||
  fail "perfx lock record: $(cat "$tmp/err")"

# compare [--sorted] FILE ARGS...: perfx's and perf's tables must be the same text
# (--sorted: the same lines; rows that tie on the sort key come in perf's hash order).
compare() {
  local sorted=cat
  if [ "$1" = --sorted ]; then sorted=sort; shift; fi
  local file=$1; shift
  "$PERFX" lock contention -i "$file" "$@" 2>"$tmp/err" | $sorted >"$tmp/x" ||
    fail "perfx lock contention $*: $(cat "$tmp/err")"
  perf lock contention -i "$file" "$@" 2>&1 | $sorted >"$tmp/p"
  if ! diff "$tmp/p" "$tmp/x" >"$tmp/d"; then
    fail "lock contention $* on $(basename "$file") differs from perf's:"; cat "$tmp/d"
  fi
}
compare "$tmp/perf.data"
compare "$tmp/perf.data" -t
compare "$tmp/perf.data" -E 2
compare --sorted "$tmp/perf.data" -k contended
compare "$tmp/perfx.data"
# The storm's mmap_lock waits are there, as rwsem writers, with a caller name.
grep -qE ' rwsem:W   [a-z_0-9]+\+0x' "$tmp/x" || fail "no rwsem:W row with a caller"
rows=$(grep -c 'rwsem' "$tmp/x")
[ "$rows" -ge 1 ] || fail "no rwsem rows"
# Per lock address: the contended counts add up to the per-caller table's.
total() { awk 'NR > 2 { n += $1 } END { print n + 0 }' "$1"; }
"$PERFX" lock contention -i "$tmp/perf.data" >"$tmp/c"
"$PERFX" lock contention -i "$tmp/perf.data" -l >"$tmp/l" || fail "perfx lock contention -l"
[ "$(total "$tmp/c")" -eq "$(total "$tmp/l")" ] || fail "-l counts $(total "$tmp/l") vs $(total "$tmp/c")"
head -1 "$tmp/l" | grep -q 'address   symbol' || fail "-l header: $(head -1 "$tmp/l")"
# Bad input: one error line, non-zero exit.
if "$PERFX" lock contention -i "$tmp/none.data" >/dev/null 2>"$tmp/err"; then fail "missing file exits 0"; fi
[ "$(wc -l <"$tmp/err")" -eq 1 ] || fail "missing file: $(cat "$tmp/err")"
if "$PERFX" lock contention -i "$tmp/perf.data" -k bogus >/dev/null 2>&1; then fail "-k bogus exits 0"; fi
# lock script: perf's alias of perf script, the same text (the leading -i too)
perf lock script -i "$tmp/perf.data" >"$tmp/script.perf" 2>&1
"$PERFX" lock script -i "$tmp/perf.data" >"$tmp/script.perfx" 2>&1 || fail "perfx lock script exited $?"
"$PERFX" lock -i "$tmp/perf.data" script >"$tmp/script2.perfx" 2>&1 || fail "perfx lock -i F script exited $?"
[ -s "$tmp/script.perf" ] && cmp -s "$tmp/script.perf" "$tmp/script.perfx" &&
  cmp -s "$tmp/script.perf" "$tmp/script2.perfx" || fail "lock script differs from perf's"
[ "$ok" = 1 ] && echo PASS
[ "$ok" = 1 ]
