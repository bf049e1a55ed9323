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

# folded == `perf script | stackcollapse-perf.pl --all` on the same file (the collapse is
# done here in awk, following stackcollapse-perf.pl's rules).
cat >"$tmp/stackcollapse.awk" <<'AWK'
# stackcollapse-perf.pl (--all) for `perf script -F comm,ip,sym,dso` output
function flush() {
  if (have) { key = comm; for (i = n; i >= 1; i--) key = key ";" f[i]; count[key]++ }
  have = 0; n = 0
}
/^[^ \t]/ { flush(); comm = $0; sub(/[ \t]+$/, "", comm); have = 1; next }
/^[ \t]+[0-9a-f]+ / {
  line = $0; sub(/^[ \t]+[0-9a-f]+ /, "", line)
  dso = line; sub(/^.* \(/, "", dso); sub(/\)$/, "", dso)
  sym = line; sub(/ \([^()]*\)$/, "", sym); sub(/\+0x[0-9a-f]+$/, "", sym)
  gsub(/;/, ":", sym)
  if (sym == "[unknown]" && dso != "[unknown]") { m = dso; sub(/.*\//, "", m); sym = "[" m "]" }
  if (dso == "[kernel.kallsyms]") sym = sym "_[k]"
  else if (dso ~ /\/tmp\/perf-[0-9]+\.map/) sym = sym "_[j]"
  f[++n] = sym; next
}
/^$/ { flush() }
END { flush(); for (k in count) print k " " count[k] }
AWK
perf script -i "$tmp/perf.data" -F comm,ip,sym,dso 2>/dev/null | awk -f "$tmp/stackcollapse.awk" |
  sort >"$tmp/perf.folded"
sort "$tmp/prof.folded" >"$tmp/perfx.folded"
if ! diff "$tmp/perf.folded" "$tmp/perfx.folded"; then
  echo "folded differs from perf script | stackcollapse (< perf, > perfx)"; exit 1
fi
echo "ok: folded == perf script | stackcollapse ($(wc -l <"$tmp/perfx.folded") stacks)"

browser_setup
node "$BROWSER_TESTS/check_exports.mjs" --prefix "$tmp/prof" --samples "$samples" --hot "$hot"

# json: source file/line by default, mappings with memory ranges (the demo's text mapping
# as perf script --show-mmap-events prints it) and frame addresses inside them.
demo_map=$(perf script -i "$tmp/perf.data" --show-mmap-events 2>/dev/null |
  awk '/PERF_RECORD_MMAP2/ && /r-xp .*perfx_demo$/ && !done { print $(NF-7); done = 1 }' | tr -d '[')
python3 - "$tmp/prof.json" "$hot" "$demo_map" <<'PY'
import json, sys
d = json.load(open(sys.argv[1]))
maps, frames = d["mappings"], d["frames"]
hot = [f for f in frames if f["function"] == sys.argv[2]]
assert hot and all(f["file"].endswith(".c") and f["line"] > 0 for f in hot), hot[:2]
assert all(m["limit"] > m["start"] for m in maps), maps
for f in frames:
    if f["mapping"] >= 0 and f["kind"] == "user":
        m = maps[f["mapping"]]
        assert m["start"] <= f["address"] < m["limit"], (f, m)
start, size = sys.argv[3].rstrip(")").split("(")  # "0x55d6fa901000(0x1000)"
demo = [m for m in maps if m["file"].endswith("/perfx_demo")]
assert demo and demo[0]["start"] == int(start, 16), (demo, sys.argv[3])
assert demo[0]["limit"] == int(start, 16) + int(size, 16) and demo[0]["offset"] > 0, demo
print("ok: json has source lines and mapping ranges")
PY

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

# Inline frames (--inline): a -O2 program whose hot loop is an always_inline function;
# pprof puts the inline chain in one Location, innermost first.
cat >"$tmp/inl.c" <<'C'
#include <stdio.h>
#include <stdlib.h>
static inline __attribute__((always_inline)) unsigned long mix(unsigned long x) {
  for (int i = 0; i < 64; ++i) x = x * 6364136223846793005ul + 1442695040888963407ul;
  return x;
}
__attribute__((noinline)) unsigned long work(unsigned long n) {
  unsigned long s = 0;
  for (unsigned long i = 0; i < n; ++i) s += mix(i);
  return s;
}
int main(int argc, char** argv) {
  printf("%lu\n", work(argc > 1 ? strtoul(argv[1], 0, 10) : 3000000));
  return 0;
}
C
cc -O2 -g -fno-omit-frame-pointer -o "$tmp/inl" "$tmp/inl.c"
"$PERFX" record -q -g -e cpu-clock -o "$tmp/inl.data" -- "$tmp/inl" 3000000 >/dev/null
"$PERFX" report -i "$tmp/inl.data" --inline --format pprof -o "$tmp/inl.pprof"
node "$BROWSER_TESTS/pprof_inline.mjs" "$tmp/inl.pprof" mix work
"$PERFX" report -i "$tmp/inl.data" --inline --format folded | sort -t' ' -k2 -n | tail -1 |
  grep -q ';work;mix [0-9]*$' || { echo "heaviest folded stack does not end in work;mix"; exit 1; }
echo "ok: inline frames in pprof and folded"

# A bad format is refused, naming it.
if "$PERFX" report -i "$tmp/perf.data" --format nope -o "$tmp/x" 2>"$tmp/err"; then
  echo "unknown format accepted"; exit 1
fi
grep -q "nope" "$tmp/err"
echo "export formats: all checks passed"
