#!/usr/bin/env bash
# Damaged perf.data inputs (docs/reliability.md): hundreds of variants of valid files
# (recorded here by Linux perf and, when it exists, by `perfx record`), each fed to
# `perfx report --stdio`, `perfx script`, `perfx annotate`, `perfx evlist -v` and
# `perfx buildid-list` with a 10 s limit. Asserts, for every run:
#   - no crash: not killed by a signal, no AddressSanitizer/UBSan/LeakSanitizer report;
#   - no hang: done within 10 s;
#   - a non-zero exit prints a reason on stderr.
# Env: PERFX, BUILD_DIR, SOURCE_DIR (set by CTest). RELIABILITY_VARIANTS = variants per
# input file (default 60). RELIABILITY_TOOL=perf runs the same variants through
# /usr/bin/perf instead and only prints the counts (a survey, never a failure).
# Exit 77 (skip) when perfx has no report/script command yet.
set -uo pipefail

: "${PERFX:?}" "${BUILD_DIR:?}" "${SOURCE_DIR:?}"
DAMAGE="$BUILD_DIR/fuzz/perfx_damage"
LIMITED="$BUILD_DIR/fuzz/perfx_run_limited"
VARIANTS="${RELIABILITY_VARIANTS:-60}"
TOOL="${RELIABILITY_TOOL:-perfx}"
LIMIT=10

commands=("report --stdio" "script" "annotate" "evlist -v" "buildid-list")
if [[ "$TOOL" == perfx ]]; then
  if ! "$PERFX" report --help >/dev/null 2>&1; then
    echo "SKIP: 'perfx report' is not available yet"
    exit 77
  fi
  if ! "$PERFX" script --help >/dev/null 2>&1; then
    echo "note: 'perfx script' is not available yet: only report is exercised"
    commands=("report --stdio")
  fi
fi
for tool in "$DAMAGE" "$LIMITED"; do
  [[ -x "$tool" ]] || { echo "FAIL: $tool not built"; exit 1; }
done

work=$(mktemp -d /tmp/perfx-damaged.XXXXXX)
trap 'rm -rf "$work"' EXIT

# --- valid inputs -------------------------------------------------------------------
inputs=()
workload=(sh -c 'i=0; while [ $i -lt 30000 ]; do i=$((i+1)); done')
if command -v perf >/dev/null 2>&1 &&
   perf record -q -e cpu-clock -F 4000 -g -o "$work/perf-g.data" -- "${workload[@]}" \
     >/dev/null 2>&1; then
  inputs+=("$work/perf-g.data")
fi
if command -v perf >/dev/null 2>&1 &&
   perf record -q -e cpu-clock,page-faults -c 200000 -d -o "$work/perf-two.data" -- \
     "${workload[@]}" >/dev/null 2>&1; then
  inputs+=("$work/perf-two.data")
fi
# Kept small (a slow sanitizer build must still read each variant well within 10 s).
if "$PERFX" record --help >/dev/null 2>&1 &&
   "$PERFX" record -e cpu-clock -F 1000 -g -o "$work/perfx.data" -- "${workload[@]}" \
     >/dev/null 2>&1; then
  if [[ $(stat -c %s "$work/perfx.data") -lt 1000000 ]]; then inputs+=("$work/perfx.data")
  else echo "note: perfx.data is $(stat -c %s "$work/perfx.data") bytes; not used"; fi
fi
for f in "$SOURCE_DIR"/tests/data/*.data; do
  [[ -f "$f" && $(stat -c %s "$f") -lt 1000000 ]] || continue
  cp "$f" "$work/" && inputs+=("$work/$(basename "$f")")
  [[ ${#inputs[@]} -ge 4 ]] && break
done
if [[ ${#inputs[@]} -eq 0 ]]; then
  echo "FAIL: no valid perf.data to damage (perf record failed and no tests/data/*.data)"
  exit 1
fi

# --- variants ---------------------------------------------------------------------
n=0
for f in "${inputs[@]}"; do
  d="$work/v-$(basename "$f" .data)"
  mkdir -p "$d"
  if ! "$DAMAGE" "$f" "$d" "$VARIANTS" > "$d.list"; then
    echo "note: could not damage $f (not a file-mode little-endian perf.data)"
    continue
  fi
  n=$((n + $(wc -l < "$d.list")))
done
echo "inputs: ${inputs[*]##*/}; variants: $n"

# --- run (RELIABILITY_JOBS workers, default 2) ---------------------------------------
report_fail() { echo "  $1: $2"; [[ -s "$3" ]] && sed -n '1,8s/^/      /p' "$3"; }
export ASAN_OPTIONS="${ASAN_OPTIONS:-detect_leaks=1:abort_on_error=0}"
jobs="${RELIABILITY_JOBS:-2}"
cat "$work"/v-*.list > "$work/all.list"
# worker K: runs every jobs-th variant from K; prints its findings, writes its counts.
worker() {
  local k=$1 crashes=0 hangs=0 silent=0 ok=0 refused=0 runs=0 n=0 v cmd rc name
  local err="$work/stderr.$k"
  while read -r v; do
    n=$((n + 1))
    [[ $(( (n - 1) % jobs )) -eq $k ]] || continue
    for cmd in "${commands[@]}"; do
      runs=$((runs + 1))
      if [[ "$TOOL" == perf ]]; then
        # shellcheck disable=SC2086
        "$LIMITED" "$LIMIT" perf $cmd -f -i "$v" >/dev/null 2>"$err" </dev/null
      else
        # shellcheck disable=SC2086
        "$LIMITED" "$LIMIT" "$PERFX" $cmd -i "$v" >/dev/null 2>"$err" </dev/null
      fi
      rc=$?
      name="${cmd%% *} ${v##*/}"
      if [[ $rc -eq 251 ]]; then
        hangs=$((hangs + 1)); report_fail HANG "$name (killed after ${LIMIT}s)" "$err"
      elif [[ $rc -eq 250 ]] || grep -qE 'AddressSanitizer|LeakSanitizer|runtime error:' "$err"; then
        crashes=$((crashes + 1)); report_fail CRASH "$name (exit $rc)" "$err"
      elif [[ $rc -ne 0 ]] && ! grep -q '[[:alnum:]]' "$err"; then
        silent=$((silent + 1)); report_fail SILENT "$name (exit $rc, empty stderr)" "$err"
      elif [[ $rc -ne 0 ]]; then
        refused=$((refused + 1))
      else
        ok=$((ok + 1))
      fi
    done
  done < "$work/all.list"
  echo "$runs $ok $refused $crashes $hangs $silent" > "$work/counts.$k"
}
for ((k = 0; k < jobs; k++)); do worker "$k" & done
wait
crashes=0 hangs=0 silent=0 ok=0 refused=0 runs=0
for ((k = 0; k < jobs; k++)); do
  read -r a b c d e f < "$work/counts.$k"
  runs=$((runs + a)) ok=$((ok + b)) refused=$((refused + c))
  crashes=$((crashes + d)) hangs=$((hangs + e)) silent=$((silent + f))
done

echo "tool=$TOOL runs=$runs ok=$ok refused-with-reason=$refused crashes=$crashes hangs=$hangs" \
     "silent-failures=$silent"
[[ "$TOOL" == perf ]] && exit 0
[[ $runs -gt 0 && $crashes -eq 0 && $hangs -eq 0 && $silent -eq 0 ]]
