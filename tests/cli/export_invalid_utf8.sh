#!/usr/bin/env bash
# A workload that names itself with bytes that are not UTF-8 (tests/fixtures/bad_name.c):
# every structured export of its recording is still valid for its format's own tools:
# json, speedscope, firefox -> python3 -m json.tool; pprof -> protoc --decode (libprotobuf
# rejects invalid UTF-8 in proto3 strings); html -> xmllint --html; svg -> xmllint; and
# stat -j of it -> json.tool. Each keeps the name, with U+FFFD for the bad bytes.
set -u
: "${PERFX:?}" "${BUILD_DIR:?}" "${SOURCE_DIR:?}"
source "$(dirname "$0")/common.bash"
command -v xmllint >/dev/null || { echo "xmllint missing (libxml2-utils): run scripts/setup"; exit 77; }
command -v protoc >/dev/null || { echo "protoc missing: run scripts/setup"; exit 77; }
"$PERFX" record -q -g -e cpu-clock -o "$tmp/perf.data" -- "$BUILD_DIR/fixtures/bad_name" 300 >/dev/null ||
  { echo "FAIL: record"; exit 1; }
fffd=$'\xef\xbf\xbd'
for f in json speedscope firefox; do
  "$PERFX" report -i "$tmp/perf.data" --format $f -o "$tmp/prof.$f.json"
  check "$f export is valid JSON" 'python3 -m json.tool "$tmp/prof.$f.json" >/dev/null'
  check "$f export names the workload (bad${fffd}(...)" 'grep -q "bad${fffd}(" "$tmp/prof.$f.json"'
done
"$PERFX" report -i "$tmp/perf.data" --format pprof -o "$tmp/prof.pb.gz"
gunzip -c "$tmp/prof.pb.gz" > "$tmp/prof.pb"
protoc --proto_path="$SOURCE_DIR/src/report" --decode=perftools.profiles.Profile profile.proto \
  < "$tmp/prof.pb" > "$tmp/prof.pb.txt" 2> "$tmp/protoc.err"
rc=$?
cat "$tmp/protoc.err"
check "pprof export parses with libprotobuf (protoc exit $rc, no message)" \
  '[ $rc -eq 0 ] && [ ! -s "$tmp/protoc.err" ]'
check "pprof export names the workload" 'grep -q "bad\\\\357\\\\277\\\\275(" "$tmp/prof.pb.txt"'
"$PERFX" report -i "$tmp/perf.data" --format html -o "$tmp/flame.html"
xmllint --html --noout "$tmp/flame.html" 2> "$tmp/html.err"
cat "$tmp/html.err"
# libxml2's HTML 4 parser does not know HTML5's tags (header, main): those lines aside,
# it must have nothing to say (invalid characters and encoding errors are reported).
check "html export passes xmllint --html" \
  '! grep -v -e "Tag header invalid" -e "Tag main invalid" -e "^<" -e "^ *\\^" "$tmp/html.err" | grep -q .'
check "html export names the workload" 'grep -q "bad${fffd}(" "$tmp/flame.html"'
"$PERFX" report -i "$tmp/perf.data" --format svg -o "$tmp/flame.svg"
check "svg export passes xmllint" 'xmllint --noout "$tmp/flame.svg"'
check "svg export names the workload" 'grep -q "bad${fffd}(" "$tmp/flame.svg"'
# stat -j of the same workload, per thread (-p: the comm is read once it renamed itself).
"$BUILD_DIR/fixtures/bad_name" 1200 &
wpid=$!
sleep 0.3
"$PERFX" stat -j --per-thread -e task-clock -p "$wpid" > /dev/null 2> "$tmp/stat.json"
wait "$wpid"
cat "$tmp/stat.json"
check "stat -j names the thread (bad${fffd}(...)" 'grep -q "\"thread\" : \"bad${fffd}(" "$tmp/stat.json"'
grep '^{' "$tmp/stat.json" > "$tmp/stat.lines"
stat_json_ok() {
  [ -s "$tmp/stat.lines" ] || return 1
  while read -r l; do printf '%s' "$l" | python3 -m json.tool >/dev/null || return 1; done < "$tmp/stat.lines"
}
check "stat -j lines are valid JSON" stat_json_ok
exit $fail
