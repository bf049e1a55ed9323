#!/usr/bin/env bash
# Whole-command wall time of `perfx record -F 4000 -g -- W` vs `perf record -F 4000 -g -- W`
# on the same workload W (median of 3 runs each, ratio perfx/perf printed; target <= 1.0),
# and the lost samples of both at the same settings, per task and system-wide (-a, both CPUs).
# Usage: bench/record_vs_perf.sh [build-dir] [workload-ms]
set -u
build=${1:-build}
ms=${2:-2000}
perfx=$build/bin/perfx
work=$build/fixtures/rec_hot
[ -x "$perfx" ] || { echo "no $perfx (build first)"; exit 1; }
[ -x "$work" ] || { echo "no $work (build the fixtures)"; exit 1; }
command -v perf >/dev/null || { echo "Linux perf is not installed"; exit 1; }
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

now() { date +%s.%N; }
median3() { printf '%s\n' "$@" | sort -g | sed -n 2p; }
lost_of() { perf report -i "$1" --stdio 2>/dev/null | awk '/Total Lost Samples/ {print $NF; exit}'; }
samples_of() { perf report -i "$1" --stdio 2>/dev/null | awk '/^# Samples:/ {print $3; exit}'; }

# run TOOL MODE -> sets t_TOOL_MODE (median seconds), lost, samples
bench() {
  local tool=$1 mode=$2
  shift 2
  local times=() f="$tmp/$tool.$mode.data"
  for i in 1 2 3; do
    local t0 t1
    t0=$(now)
    if [ "$tool" = perfx ]; then
      "$perfx" record -q -F 4000 -g "$@" -o "$f" -- "$work" "$ms" >/dev/null 2>&1
    else
      perf record -q -F 4000 -g "$@" -o "$f" -- "$work" "$ms" >/dev/null 2>&1
    fi
    t1=$(now)
    times+=("$(echo "$t1 - $t0" | bc -l)")
  done
  local med
  med=$(median3 "${times[@]}")
  printf '%-6s %-12s median %6.3f s  (runs: %s)  samples %s  lost %s\n' "$tool" "$mode" "$med" \
    "$(printf '%.3f ' "${times[@]}")" "$(samples_of "$f")" "$(lost_of "$f")"
  eval "t_${tool}_${mode}=$med"
}

echo "workload: $work $ms ms; -F 4000 -g"
bench perf task
bench perfx task
bench perf system -a
bench perfx system -a
printf 'ratio perfx/perf (per task):    %.3f\n' "$(echo "$t_perfx_task / $t_perf_task" | bc -l)"
printf 'ratio perfx/perf (system-wide): %.3f\n' "$(echo "$t_perfx_system / $t_perf_system" | bc -l)"
