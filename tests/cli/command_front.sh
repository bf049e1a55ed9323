#!/usr/bin/env bash
# The CLI's shared front (tools/perfx/command_front.hpp, sample_filters.hpp): each
# command's error lines, exit statuses and shared options as every command spells them.
# A bad filter list is one line "perfx CMD: bad --X 'V'" and exit 1 in report, script and
# annotate (diff: its own combined line); a usage error exits 129. No kernel needed. Env: PERFX.
set -u
source "$(dirname "$0")/common.bash"
data=$(dirname "$0")/../data/fmt-multi-event.data

# run NAME STATUS LINE ARGS...: perfx ARGS exits STATUS with exactly LINE on stderr.
run() {
  local name=$1 want=$2 line=$3
  shift 3
  "$PERFX" "$@" >/dev/null 2>"$tmp/err"
  local rc=$?
  check "$name" '[ $rc -eq '"$want"' ] && [ "$(cat "$tmp/err")" = "$line" ]'
}

run "report --pid x" 1 "perfx report: bad --pid 'x'" report -i "$data" --pid x
run "report --tid 1,y" 1 "perfx report: bad --tid '1,y'" report -i "$data" --tid 1,y
run "script --cpu 3-1" 1 "perfx script: bad --cpu '3-1'" script -i "$data" --cpu 3-1
run "script --pid 2,z" 1 "perfx script: bad --pid '2,z'" script -i "$data" --pid 2,z
run "annotate --cpu q" 1 "perfx annotate: bad --cpu 'q'" annotate -i "$data" --cpu q
run "diff --cpu q" 1 "perfx diff: bad --pid, --tid or --cpu list" diff --cpu q "$data" "$data"
run "report -g bogus" 1 \
  "perfx report: bad -g value 'bogus': expected graph|flat|folded|none[,threshold][,caller|callee]" \
  report -i "$data" -g bogus
run "trace -F bogus" 1 "perfx trace: -F 'bogus': give all, maj or min" trace -F bogus true
run "buildid-list -m" 1 "perfx buildid-list: -m/--kernel-maps is not supported" buildid-list -m
run "evlist of a missing file" 1 "perfx evlist: cannot read '$tmp/none': No such file or directory" \
  evlist -i "$tmp/none"
run "probe with no action" 129 \
  "perfx probe: give one of PROBEDEF/-a, -d, -l or -D (see 'perfx probe -h')" probe
run "lock contention -l -t" 129 "perfx lock contention: -l and -t cannot be used together" \
  lock contention -l -t

# Usage errors: 129 from every command's parse, the stat/trace workload front included.
for cmd in report script annotate diff evlist buildid-list stat trace top record list probe; do
  "$PERFX" $cmd --bogus-option true >/dev/null 2>"$tmp/err"
  rc=$?
  check "$cmd --bogus-option: 129, named" '[ $rc -eq 129 ] && grep -q -- "--bogus-option" "$tmp/err"'
done

# The shared options take the same spellings everywhere (perf's): diff's -C is --comms and
# its --cpu has no short form; script's --dsos has no -d.
"$PERFX" diff -C nosuchcomm -q "$data" "$data" >"$tmp/out" 2>"$tmp/err"
check "diff -C is --comms" '[ $? -eq 0 ] && [ ! -s "$tmp/err" ]'
"$PERFX" script -i "$data" --dsos nosuch.so --comms nosuchcomm >"$tmp/out" 2>"$tmp/err"
check "script --dsos/--comms filter everything out" '[ $? -eq 0 ] && [ ! -s "$tmp/out" ]'
"$PERFX" report -i "$data" --stdio --no-demangle --header-only >"$tmp/out" 2>"$tmp/err"
check "report --header-only through the shared reader options" \
  '[ $? -eq 0 ] && grep -q "^# " "$tmp/out" && [ ! -s "$tmp/err" ]'
for cmd in report script annotate diff; do
  "$PERFX" $cmd --help >"$tmp/help" 2>&1
  check "$cmd --help: exit 0" '[ $? -eq 0 ] && grep -q -- "--force" "$tmp/help"'
done
exit $fail
