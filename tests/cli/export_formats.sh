#!/usr/bin/env bash
# perfx report --format FMT on a real recording of the demo program; every export is
# read back by an independent reader (tests/browser/check_exports.mjs: pprof-format,
# JSON parsers) and checked against Linux perf's view of the same perf.data: the sample
# count, and the hottest function as the heaviest folded stack and pprof leaf.
set -euo pipefail
: "${PERFX:?}" "${BUILD_DIR:?}" "${SOURCE_DIR:?}"
source "$SOURCE_DIR/tests/browser/setup.sh"
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

"$PERFX" record -q -g -e cpu-clock -F 2000 -o "$tmp/perf.data" -- "$BUILD_DIR/bin/perfx_demo" 20 >/dev/null
# Reference: perf's sample count and self-hottest symbol.
samples=$(perf script -i "$tmp/perf.data" -F comm 2>/dev/null | wc -l)
hot=$(perf report -i "$tmp/perf.data" --stdio --no-children --sort sym 2>/dev/null |
  awk '/^ +[0-9.]+%/ {print $NF; exit}')
echo "perf: $samples samples, hottest symbol $hot"
[ "$samples" -gt 100 ] || { echo "too few samples ($samples)"; exit 1; }

for f in folded pprof json; do "$PERFX" report -i "$tmp/perf.data" --format $f -o "$tmp/prof.$f"; done
"$PERFX" report -i "$tmp/perf.data" --format speedscope -o "$tmp/prof.speedscope.json"
"$PERFX" report -i "$tmp/perf.data" --format firefox -o "$tmp/prof.firefox.json"
"$PERFX" report -i "$tmp/perf.data" --format svg -o "$tmp/prof.svg"
# folded also goes to stdout and is identical.
"$PERFX" report -i "$tmp/perf.data" --format folded | cmp - "$tmp/prof.folded"

browser_setup
node "$BROWSER_TESTS/check_exports.mjs" --prefix "$tmp/prof" --samples "$samples" --hot "$hot"

# svg: well-formed XML with one <title> per drawn frame, the hot function among them.
python3 - "$tmp/prof.svg" "$hot" <<'PY'
import sys, xml.etree.ElementTree as ET
root = ET.parse(sys.argv[1]).getroot()
ns = {"s": "http://www.w3.org/2000/svg"}
titles = [t.text for t in root.iter("{http://www.w3.org/2000/svg}title")]
assert len(titles) > 5, titles
assert any(t.startswith(sys.argv[2] + " (") for t in titles), sys.argv[2]
assert titles[0].startswith("all ("), titles[0]
print("ok: svg parses,", len(titles), "frames")
PY

# A bad format is refused, naming it.
if "$PERFX" report -i "$tmp/perf.data" --format nope -o "$tmp/x" 2>"$tmp/err"; then
  echo "unknown format accepted"; exit 1
fi
grep -q "nope" "$tmp/err"
echo "export formats: all checks passed"
