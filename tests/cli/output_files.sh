#!/usr/bin/env bash
# The -o FILE of report, script and diff (tools/perfx/output_file.hpp): an existing file
# is replaced (a temporary renamed over it), so it must end up byte-identical to a fresh
# one, shorter or longer, with no temporary left; a bad input leaves it untouched; a write
# error (a full disk: /dev/full) and an unwritable path fail with the file's name and the
# reason; /dev/null and stdout ("-") work; a symlink at FILE is refused, not followed.
set -uo pipefail
: "${PERFX:?}" "${BUILD_DIR:?}"
source "$(dirname "$0")/common.bash"

"$PERFX" record -q -g -e cpu-clock -F 2000 -o "$tmp/perf.data" -- "$BUILD_DIR/bin/perfx_demo" 5 \
  >/dev/null || { echo "perfx record failed"; exit 1; }

for args in "report --stdio" "report --format json" "report --format folded" "script"; do
  cmd=(${args})
  "$PERFX" "${cmd[@]}" -i "$tmp/perf.data" -o "$tmp/fresh" 2>/dev/null
  check "$args -o: fresh output is not empty" '[ -s "$tmp/fresh" ]'
  # A longer file (its tail must go) and a shorter one (it must grow).
  head -c $(($(stat -c %s "$tmp/fresh") * 3)) /dev/urandom > "$tmp/over"
  "$PERFX" "${cmd[@]}" -i "$tmp/perf.data" -o "$tmp/over" 2>/dev/null
  check "$args -o over a longer file = a fresh file" 'cmp -s "$tmp/fresh" "$tmp/over"'
  echo x > "$tmp/over"
  "$PERFX" "${cmd[@]}" -i "$tmp/perf.data" -o "$tmp/over" 2>/dev/null
  check "$args -o over a shorter file = a fresh file" 'cmp -s "$tmp/fresh" "$tmp/over"'
  "$PERFX" "${cmd[@]}" -i "$tmp/perf.data" -o - 2>/dev/null > "$tmp/stdout"
  check "$args -o - writes stdout" 'cmp -s "$tmp/fresh" "$tmp/stdout"'
done

"$PERFX" diff "$tmp/perf.data" "$tmp/perf.data" --output "$tmp/diff.fresh" 2>/dev/null
head -c 100000 /dev/urandom > "$tmp/diff.over"
"$PERFX" diff "$tmp/perf.data" "$tmp/perf.data" --output "$tmp/diff.over" 2>/dev/null
check "diff -o over a longer file = a fresh file" \
  '[ -s "$tmp/diff.fresh" ] && cmp -s "$tmp/diff.fresh" "$tmp/diff.over"'

# A bad input: the existing output is left as it was.
echo "keep me" > "$tmp/kept"
head -c 100 "$tmp/perf.data" > "$tmp/short.data"
"$PERFX" report -i "$tmp/short.data" --format json -o "$tmp/kept" 2>/dev/null
check "a bad input leaves the output file untouched" '[ "$(cat "$tmp/kept")" = "keep me" ]'

# Write errors name the file and the reason, and fail the command.
if "$PERFX" report -i "$tmp/perf.data" --format json -o /dev/full 2>"$tmp/err"; then
  echo "FAIL: writing to /dev/full succeeded"; fail=1
else
  check "/dev/full: error names the file and the reason" \
    'grep -q "/dev/full" "$tmp/err" && grep -qi "no space" "$tmp/err"'
fi
if "$PERFX" script -i "$tmp/perf.data" -o /dev/full 2>"$tmp/err"; then
  echo "FAIL: script to /dev/full succeeded"; fail=1
else
  check "script to /dev/full: error names the file" 'grep -q "/dev/full" "$tmp/err"'
fi
if "$PERFX" report -i "$tmp/perf.data" --stdio -o "$tmp/no/such/dir/out" 2>"$tmp/err"; then
  echo "FAIL: an output in a missing directory succeeded"; fail=1
else
  check "missing directory: error names the path" 'grep -q "no/such/dir/out" "$tmp/err"'
fi
"$PERFX" report -i "$tmp/perf.data" --format firefox -o /dev/null 2>"$tmp/err"
check "-o /dev/null works" '[ $? -eq 0 ] && [ ! -s "$tmp/err" ]'
check "no temporary file is left behind" '[ -z "$(find "$tmp" -name ".*.tmp")" ]'

# A symlink at FILE: refused with one line naming it; what it points to is untouched.
echo precious > "$tmp/victim"
ln -s "$tmp/victim" "$tmp/link.json"
if "$PERFX" report -i "$tmp/perf.data" --format json -o "$tmp/link.json" 2>"$tmp/err"; then
  echo "FAIL: -o through a symlink succeeded"; fail=1
else
  check "a symlink at -o is refused with one line naming it" \
    '[ "$(wc -l < "$tmp/err")" -eq 1 ] && grep -q "link.json.*symbolic link" "$tmp/err"'
fi
check "the symlink's target is untouched" '[ "$(cat "$tmp/victim")" = precious ]'

# stat -o: created in place (never through a symlink), --append appends.
"$PERFX" stat -e task-clock -o "$tmp/stat.txt" -- true 2>/dev/null
check "stat -o writes the counts" 'grep -q task-clock "$tmp/stat.txt"'
"$PERFX" stat -e task-clock -o "$tmp/stat.txt" --append -- true 2>/dev/null
check "stat --append appends" '[ "$(grep -c task-clock "$tmp/stat.txt")" -eq 2 ]'
ln -s "$tmp/victim" "$tmp/stat.link"
for extra in "" --append; do
  if "$PERFX" stat -e task-clock -o "$tmp/stat.link" $extra -- true 2>"$tmp/err"; then
    echo "FAIL: stat -o $extra through a symlink succeeded"; fail=1
  else
    check "stat -o $extra: a symlink is refused naming it" 'grep -q "stat.link" "$tmp/err"'
  fi
done
check "stat left the symlink's target untouched" '[ "$(cat "$tmp/victim")" = precious ]'
exit $fail
