#!/usr/bin/env bash
# Wall time of `perfx stat -- true` vs `perf stat -- true` (median of many runs, with
# hyperfine when installed) and their ratio; the target is a ratio <= 1.0.
# Usage: bench/stat_vs_perf.sh [build-dir] [runs]
set -euo pipefail
build=${1:-build}
runs=${2:-30}
perfx="$build/bin/perfx"
[ -x "$perfx" ] || { echo "build $perfx first"; exit 1; }
command -v perf >/dev/null || { echo "perf is not installed"; exit 1; }

if command -v hyperfine >/dev/null; then
  json=$(mktemp)
  trap 'rm -f "$json"' EXIT
  hyperfine -N -w 3 -r "$runs" --export-json "$json" \
    "$perfx stat -- true" "perf stat -- true" >/dev/null 2>&1
  python3 - "$json" <<'PY'
import json, sys
r = json.load(open(sys.argv[1]))["results"]
a, b = r[0]["median"], r[1]["median"]
print(f"perfx stat -- true: median {a*1e3:.2f} ms")
print(f"perf  stat -- true: median {b*1e3:.2f} ms")
print(f"ratio perfx/perf: {a/b:.2f} (target <= 1.0)")
PY
else
  median() { sort -n | awk '{ v[NR] = $1 } END { print v[int((NR + 1) / 2)] }'; }
  time_cmd() {
    for _ in $(seq "$runs"); do
      s=$(date +%s%N); "$@" >/dev/null 2>&1; e=$(date +%s%N); echo $(( (e - s) / 1000 ))
    done | median
  }
  a=$(time_cmd "$perfx" stat -- true)
  b=$(time_cmd perf stat -- true)
  echo "perfx stat -- true: median ${a} us"
  echo "perf  stat -- true: median ${b} us"
  awk -v a="$a" -v b="$b" 'BEGIN { printf "ratio perfx/perf: %.2f (target <= 1.0)\n", a / b }'
fi
