#!/usr/bin/env bash
# Opens perfx's HTML flame graph of a real demo recording in headless Chromium
# (playwright-core, /usr/bin/chromium): it renders, search highlights the hottest
# function and shows its matched percentage (checked against the folded export), a
# click zooms, and the page makes no network request. Then loads the speedscope export
# into the real speedscope app. Skips (77) only when chromium is absent.
set -euo pipefail
: "${PERFX:?}" "${BUILD_DIR:?}" "${SOURCE_DIR:?}"
source "$(dirname "$0")/common.bash"
source "$SOURCE_DIR/tests/browser/setup.sh"
chromium_setup

"$PERFX" record -q -g -e cpu-clock -F 2000 -o "$tmp/perf.data" -- "$BUILD_DIR/bin/perfx_demo" 20 >/dev/null
"$PERFX" report -i "$tmp/perf.data" --format html -o "$tmp/flame.html"
"$PERFX" report -i "$tmp/perf.data" --format folded -o "$tmp/prof.folded"
"$PERFX" report -i "$tmp/perf.data" --format speedscope -o "$tmp/prof.speedscope.json"

# The hottest leaf function and the share of samples with it anywhere on the stack,
# computed from the folded export (independent of the page's JavaScript).
read -r hot percent < <(awk '
  { n = $NF; total += n; sub(/ [0-9]+$/, ""); k = split($0, f, ";"); self[f[k]] += n
    delete seen; for (i = 1; i <= k; i++) if (!(f[i] in seen)) { seen[f[i]] = 1; on[f[i]] += n } }
  END { for (s in self) if (self[s] > best) { best = self[s]; hot = s }
        printf "%s %.4f\n", hot, 100 * on[hot] / total }' "$tmp/prof.folded")
echo "hottest: $hot ($percent% of samples have it on the stack)"
node "$BROWSER_TESTS/flamegraph.test.mjs" "$tmp/flame.html" --function "$hot" --percent "$percent"

comm=$(head -1 "$tmp/prof.folded" | cut -d';' -f1)
node "$BROWSER_TESTS/speedscope.test.mjs" "$tmp/prof.speedscope.json" --profile "$comm (pid"
echo "browser checks passed"
