#!/bin/bash
# perfx annotate vs perf annotate --stdio on the same ~400k-sample recording
# (bench/report_vs_perf.sh records it): every symbol with samples annotated. perf runs
# objdump once per symbol; perfx disassembles in process with libopcodes. Prints the
# median wall time of RUNS alternating runs of each, the ratio, and how many symbols
# each annotated.
#   usage: bench/annotate_vs_perf.sh [perfx binary]
set -eu
PERFX=${1:-build/bin/perfx}
DATA=${BENCH_DATA:-/tmp/perfx_bench_400k.data}
here=$(cd "$(dirname "$0")/.." && pwd)
[ -s "$DATA" ] || bash "$here/bench/report_vs_perf.sh" "$PERFX" >/dev/null
source "$here/bench/lib.bash"
symbols() { grep -c 'Source code & Disassembly of'; }
echo "recording: $DATA"
echo "symbols annotated: perf $(perf annotate -i "$DATA" --stdio 2>/dev/null | symbols)," \
  "perfx $("$PERFX" annotate -i "$DATA" 2>/dev/null | symbols)"
read -r tp tx < <(median_pair perf annotate -i "$DATA" --stdio -- "$PERFX" annotate -i "$DATA")
printf 'annotate (every symbol)   perf %8.3fs  perfx %8.3fs  ratio %.4f\n' "$tp" "$tx" \
  "$(echo "$tx / $tp" | bc -l)"
hot=$("$PERFX" annotate -i "$DATA" 2>/dev/null | sed -n '4s/.*<\(.*\)>:/\1/p')
read -r tp tx < <(median_pair perf annotate -i "$DATA" --stdio "$hot" -- "$PERFX" annotate -i "$DATA" "$hot")
printf 'annotate %-16s perf %8.3fs  perfx %8.3fs  ratio %.4f\n' "$hot" "$tp" "$tx" \
  "$(echo "$tx / $tp" | bc -l)"
