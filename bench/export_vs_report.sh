#!/usr/bin/env bash
# Times every `perfx report --format FMT` export against the plain `perfx report` text
# report on the same ~400k-sample recording and prints the ratio (export / report CPU time).
# Both load the same perf.data, so the ratio shows what the exporter adds; it should
# be <= 1. Usage: bench/export_vs_report.sh [BUILD_DIR] [SAMPLES]
set -euo pipefail
build=${1:-build}
want=${2:-400000}
perfx=$build/bin/perfx
demo=$build/bin/perfx_demo
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

# 400k samples: cpu-clock every 20 us (50k samples/s, under the default
# perf_event_max_sample_rate of 100k) on two busy demo processes.
secs=$(( (want + 99999) / 100000 + 2 ))
echo "recording ~$want samples (${secs}s on 2 CPUs) ..."
perf record -q -g -e cpu-clock -c 20000 -a -o "$tmp/perf.data" -- \
  sh -c "$demo 100000 & a=\$!; $demo 100000 & b=\$!; sleep $secs; kill \$a \$b" >/dev/null 2>&1 || true
n=$(perf script -i "$tmp/perf.data" -F comm 2>/dev/null | wc -l)
echo "recorded $n samples ($(du -h "$tmp/perf.data" | cut -f1))"

# CPU time (task-clock of the command and its threads, best of 3), so that other load
# on the machine does not skew the ratio; wall-clock time is printed too.
measure() {
  local best_cpu="" best_wall=""
  for _ in 1 2 3; do
    local s e cpu
    s=$(date +%s.%N)
    perf stat -x, -e task-clock -o "$tmp/stat" -- "$@" >/dev/null 2>&1
    cpu=$(awk -F, '/task-clock/ {print $1 / 1000}' "$tmp/stat")
    e=$(date +%s.%N)
    best_cpu=$(echo "$cpu ${best_cpu:-1e9}" | awk '{print ($1 < $2 ? $1 : $2)}')
    best_wall=$(echo "$s $e ${best_wall:-1e9}" | awk '{d = $2 - $1; print (d < $3 ? d : $3)}')
  done
  echo "$best_cpu $best_wall"
}
read -r report report_wall < <(measure "$perfx" report -i "$tmp/perf.data" --stdio --no-children -o "$tmp/report.txt")
printf "%-24s cpu %8.3f s  wall %8.3f s\n" "perfx report --stdio" "$report" "$report_wall"
status=0
for fmt in folded html svg pprof speedscope firefox json; do
  read -r t wall < <(measure "$perfx" report -i "$tmp/perf.data" --format "$fmt" -o "$tmp/out.$fmt")
  ratio=$(echo "$t $report" | awk '{printf "%.2f", $1 / $2}')
  size=$(du -h "$tmp/out.$fmt" | cut -f1)
  printf "%-24s cpu %8.3f s  wall %8.3f s  ratio %s  (%s)\n" "--format $fmt" "$t" "$wall" "$ratio" "$size"
  if awk -v r="$ratio" 'BEGIN {exit !(r > 1.0)}'; then status=1; fi
done
[ $status -eq 0 ] && echo "every export takes no longer than perfx report" || echo "some export is slower than perfx report"
exit $status
