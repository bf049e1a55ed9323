#!/usr/bin/env bash
# Times every `perfx report --format FMT` export against `perfx report` (the text report,
# its defaults) on the same ~400k-sample recording (bench/report_vs_perf.sh records it)
# and prints the ratios export / report. The issue's target: an export takes no longer
# than the report: not measurably slower (the sign test below) on this noisy machine.
#
# Each export's runs alternate with runs of the report (RUNS=11 each) and the medians are
# compared, so load that comes and goes on a shared machine hits both sides alike; the
# interquartile range of the run-by-run ratios shows how far apart the two really are, and
# a sign test decides: an export "takes longer" when it was the slower of its pair in more
# runs than chance explains (one-sided, 5%: 15 of 21 pairs, 9 of 11). CPU
# time (task-clock of the process and its threads) is printed too: perfx runs a reader
# and a DSO-preloader thread beside the replay, so CPU exceeds wall time.
#
# Exports with source lines (pprof, json) read DWARF: libc6-dbg's compressed sections are
# inflated once and then mapped from perfx's debug-section cache (docs/report.md). The
# medians are of warm runs; a first run with an empty cache is shown separately.
#   usage: bench/export_vs_report.sh [BUILD_DIR]      BENCH_DATA=perf.data to pick a file,
#          FORMATS="pprof json" to time some exports only
set -euo pipefail
build=${1:-build}
perfx=$build/bin/perfx
here=$(cd "$(dirname "$0")/.." && pwd)
DATA=${BENCH_DATA:-/tmp/perfx_bench_400k.data}
[ -s "$DATA" ] || bash "$here/bench/report_vs_perf.sh" "$perfx" >/dev/null
RUNS=${RUNS:-11}  # medians of fewer runs move by +-5% on a shared VM
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
echo "recording: $DATA ($("$perfx" report -i "$DATA" --stdio --no-children -g none --sort comm 2>/dev/null |
  sed -n 's/^# Samples: \(.*\) of event.*/\1/p') samples)"

one() {  # command... -> "cpu_seconds wall_seconds"
  local s e
  s=$(date +%s%N)
  perf stat -x, -e task-clock -o "$tmp/stat" -- "$@" >/dev/null 2>&1
  e=$(date +%s%N)
  echo "$(awk -F, '/task-clock/ {print $1 / 1000}' "$tmp/stat") $(((e - s) / 1000))e-6"
}
median() { printf '%s\n' "$@" | sort -g | awk '{a[NR] = $1} END {print a[int((NR + 1) / 2)]}'; }

report_cmd=("$perfx" report -i "$DATA" --stdio -o "$tmp/report.txt")
status=0
printf '%-20s %9s %9s %9s %9s %7s %7s %11s %7s  %s\n' "" "wall" "rep.wall" "cpu" "rep.cpu" "wall" \
  "cpu" "pairs IQR" "slower" "size"
for fmt in ${FORMATS:-folded html svg pprof speedscope firefox json}; do
  "$perfx" report -i "$DATA" --format "$fmt" -o "$tmp/out.$fmt" 2>/dev/null  # warm the caches
  rc=() rw=() xc=() xw=()
  for _ in $(seq "$RUNS"); do
    read -r c w < <(one "${report_cmd[@]}")
    rc+=("$c") rw+=("$w")
    read -r c w < <(one "$perfx" report -i "$DATA" --format "$fmt" -o "$tmp/out.$fmt")
    xc+=("$c") xw+=("$w")
  done
  read -r mrc mrw mxc mxw < <(echo "$(median "${rc[@]}") $(median "${rw[@]}") $(median "${xc[@]}") $(median "${xw[@]}")")
  wall_ratio=$(echo "$mxw $mrw" | awk '{printf "%.2f", $1 / $2}')
  cpu_ratio=$(echo "$mxc $mrc" | awk '{printf "%.2f", $1 / $2}')
  # The spread of the run-by-run wall ratios (each export run over the report run just
  # before it): when it straddles 1.00, the medians' difference is within this machine's
  # noise.
  pairs=$(for i in "${!xw[@]}"; do echo "${xw[$i]} ${rw[$i]}" | awk '{print $1 / $2}'; done |
    sort -g | awk '{a[NR] = $1} END {printf "%.2f-%.2f", a[int(NR / 4) + 1], a[int(3 * NR / 4) + 1]}')
  # The sign test: pairs in which the export was slower, against what a fair coin gives
  # (normal approximation of the binomial, one-sided 5%: n/2 + 1.645 * sqrt(n) / 2).
  slower=$(for i in "${!xw[@]}"; do echo "${xw[$i]} ${rw[$i]}"; done | awk '$1 > $2' | wc -l)
  printf '%-20s %8.3fs %8.3fs %8.3fs %8.3fs %7s %7s %11s %7s  %s\n' "--format $fmt" "$mxw" "$mrw" "$mxc" \
    "$mrc" "$wall_ratio" "$cpu_ratio" "$pairs" "$slower/$RUNS" "$(du -h "$tmp/out.$fmt" | cut -f1)"
  if awk -v s="$slower" -v n="$RUNS" 'BEGIN {exit !(s > n / 2 + 1.645 * sqrt(n) / 2)}'; then
    status=1
    echo "  --format $fmt is slower than the report in $slower of $RUNS pairs: more than chance"
  fi
done
# The first export on a machine (or after a new libc) inflates the debug sections.
for fmt in pprof json; do
  read -r c w < <(PERFX_CACHE_DIR="$tmp/cold-cache-$fmt" one "$perfx" report -i "$DATA" --format "$fmt" -o "$tmp/out.$fmt")
  printf '%-20s %8.3fs %9s %8.3fs   (first run: empty debug-section cache)\n' "--format $fmt" "$w" "" "$c"
done
[ $status -eq 0 ] && echo "every export takes no longer than perfx report (sign test of paired wall times)" ||
  echo "some export takes longer than perfx report (sign test of paired wall times)"
exit $status
