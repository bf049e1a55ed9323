#!/bin/bash
# perfx report vs perf report on a --call-graph dwarf recording of an inline-heavy C++
# program (tests/fixtures/inline_hot.cpp, g++ -O2 -g): both expand inline scopes into
# callchains and "(inlined)" rows by default (perf 6.1 asks addr2line, perfx reads DWARF
# once per (DSO, address)). Prints each tool's median wall time of 5 alternating runs and
# the ratio perfx/perf (issue #25 wants at most 0.3).
#   usage: bench/report_inline_vs_perf.sh [perfx binary] [milliseconds]
set -eu
here=$(cd "$(dirname "$0")/.." && pwd)
PERFX=${1:-build/bin/perfx} MS=${2:-2000} fixture=/tmp/perfx_bench_inline_hot
DATA=${BENCH_DATA:-/tmp/perfx_bench_inline.data}
g++ -O2 -g -o "$fixture" "$here/tests/fixtures/inline_hot.cpp"
if [ ! -s "$DATA" ]; then
  perf record -q -e cpu-clock -F 2000 --call-graph dwarf -o "$DATA" -- "$fixture" "$MS" \
    >/dev/null 2>&1
fi
echo "recording: $DATA ($(stat -c %s "$DATA") bytes, $(perf report -i "$DATA" --stdio -g none \
  --sort comm 2>/dev/null | sed -n 's/^# Samples: \(.*\) of event.*/\1/p') samples)"
source "$here/bench/lib.bash"
for args in "--stdio" "--stdio --no-children -g none"; do
  # shellcheck disable=SC2086
  read -r tp tx < <(median_pair perf report -i "$DATA" $args -- "$PERFX" report -i "$DATA" $args)
  printf 'report %-30s perf %8.3fs  perfx %8.3fs  ratio %.4f\n' "$args" "$tp" "$tx" \
    "$(echo "$tx / $tp" | bc -l)"
done
