#!/usr/bin/env bash
# Golden test of perfx stat's text, CSV and JSON layouts (with and without -r).
# Stable events only: `dummy` (always 0) and `cycles` (<not supported> without a PMU);
# run times and elapsed seconds are normalised with sed. When Linux perf is installed
# the same normalised output of `perf stat` must match too (layout parity).
# Regenerate: PERFX_REGEN=1 PERFX=build/bin/perfx bash tests/golden/stat_layouts.sh
set -u
PERFX=${PERFX:-build/bin/perfx}
SOURCE_DIR=${SOURCE_DIR:-$(cd "$(dirname "$0")/../.." && pwd)}
dir="$SOURCE_DIR/tests/golden/stat_layouts"
[ -e /sys/bus/event_source/devices/cpu ] && { echo "hardware PMU present: cycles would count"; exit 77; }
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

normalise() {
  sed -E -e 's/^ +[0-9.]+( \+- [0-9.]+)? seconds (time elapsed|user|sys)/ N seconds \2/' \
    -e 's/  \( \+- *[0-9.]+% \)$//' \
    -e 's/^([^,]*,[^,]*,[^,]*,)([0-9.]+%,)?[0-9]+,/\1\2N,/' \
    -e 's/"event-runtime" : [0-9]+/"event-runtime" : N/'
}

cases=("text::" "csv:-x,:" "json:-j:" "text_r2::-r 2" "csv_r2:-x,:-r 2" "json_r2:-j:-r 2")
fail=0
for c in "${cases[@]}"; do
  name=${c%%:*}
  rest=${c#*:}
  layout=${rest%%:*}
  runs=${rest#*:}
  # shellcheck disable=SC2086
  "$PERFX" stat $layout $runs -e dummy,cycles -- true 2>&1 | normalise >"$tmp/$name.txt"
  if [ "${PERFX_REGEN:-0}" = 1 ]; then
    cp "$tmp/$name.txt" "$dir/$name.txt"
    echo "regenerated $name"
    continue
  fi
  if ! diff -u "$dir/$name.txt" "$tmp/$name.txt"; then
    echo "FAIL: $name differs from golden"
    fail=1
  fi
  if command -v perf >/dev/null; then
    # shellcheck disable=SC2086
    # perf 6.1 prints "(null)" for a counter without a metric (a NULL unit string);
    # perfx prints "" there (docs/stat-output.md).
    perf stat $layout $runs -e dummy,cycles -- true 2>&1 | normalise |
      sed -e 's/"metric-unit" : "(null)"/"metric-unit" : ""/' >"$tmp/perf_$name.txt"
    if ! diff -u "$tmp/perf_$name.txt" "$tmp/$name.txt"; then
      echo "FAIL: $name differs from perf stat's layout"
      fail=1
    fi
  fi
done
[ $fail -eq 0 ] && echo "PASS"
exit $fail
