#!/usr/bin/env bash
# `make demo`'s program says where it spends its time (demo/demo.c): ~60% hot_loop (via
# compute), ~30% checksum, ~10% slow_path, each called from main. A perfx recording of it
# must say the same, with complete stacks (a leaf without a frame pointer loses its caller).
set -u
: "${PERFX:?}" "${BUILD_DIR:?}"
source "$(dirname "$0")/common.bash"
demo=$BUILD_DIR/bin/perfx_demo
"$PERFX" record -q -g -e cpu-clock -F 4000 -o "$tmp/perf.data" -- "$demo" 30 >/dev/null ||
  { echo "FAIL: record"; exit 1; }
"$PERFX" report -i "$tmp/perf.data" --format folded -o "$tmp/demo.folded" ||
  { echo "FAIL: folded export"; exit 1; }
# Per leaf: its share of all samples, and the share of its samples whose stack is complete.
shares=$(awk '
  { n = $NF; total += n; sub(/ [0-9]+$/, ""); k = split($0, f, ";"); leaf = f[k]
    self[leaf] += n
    if (leaf == "hot_loop" && f[k-1] == "compute" && f[k-2] == "main") full[leaf] += n
    if ((leaf == "checksum" || leaf == "slow_path") && f[k-1] == "main") full[leaf] += n }
  END { for (l in self) if (l == "hot_loop" || l == "checksum" || l == "slow_path")
          printf "%s %.1f %.1f\n", l, 100 * self[l] / total, 100 * full[l] / self[l] }
' "$tmp/demo.folded")
echo "$shares"
share() { echo "$shares" | awk -v l="$1" '$1 == l { print $2 }'; }
complete() { echo "$shares" | awk -v l="$1" '$1 == l { print $3 }'; }
within() { awk -v v="${1:-0}" -v lo="$2" -v hi="$3" 'BEGIN { exit !(v >= lo && v <= hi) }'; }
check "hot_loop ~60% ($(share hot_loop))" 'within "$(share hot_loop)" 50 70'
check "checksum ~30% ($(share checksum))" 'within "$(share checksum)" 20 40'
check "slow_path ~10% ($(share slow_path))" 'within "$(share slow_path)" 5 15'
for leaf in hot_loop checksum slow_path; do
  check "$leaf stacks complete (main, compute) ($(complete $leaf)%)" 'within "$(complete $leaf)" 98 100'
done
exit $fail
