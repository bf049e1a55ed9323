#!/bin/bash
# perfx script vs perf script on the same ~400k-sample callchain recording (see
# bench/report_vs_perf.sh, which records it). Median of 3 wall times, ratio, peak RSS.
#   usage: bench/script_vs_perf.sh [perfx binary]
set -eu
PERFX=${1:-build/bin/perfx}
DATA=${BENCH_DATA:-/tmp/perfx_bench_400k.data}
here=$(cd "$(dirname "$0")/.." && pwd)
[ -s "$DATA" ] || bash "$here/bench/report_vs_perf.sh" "$PERFX" >/dev/null
median3() {
  local t=()
  for _ in 1 2 3; do
    local s e
    s=$(date +%s.%N); "$@" >/dev/null 2>&1; e=$(date +%s.%N)
    t+=("$(echo "$e - $s" | bc -l)")
  done
  printf '%s\n' "${t[@]}" | sort -g | sed -n 2p
}
peak_rss() { /usr/bin/time -v "$@" 2>&1 >/dev/null | sed -n 's/.*Maximum resident set size (kbytes): //p'; }
tp=$(median3 perf script -i "$DATA")
tx=$(median3 "$PERFX" script -i "$DATA")
printf 'script: perf %.3fs  perfx %.3fs  ratio %.4f  rss perf %s KiB perfx %s KiB\n' "$tp" "$tx" \
  "$(echo "$tx / $tp" | bc -l)" "$(peak_rss perf script -i "$DATA")" "$(peak_rss "$PERFX" script -i "$DATA")"
