#!/bin/bash
# perfx script vs perf script on the same ~400k-sample callchain recording (see
# bench/report_vs_perf.sh, which records it). Median of 5 alternating wall times, ratio, peak RSS.
#   usage: bench/script_vs_perf.sh [perfx binary]
set -eu
PERFX=${1:-build/bin/perfx}
DATA=${BENCH_DATA:-/tmp/perfx_bench_400k.data}
here=$(cd "$(dirname "$0")/.." && pwd)
[ -s "$DATA" ] || bash "$here/bench/report_vs_perf.sh" "$PERFX" >/dev/null
source "$here/bench/lib.bash"
read -r tp tx < <(median_pair perf script -i "$DATA" -- "$PERFX" script -i "$DATA")
printf 'script: perf %.3fs  perfx %.3fs  ratio %.4f  rss perf %s KiB perfx %s KiB\n' "$tp" "$tx" \
  "$(echo "$tx / $tp" | bc -l)" "$(peak_rss perf script -i "$DATA")" "$(peak_rss "$PERFX" script -i "$DATA")"
