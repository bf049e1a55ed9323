#!/usr/bin/env bash
# Times every `perfx report --format FMT` export against the plain `perfx report` text
# report on the same ~400k-sample recording and prints the ratio (export / report CPU time).
# Both load the same perf.data, so the ratio shows what the exporter adds; it should
# be <= 1. Usage: bench/export_vs_report.sh [BUILD_DIR] [SAMPLES]
# BENCH_DATA=perf.data reuses a recording instead of making one.
set -euo pipefail
build=${1:-build}
want=${2:-400000}
perfx=$build/bin/perfx
demo=$build/bin/perfx_demo
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

if [ -n "${BENCH_DATA:-}" ]; then
  # An earlier recording (to compare two builds on the same file).
  cp "$BENCH_DATA" "$tmp/perf.data"
else
  # 400k samples: cpu-clock every 20 us (50k samples/s, under the default
  # perf_event_max_sample_rate of 100k) on two busy demo processes.
  secs=$(( (want + 99999) / 100000 + 2 ))
  echo "recording ~$want samples (${secs}s on 2 CPUs) ..."
  perf record -q -g -e cpu-clock -c 20000 -a -o "$tmp/perf.data" -- \
    sh -c "$demo 100000 & a=\$!; $demo 100000 & b=\$!; sleep $secs; kill \$a \$b" >/dev/null 2>&1 || true
fi
n=$(perf script -i "$tmp/perf.data" -F comm 2>/dev/null | wc -l)
echo "recorded $n samples ($(du -h "$tmp/perf.data" | cut -f1))"

# CPU time (task-clock of the command and its threads, best of 3), so that other load
# on the machine does not skew the ratio; wall-clock time is printed too. Each export's
# runs alternate with runs of the text report and its ratio is taken against those, so
# load that comes and goes during the bench affects both sides of a ratio alike.
one() {  # prints "cpu wall" of one run
  local s e
  s=$(date +%s.%N)
  perf stat -x, -e task-clock -o "$tmp/stat" -- "$@" >/dev/null 2>&1
  e=$(date +%s.%N)
  echo "$(awk -F, '/task-clock/ {print $1 / 1000}' "$tmp/stat") $(echo "$s $e" | awk '{print $2 - $1}')"
}
min() { echo "$1 $2" | awk '{print ($1 < $2 ? $1 : $2)}'; }
report_cmd=("$perfx" report -i "$tmp/perf.data" --stdio --no-children -o "$tmp/report.txt")
report_all=1e9
report_all_wall=1e9
status=0
lines=()
for fmt in folded html svg pprof speedscope firefox json; do
  r_best=1e9 t_best=1e9 w_best=1e9
  for _ in 1 2 3; do
    read -r c w < <(one "${report_cmd[@]}")
    r_best=$(min "$c" "$r_best")
    report_all=$(min "$c" "$report_all")
    report_all_wall=$(min "$w" "$report_all_wall")
    read -r c w < <(one "$perfx" report -i "$tmp/perf.data" --format "$fmt" -o "$tmp/out.$fmt")
    t_best=$(min "$c" "$t_best")
    w_best=$(min "$w" "$w_best")
  done
  ratio=$(echo "$t_best $r_best" | awk '{printf "%.2f", $1 / $2}')
  size=$(du -h "$tmp/out.$fmt" | cut -f1)
  lines+=("$(printf "%-24s cpu %8.3f s  wall %8.3f s  ratio %s  (%s)" "--format $fmt" "$t_best" \
    "$w_best" "$ratio" "$size")")
  if awk -v r="$ratio" 'BEGIN {exit !(r > 1.0)}'; then status=1; fi
done
printf "%-24s cpu %8.3f s  wall %8.3f s\n" "perfx report --stdio" "$report_all" "$report_all_wall"
printf "%s\n" "${lines[@]}"
[ $status -eq 0 ] && echo "every export takes no longer than perfx report" || echo "some export is slower than perfx report"
exit $status
