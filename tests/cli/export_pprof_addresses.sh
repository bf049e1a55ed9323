#!/usr/bin/env bash
# pprof keeps unresolved addresses apart: each (mapping, address) is its own function named
# "0x<map-relative address>" as perf report shows it, never one "[unknown]" for all; and
# the kernel mapping carries the kernel's build-id from the recording (perf buildid-list).
set -u
: "${PERFX:?}" "${BUILD_DIR:?}" "${SOURCE_DIR:?}"
source "$(dirname "$0")/common.bash"
command -v protoc >/dev/null || { echo "protoc missing: run scripts/setup"; exit 77; }
decode() {
  gunzip -c "$1" | protoc --proto_path="$SOURCE_DIR/src/report" \
    --decode=perftools.profiles.Profile profile.proto
}
# The forged 128-frame chain of deep_garbage: made-up return addresses, resolvable by nobody.
"$PERFX" record -q -g -e cpu-clock -c 100000 -o "$tmp/garbage.data" -- \
  "$BUILD_DIR/fixtures/deep_garbage" 600 40000000 >/dev/null
"$PERFX" report -i "$tmp/garbage.data" --format pprof -o "$tmp/garbage.pb.gz"
decode "$tmp/garbage.pb.gz" > "$tmp/garbage.txt" || { echo "FAIL: decode"; exit 1; }
n_addr=$(grep -c '^string_table: "0x00007e' "$tmp/garbage.txt")
check "the forged return addresses are $n_addr functions of their own (>= 100)" '[ "$n_addr" -ge 100 ]'
check "no function is called [unknown]" '! grep -q "^string_table: \"\[unknown\]\"" "$tmp/garbage.txt"'

# Kernel samples: the kernel mapping has the build-id perf reads from the same file.
"$PERFX" record -q -g -e cpu-clock -o "$tmp/kernel.data" -- \
  dd if=/dev/zero of=/dev/null bs=64 count=300000 2>/dev/null
"$PERFX" report -i "$tmp/kernel.data" --format pprof -o "$tmp/kernel.pb.gz"
decode "$tmp/kernel.pb.gz" > "$tmp/kernel.txt" || { echo "FAIL: decode"; exit 1; }
want=$(perf buildid-list -i "$tmp/kernel.data" 2>/dev/null | awk '$2 == "[kernel.kallsyms]" { print $1 }')
got=$(python3 - "$tmp/kernel.txt" <<'PY'
import re, sys
text = open(sys.argv[1]).read()
strings = [bytes(s, "ascii").decode("unicode_escape") for s in re.findall(r'^string_table: "(.*)"$', text, re.M)]
for m in re.finditer(r'^mapping \{(.*?)^\}', text, re.M | re.S):
    fields = dict(re.findall(r'^\s+(\w+): (\d+)$', m.group(1), re.M))
    if strings[int(fields.get("filename", 0))] == "[kernel.kallsyms]":
        print(strings[int(fields.get("build_id", 0))])
PY
)
echo "kernel build-id: perf '$want', pprof '$got'"
check "the kernel mapping has the recording's build-id" '[ -n "$want" ] && [ "$got" = "$want" ]'
exit $fail
