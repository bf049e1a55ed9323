#!/usr/bin/env bash
# Runs every libFuzzer target of a fuzz build for a bounded time (docs/reliability.md).
#
#   fuzz/run_fuzzers.sh BUILD_DIR [SECONDS] [TARGET...]
#
# BUILD_DIR is a PERFX_FUZZ=ON build (the `fuzz` preset: build-fuzz). Each target
# fuzz_<name> starts from fuzz/corpus/<name>/ and fuzz/regressions/<name>/ (read-only:
# new units go to a scratch corpus) with fuzz/<name>.dict when present. A finding (crash,
# sanitizer report, leak, timeout > 10 s, OOM > 2 GB) fails the run; the input is kept in
# BUILD_DIR/fuzz-artifacts/ -- minimise it and copy it to fuzz/regressions/<name>/ with
# the fix. Prints executions per target.
set -uo pipefail
build="${1:?usage: run_fuzzers.sh BUILD_DIR [SECONDS] [TARGET...]}"
secs="${2:-25}"
shift $(( $# >= 2 ? 2 : 1 ))
src="$(cd "$(dirname "$0")" && pwd)"
artifacts="$build/fuzz-artifacts"
mkdir -p "$artifacts"
scratch=$(mktemp -d /tmp/perfx-fuzz.XXXXXX)
trap 'rm -rf "$scratch"' EXIT

targets=("$@")
if [[ ${#targets[@]} -eq 0 ]]; then
  for exe in "$build"/fuzz/fuzz_*; do
    name="${exe##*/fuzz_}"
    [[ -x "$exe" && "$name" != replay_* ]] && targets+=("$name")
  done
fi
if [[ ${#targets[@]} -eq 0 ]]; then
  echo "run_fuzzers: no fuzz_* targets in $build/fuzz (build target perfx_fuzzers)" >&2
  exit 1
fi

failed=()
export ASAN_OPTIONS="${ASAN_OPTIONS:-detect_leaks=1}"
export UBSAN_OPTIONS="${UBSAN_OPTIONS:-print_stacktrace=1:halt_on_error=1}"
# Leaks inside third-party libraries (elfutils) only; see the file.
export LSAN_OPTIONS="${LSAN_OPTIONS:-suppressions=$src/lsan.supp}"
for name in "${targets[@]}"; do
  exe="$build/fuzz/fuzz_$name"
  mkdir -p "$scratch/$name"
  args=(-max_total_time="$secs" -timeout=10 -rss_limit_mb=2048 -malloc_limit_mb=2048
        -print_final_stats=1 -close_fd_mask=1 -artifact_prefix="$artifacts/$name-")
  [[ -f "$src/$name.dict" ]] && args+=(-dict="$src/$name.dict")
  dirs=("$scratch/$name")
  for d in "$src/corpus/$name" "$src/regressions/$name"; do [[ -d "$d" ]] && dirs+=("$d"); done
  log="$artifacts/$name.log"
  start=$(date +%s)
  nice -n "${FUZZ_NICE:-0}" "$exe" "${args[@]}" "${dirs[@]}" >"$log" 2>&1
  rc=$?
  runs=$(sed -n 's/^stat::number_of_executed_units: *//p' "$log" | tail -1)
  cov=$(grep -oE 'cov: [0-9]+' "$log" | tail -1)
  printf 'fuzz %-18s %4ss  %10s execs  %-10s  %s\n' "$name" "$(( $(date +%s) - start ))" \
    "${runs:-?}" "${cov:-}" "$([[ $rc -eq 0 ]] && echo ok || echo "FINDING (exit $rc)")"
  if [[ $rc -ne 0 ]]; then
    failed+=("$name")
    grep -E 'ERROR:|runtime error|SUMMARY|Test unit written|deadly signal|timeout' "$log" | head -20
    echo "  full log: $log"
  fi
done
if [[ ${#failed[@]} -gt 0 ]]; then
  echo "run_fuzzers: findings in: ${failed[*]} (inputs in $artifacts)" >&2
  exit 1
fi
