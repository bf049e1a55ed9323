#!/usr/bin/env bash
# The source-line cache as report uses it (docs/reliability.md, "Caches"): made 0700/0600;
# a directory writable by others, or a cache file of another user (root only: chown),
# gives one warning and the report goes on uncached with the same lines.
set -uo pipefail
: "${PERFX:?}" "${BUILD_DIR:?}"
source "$(dirname "$0")/common.bash"

"$PERFX" record -q -e cpu-clock -F 2000 -o "$tmp/perf.data" -- "$BUILD_DIR/bin/perfx_demo" 2 \
  >/dev/null 2>&1 || { echo "perfx record failed"; exit 1; }
report() { PERFX_CACHE_DIR="$tmp/cache" "$PERFX" report -i "$tmp/perf.data" -s srcline --stdio; }

report > "$tmp/first" 2> "$tmp/err1"
check "report -s srcline works with a fresh cache" '[ -s "$tmp/first" ] && [ ! -s "$tmp/err1" ]'
check "cache directories are 0700" \
  '[ "$(stat -c %a "$tmp/cache")" = 700 ] && [ "$(stat -c %a "$tmp/cache/srclines")" = 700 ]'
files=$(find "$tmp/cache/srclines" -type f | wc -l)
check "cache files are 0600 (found $files)" \
  '[ "$files" -gt 0 ] && [ -z "$(find "$tmp/cache" -type f ! -perm 600)" ]'
report > "$tmp/again" 2>/dev/null
check "a report from the cache prints the same" 'cmp -s "$tmp/first" "$tmp/again"'

chmod 777 "$tmp/cache/srclines"
report > "$tmp/open" 2> "$tmp/err"
check "a directory writable by others: one warning" \
  '[ "$(grep -c "writable by other users" "$tmp/err")" -eq 1 ]'
check "... and the same report, uncached" 'cmp -s "$tmp/first" "$tmp/open"'
chmod 700 "$tmp/cache/srclines"

if [[ $(id -u) -eq 0 ]]; then
  find "$tmp/cache/srclines" -type f -exec chown 65534:65534 {} +
  report > "$tmp/foreign" 2> "$tmp/err"
  check "a cache file of another user: a warning naming its owner" \
    'grep -q "belongs to uid 65534" "$tmp/err"'
  check "... and the same report, uncached" 'cmp -s "$tmp/first" "$tmp/foreign"'
  check "... replaced by a file of ours" \
    '[ -z "$(find "$tmp/cache" -type f ! -user root)" ]'
else
  echo "skip: the foreign-owner case needs root (chown)"
fi
exit $fail
