#!/bin/bash
# perfx report vs perf report on the same ~400k-sample callchain recording.
# Records with perf: cpu-clock -F 20000 -g while two copies of a CPU-bound fixture run for
# 15 s of wall time (one per CPU; cpu-clock -F 20000 gives ~14k samples a second per CPU here). Prints the median wall time of 5 alternating runs of each tool, the ratio, and
# the peak RSS (/usr/bin/time -v "Maximum resident set size").
#   usage: bench/report_vs_perf.sh [perfx binary] [seconds]
set -eu
PERFX=${1:-build/bin/perfx}
SECS=${2:-15}
DATA=${BENCH_DATA:-/tmp/perfx_bench_400k.data}
here=$(cd "$(dirname "$0")/.." && pwd)
fixture=/tmp/perfx_bench_fixture
cc -O1 -g -fno-omit-frame-pointer -o "$fixture" "$here/demo/demo.c"
if [ ! -s "$DATA" ]; then
  # Two copies (one per CPU) for $SECS seconds of wall time, then killed: the sample count
  # follows the clock (~20k samples/s per busy CPU), not the speed of a loaded machine.
  perf record -q -e cpu-clock -F 20000 -g -o "$DATA" -- \
    sh -c "$fixture 100000 >/dev/null & a=\$!; $fixture 100000 >/dev/null & b=\$!; sleep $SECS; kill \$a \$b; wait" 2>/dev/null || true
fi
echo "recording: $DATA ($(perf report -i "$DATA" --stdio --header-only 2>/dev/null | grep -c .) header lines, $(stat -c %s "$DATA") bytes)"
samples() { "$PERFX" report -i "$DATA" --stdio --no-children -g none --sort comm 2>/dev/null | sed -n 's/^# Samples: \(.*\) of event.*/\1/p'; }
echo "samples: $(samples)"

source "$here/bench/lib.bash"
bench() {  # label, args...
  local label=$1; shift
  local tp tx
  read -r tp tx < <(median_pair perf report -i "$DATA" "$@" -- "$PERFX" report -i "$DATA" "$@")
  printf '%-34s perf %8.3fs  perfx %8.3fs  ratio %.4f  rss perf %s KiB perfx %s KiB\n' "$label" "$tp" "$tx" \
    "$(echo "$tx / $tp" | bc -l)" "$(peak_rss perf report -i "$DATA" "$@")" \
    "$(peak_rss "$PERFX" report -i "$DATA" "$@")"
}
bench "report --stdio (children, graph)" --stdio
bench "report --no-children -g none dso,sym" --stdio --no-children -g none --sort dso,sym
bench "report --sort sym,srcline" --stdio --no-children -g none --sort sym,srcline
