#!/usr/bin/env bash
# perfx diff against perf diff on the same two recordings (made by Linux perf): every
# row perf prints has the same shared object, symbol, Baseline and Delta Abs in perfx's
# table; the differential flame graph renders in Chromium when it is installed.
set -euo pipefail
: "${PERFX:?}" "${BUILD_DIR:?}" "${SOURCE_DIR:?}"
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
demo="$BUILD_DIR/bin/perfx_demo"
perf record -q -g -e cpu-clock -F 2000 -o "$tmp/old.data" -- "$demo" 10 >/dev/null 2>&1
perf record -q -g -e cpu-clock -F 2000 -o "$tmp/new.data" -- "$demo" 20 >/dev/null 2>&1

perf diff "$tmp/old.data" "$tmp/new.data" 2>/dev/null >"$tmp/perf.txt"
"$PERFX" diff "$tmp/old.data" "$tmp/new.data" >"$tmp/perfx.txt"
cat "$tmp/perfx.txt"
grep -q "^# Baseline  Delta Abs  Shared Object" "$tmp/perfx.txt"
grep -q "^# Event 'cpu-clock'" "$tmp/perfx.txt"

# Rows keyed by "dso symbol": baseline and delta columns (empty -> "-").
rows() {
  awk '!/^#/ && NF {
    line = $0; base = substr(line, 1, 10); delta = substr(line, 11, 11); rest = substr(line, 22)
    gsub(/ /, "", base); gsub(/ /, "", delta); sub(/^ +/, "", rest); gsub(/  +/, " ", rest)
    printf "%s|%s|%s\n", rest, (base == "" ? "-" : base), (delta == "" ? "-" : delta) }' "$1" | sort
}
rows "$tmp/perf.txt" >"$tmp/perf.rows"
rows "$tmp/perfx.txt" >"$tmp/perfx.rows"
# Every row, as a set (rows with equal |delta| may come in another order).
if ! diff "$tmp/perf.rows" "$tmp/perfx.rows"; then
  echo "perfx diff rows differ from perf diff (< perf, > perfx)"; exit 1
fi
n=$(wc -l <"$tmp/perf.rows")
[ "$n" -ge 3 ] || { echo "only $n rows compared"; cat "$tmp/perf.txt"; exit 1; }
grep -q "$(basename "$demo")" "$tmp/perf.rows"
echo "ok: all $n rows (shared object, symbol, baseline, delta) match perf diff"

"$PERFX" diff "$tmp/old.data" "$tmp/new.data" --format html --output "$tmp/diff.html"
grep -q '"diff":true' "$tmp/diff.html"
if [ -x "${CHROMIUM:-/usr/bin/chromium}" ]; then
  source "$SOURCE_DIR/tests/browser/setup.sh"
  browser_setup
  node "$BROWSER_TESTS/flamegraph.test.mjs" "$tmp/diff.html" --function main
fi
echo "diff checks passed"
