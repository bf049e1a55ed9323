#!/usr/bin/env bash
# Progress while reading a perf.data: report, script, annotate, diff and the exports all
# show "NN%" on a terminal (a pty from script(1)), and none of them when stdout is a pipe.
set -u
: "${PERFX:?}" "${BUILD_DIR:?}"
command -v script >/dev/null || { echo "script(1) missing (util-linux)"; exit 77; }
source "$(dirname "$0")/common.bash"
# Enough samples for several progress steps (one per 16384 records).
"$PERFX" record -q -g -e cpu-clock -c 10000 -o "$tmp/big.data" -- "$BUILD_DIR/bin/perfx_demo" 15 >/dev/null
cd "$tmp" || exit 1
on_tty() { script -qec "$1" /dev/null | tr '\r' '\n' | grep -c '[0-9]%$'; }
for cmd in "report -i big.data --stdio" "report -i big.data --format svg -o x.svg" \
  "report -i big.data --format pprof -o x.pb.gz" "annotate -i big.data --stdio" \
  "script -i big.data" "diff big.data big.data"; do
  n=$(on_tty "'$PERFX' $cmd > /dev/null")
  check "$cmd: progress on a terminal ($n steps)" '[ "$n" -ge 2 ]'
  n=$(on_tty "'$PERFX' $cmd | cat > /dev/null")
  check "$cmd: no progress when stdout is a pipe ($n)" '[ "$n" -eq 0 ]'
done
# script prints while it reads: no progress lines among its own on the terminal.
n=$(on_tty "'$PERFX' --no-pager script -i big.data")  # the pager is pager_terminal.sh's
check "script to the terminal: no progress mixed into its lines ($n)" '[ "$n" -eq 0 ]'
exit $fail
