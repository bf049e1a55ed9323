#!/usr/bin/env bash
# perfx stat record / stat report on the live kernel (software events): the live counts,
# the file, its read-back, -I rounds, the .old copy, a symlink at -o, and bad inputs (one
# line, non-zero). Env: PERFX (the CLI).
set -u
source "$(dirname "$0")/common.bash"
PERFX=$(readlink -f "$PERFX")  # the first case runs in $tmp

# record: live counts on stderr as perfx stat, the file written.
(cd "$tmp" && "$PERFX" stat record -e task-clock,page-faults -- true 2>"$tmp/live.err")
check "stat record exits 0" '[ $? -eq 0 ]'
check "live counts printed" 'grep -q "page-faults" "$tmp/live.err"'
check "default file perf.data" '[ -s "$tmp/perf.data" ]'
"$PERFX" stat report -i "$tmp/perf.data" >"$tmp/report.out" 2>"$tmp/report.err"
check "stat report exits 0" '[ $? -eq 0 ]'
check "report on stderr, nothing on stdout" '[ ! -s "$tmp/report.out" ]'
check "report names the recorder's command" 'grep -q "Performance counter stats for .*stat record -e task-clock,page-faults -- true" "$tmp/report.err"'
# the same counts as the live run printed (page-faults line: its count)
live=$(awk '$2 == "page-faults" { print $1 }' "$tmp/live.err")
rep=$(awk '$2 == "page-faults" { print $1 }' "$tmp/report.err")
check "report's page-faults = live ($live)" '[ -n "$live" ] && [ "$live" = "$rep" ]'
check "elapsed time line" 'grep -q "seconds time elapsed" "$tmp/report.err"'
check "no user/sys lines" '! grep -q "seconds user" "$tmp/report.err"'
# abbreviations as perf takes them (3+ letters)
"$PERFX" stat rep -i "$tmp/perf.data" 2>/dev/null
check "'stat rep' is report" '[ $? -eq 0 ]'

# -o, -I: one round per interval, each a delta.
"$PERFX" stat rec -I 50 -e task-clock -o "$tmp/i.data" -- sleep 0.2 2>/dev/null
check "stat record -I exits 0" '[ $? -eq 0 ]'
"$PERFX" stat report -i "$tmp/i.data" 2>"$tmp/i.err"
check "interval header" 'grep -q "#           time             counts unit events" "$tmp/i.err"'
check "several intervals" '[ "$(grep -c "task-clock" "$tmp/i.err")" -ge 3 ]'

# options before `record` hold too, as in perf (`perf stat -e X record ...`).
"$PERFX" stat -e page-faults record -o "$tmp/pre.data" -- true 2>/dev/null
"$PERFX" stat report -i "$tmp/pre.data" 2>"$tmp/pre.err"
check "options before record" 'grep -q page-faults "$tmp/pre.err" && ! grep -q task-clock "$tmp/pre.err"'

# an existing file is kept as .old; a symlink at -o is not followed.
echo keep >"$tmp/victim"
ln -s "$tmp/victim" "$tmp/link.data"
"$PERFX" stat record --quiet -e task-clock -o "$tmp/link.data" -- true 2>/dev/null
check "symlink moved aside" '[ -L "$tmp/link.data.old" ] && [ ! -L "$tmp/link.data" ]'
check "symlink target untouched" '[ "$(cat "$tmp/victim")" = keep ]'

# bad inputs: one line, non-zero
one_line_fail() {  # NAME CMD...: exits non-zero with exactly one stderr line
  local name=$1
  shift
  "$@" >/dev/null 2>"$tmp/err.txt"
  local rc=$?
  check "$name: non-zero" '[ $rc -ne 0 ]'
  check "$name: one line" '[ "$(wc -l <"$tmp/err.txt")" -eq 1 ]'
}
one_line_fail "-r with record" "$PERFX" stat record -r 2 -o "$tmp/r.data" -- true
one_line_fail "missing file" "$PERFX" stat report -i "$tmp/missing.data"
"$PERFX" record -q -e cpu-clock -o "$tmp/samples.data" -- true 2>/dev/null
one_line_fail "sampling recording" "$PERFX" stat report -i "$tmp/samples.data"
check "says no stat data" 'grep -q "no stat data" "$tmp/err.txt"'
head -c 100 /dev/urandom >"$tmp/garbage.data"
one_line_fail "garbage file" "$PERFX" stat report -i "$tmp/garbage.data"
exit $fail
