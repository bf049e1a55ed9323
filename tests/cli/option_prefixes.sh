#!/usr/bin/env bash
# perf's option habit: a long option cut to a prefix that names one option alone works
# (`perf report --comm sleep`, `--no-chil`); a prefix of several is an error naming
# them; values and the workload's own options are left as they are. Env: PERFX.
set -u
source "$(dirname "$0")/common.bash"
data=$(dirname "$0")/../data/fmt-multi-event.data

"$PERFX" report -i "$data" --stdio --no-children -g none --sort comm,dso >"$tmp/full.txt" 2>/dev/null
"$PERFX" report -i "$data" --std --no-chil -g none --sor=comm,dso >"$tmp/short.txt" 2>/dev/null
rc=$?
check "report with abbreviated options exits 0" '[ $rc -eq 0 ]'
check "abbreviations give the full options' report" 'cmp -s "$tmp/full.txt" "$tmp/short.txt"'
check "the full report is not empty" 'grep -q "%" "$tmp/full.txt"'

"$PERFX" report -i "$data" --s comm 2>"$tmp/ambiguous.err" >/dev/null
rc=$?
check "an ambiguous prefix fails as a usage error (129)" '[ $rc -eq 129 ]'
check "an ambiguous prefix names its options" \
  'grep -q "Ambiguous option: --s (could be .*--sort.*--stdio\|Ambiguous option: --s (could be .*--stdio.*--sort" "$tmp/ambiguous.err"'

# A value that looks like a prefix is a value: --comms takes "--no-chil" as a comm name.
"$PERFX" report -i "$data" --stdio -g none --comms --no-chil >"$tmp/value.txt" 2>&1
check "an option's value is not expanded" '! grep -q "%" "$tmp/value.txt"'

# The workload's options are its own: `--no` is echo's argument, not a stat option.
"$PERFX" stat -e task-clock -x, -o "$tmp/stat.csv" -- echo --no-chil >"$tmp/echo.out" 2>&1
check "the workload's arguments are passed as typed" 'grep -qx -- "--no-chil" "$tmp/echo.out"'
"$PERFX" stat -e task-clock --field-sep=';' --out "$tmp/stat2.csv" -- true 2>/dev/null
check "stat takes prefixes too (--field-sep, --out)" 'grep -q ";task-clock" "$tmp/stat2.csv"'
"$PERFX" record -o "$tmp/r.data" --call=fp -- echo --call >"$tmp/rec.out" 2>&1
rc=$?
check "record --call is --call-graph" '[ $rc -eq 0 ] && grep -qx -- "--call" "$tmp/rec.out"'
# An unknown option before the workload is an error naming it, not the workload's name
# (stat) or silently dropped (record with "--").
"$PERFX" stat -e task-clock --bogus true >/dev/null 2>"$tmp/stat_bogus.err"
rc=$?
check "stat --bogus fails naming it" '[ $rc -eq 129 ] && grep -q "unknown option: --bogus" "$tmp/stat_bogus.err"'
"$PERFX" record -o "$tmp/bogus.data" --bogus -- true >/dev/null 2>"$tmp/rec_bogus.err"
rc=$?
check "record --bogus -- true fails naming it" \
  '[ $rc -eq 129 ] && grep -q "unknown option: --bogus" "$tmp/rec_bogus.err" && [ ! -e "$tmp/bogus.data" ]'
# perf: the workload starts at its first word; a "--" after it is the workload's.
"$PERFX" record -o "$tmp/dd.data" echo -- -n hi >"$tmp/dd.out" 2>/dev/null
check "record echo -- -n hi runs echo with all three" 'grep -qx -- "-- -n hi" "$tmp/dd.out"'
exit $fail
