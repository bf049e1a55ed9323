#!/usr/bin/env bash
# Wall time of a syscall-heavy loop (the syscall_loop fixture: openat+read+close of
# /dev/zero and a failing openat per iteration) untraced, under `perfx trace`, `perf trace`
# and `strace -f -c`: median of RUNS (5) runs each, the tools alternating so load from
# elsewhere on a shared machine hits them alike, then the ratios. Target: perfx trace's
# overhead no more than perf trace's, and far below strace's. Not a test.
# CPU time (user + system of the tool and the traced loop, from /usr/bin/time) is shown
# too: on a loaded machine wall time mostly measures waiting for a CPU, while CPU time is
# what tracing costs (ptrace's stops show there first).
# Usage: bench/trace_vs_perf.sh [build-dir] [iterations]
set -euo pipefail
build=${1:-build}
iters=${2:-20000}
RUNS=${RUNS:-5}
perfx="$build/bin/perfx"
prog="$build/fixtures/syscall_loop"
[ -x "$perfx" ] || { echo "build $perfx first"; exit 1; }
[ -x "$prog" ] || { echo "build $prog first (cmake --build $build --target fixture_syscall_loop)"; exit 1; }
command -v perf >/dev/null || { echo "perf is not installed"; exit 1; }
have_strace=1
command -v strace >/dev/null || { echo "strace is not installed (scripts/setup): skipped"; have_strace=0; }

tmp=$(mktemp)
trap 'rm -f "$tmp"' EXIT
declare -A times cpus
run() {  # label command...: wall and CPU microseconds
  local label=$1 wall user sys
  shift
  /usr/bin/time -f '%e %U %S' -o "$tmp" "$@" >/dev/null 2>&1 || true
  read -r wall user sys <"$tmp"
  times[$label]+="$(awk -v w="$wall" 'BEGIN { printf "%d", w * 1e6 }') "
  cpus[$label]+="$(awk -v u="$user" -v s="$sys" 'BEGIN { printf "%d", (u + s) * 1e6 }') "
}
median() { tr ' ' '\n' | sed '/^$/d' | sort -n | awk '{ v[NR] = $1 } END { print v[int((NR + 1) / 2)] }'; }

for _ in $(seq "$RUNS"); do
  run bare "$prog" "$iters"
  run perfx "$perfx" trace -o /dev/null -- "$prog" "$iters"
  run perf perf trace -o /dev/null -- "$prog" "$iters"
  run perfx_s "$perfx" trace -s -o /dev/null -- "$prog" "$iters"
  run perf_s perf trace -s -o /dev/null -- "$prog" "$iters"
  [ $have_strace = 1 ] && run strace strace -f -c -o /dev/null -- "$prog" "$iters"
done

declare -A med cpu
for k in "${!times[@]}"; do
  med[$k]=$(echo "${times[$k]}" | median)
  cpu[$k]=$(echo "${cpus[$k]}" | median)
done
echo "syscall_loop $iters iterations ($((4 * iters)) syscalls), median of $RUNS runs:"
printf '  %-8s %12s %12s\n' "" "wall (us)" "cpu (us)"
for k in bare perfx perf perfx_s perf_s strace; do
  [ -n "${med[$k]:-}" ] && printf '  %-8s %12d %12d\n' "$k" "${med[$k]}" "${cpu[$k]}"
done
ratio() { awk -v a="$1" -v b="$2" 'BEGIN { printf "%.2f", a / b }'; }
over() { awk -v a="$1" -v b="$2" 'BEGIN { printf "%.0f", a - b }'; }
echo "wall time ratios:"
echo "  perfx trace / perf trace:       $(ratio "${med[perfx]}" "${med[perf]}") (target <= 1.0)"
echo "  perfx trace -s / perf trace -s: $(ratio "${med[perfx_s]}" "${med[perf_s]}") (target <= 1.0)"
if [ $have_strace = 1 ]; then
  echo "  perfx trace -s / strace -f -c:  $(ratio "${med[perfx_s]}" "${med[strace]}") (target << 1.0)"
  echo "  cpu: perfx trace -s / strace -f -c: $(ratio "${cpu[perfx_s]}" "${cpu[strace]}") (target << 1.0)"
  echo "overhead over the untraced loop (wall us): perfx -s $(over "${med[perfx_s]}" "${med[bare]}")," \
    "perf -s $(over "${med[perf_s]}" "${med[bare]}"), strace $(over "${med[strace]}" "${med[bare]}")"
fi
echo "  cpu: perfx trace / perf trace: $(ratio "${cpu[perfx]}" "${cpu[perf]}") (target <= 1.0)"
