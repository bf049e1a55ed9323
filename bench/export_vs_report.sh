#!/usr/bin/env bash
# Times every `perfx report --format FMT` export against the plain `perfx report` text
# report on the same ~400k-sample recording and prints the ratio (export / report).
# Both load the same perf.data, so the ratio shows what the exporter adds; it should
# be <= ~1. Usage: bench/export_vs_report.sh [BUILD_DIR] [SAMPLES]
set -euo pipefail
build=${1:-build}
want=${2:-400000}
perfx=$build/bin/perfx
demo=$build/bin/perfx_demo
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

# 400k samples: cpu-clock every 20 us (50k samples/s, under the default
# perf_event_max_sample_rate of 100k) on two busy demo processes.
secs=$(( (want + 99999) / 100000 + 1 ))
echo "recording ~$want samples (${secs}s on 2 CPUs) ..."
perf record -q -g -e cpu-clock -c 20000 -a -o "$tmp/perf.data" -- \
  sh -c "$demo 100000 & $demo 100000 & sleep $secs; kill %1 %2" >/dev/null 2>&1 || true
n=$(perf script -i "$tmp/perf.data" -F comm 2>/dev/null | wc -l)
echo "recorded $n samples ($(du -h "$tmp/perf.data" | cut -f1))"

best() {  # best of 3 wall-clock seconds of a command
  local b=""
  for _ in 1 2 3; do
    local s e
    s=$(date +%s.%N)
    "$@" >/dev/null 2>&1
    e=$(date +%s.%N)
    b=$(echo "$s $e ${b:-999999}" | awk '{d = $2 - $1; print (d < $3 ? d : $3)}')
  done
  echo "$b"
}
report=$(best "$perfx" report -i "$tmp/perf.data" --stdio --no-children)
printf "%-24s %8.3f s\n" "perfx report --stdio" "$report"
status=0
for fmt in folded html svg pprof speedscope firefox json; do
  t=$(best "$perfx" report -i "$tmp/perf.data" --format "$fmt" -o "$tmp/out.$fmt")
  ratio=$(echo "$t $report" | awk '{printf "%.2f", $1 / $2}')
  size=$(du -h "$tmp/out.$fmt" | cut -f1)
  printf "%-24s %8.3f s  ratio %s  (%s)\n" "--format $fmt" "$t" "$ratio" "$size"
  if awk -v r="$ratio" 'BEGIN {exit !(r > 1.10)}'; then status=1; fi
done
[ $status -eq 0 ] && echo "every export within 10% of perfx report" || echo "some export is slower than perfx report"
exit $status
