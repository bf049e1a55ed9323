#!/usr/bin/env bash
# What a user sees first when opening a flame graph: a recording with one garbage
# 128-frame stack (tests/fixtures/deep_garbage.c) used to give an HTML page and an SVG as
# tall as that stack, the graph below an empty first screen. Checked in headless
# Chromium at 1400x900 (tests/browser/first_screen.test.mjs), with the SVG's click to
# zoom and search. Skips (77) only when chromium is absent.
set -euo pipefail
: "${PERFX:?}" "${BUILD_DIR:?}" "${SOURCE_DIR:?}"
source "$(dirname "$0")/common.bash"
source "$SOURCE_DIR/tests/browser/setup.sh"
chromium_setup

# The garbage stack must be there (a sample must land in the short spin): try again if not.
for attempt in 1 2 3; do
  "$PERFX" record -q -g -e cpu-clock -c 100000 -o "$tmp/perf.data" -- \
    "$BUILD_DIR/fixtures/deep_garbage" 1500 >/dev/null
  "$PERFX" report -i "$tmp/perf.data" --format folded -o "$tmp/prof.folded"
  deepest=$(awk '{ sub(/ [0-9]+$/, ""); n = split($0, f, ";"); if (n > d) d = n } END { print d + 0 }' \
    "$tmp/prof.folded")
  [ "$deepest" -ge 100 ] && break
done
echo "deepest stack: $deepest frames"
[ "$deepest" -ge 100 ] || { echo "FAIL: no garbage stack was sampled in 3 recordings"; exit 1; }
# ... and too thin to draw at 1400 pixels.
read -r deep_samples total < <(awk '{ n = $NF; t += n; sub(/ [0-9]+$/, ""); if (split($0, f, ";") >= 100) d += n }
  END { print d + 0, t }' "$tmp/prof.folded")
echo "garbage stacks: $deep_samples of $total samples"
"$PERFX" report -i "$tmp/perf.data" --format html -o "$tmp/flame.html"
"$PERFX" report -i "$tmp/perf.data" --format svg -o "$tmp/flame.svg"

fn=paint_pixels
percent=$(awk -v fn="$fn" '{ n = $NF; t += n; sub(/ [0-9]+$/, ""); k = split($0, f, ";")
    for (i = 1; i <= k; i++) if (f[i] == fn) { m += n; break } }
  END { printf "%.4f\n", 100 * m / t }' "$tmp/prof.folded")
node "$BROWSER_TESTS/first_screen.test.mjs" "$tmp/flame.html" "$tmp/flame.svg" \
  --function "$fn" --percent "$percent"
echo "first-screen checks passed"
