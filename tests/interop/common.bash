# Sourced by the interop scripts that compare perfx with perf on a recording of the
# sym_pinned fixture: checks the environment (exit 77 = skipped when perf is missing),
# makes a scratch directory $tmp (removed on exit) and sets $fixture.
: "${PERFX:?}" "${BUILD_DIR:?}" "${SOURCE_DIR:?}"
command -v perf >/dev/null || { echo "perf not installed"; exit 77; }
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
fixture="$BUILD_DIR/fixtures/sym_pinned"
if [ ! -x "$fixture" ]; then
  cc -O1 -g -fno-omit-frame-pointer -o "$tmp/sym_pinned" "$SOURCE_DIR/tests/fixtures/sym_pinned.c" || exit 77
  fixture="$tmp/sym_pinned"
fi

# record_dwarf OUT MS: perf records the rec_hot fixture (driver -> hot_a/hot_b) for MS ms
# with --call-graph dwarf into $tmp/OUT (exit 77 when that is not possible here).
record_dwarf() {
  local hot="$BUILD_DIR/fixtures/rec_hot"
  if [ ! -x "$hot" ]; then
    cc -O1 -g -o "$tmp/rec_hot" "$SOURCE_DIR/tests/fixtures/rec_hot.c" || exit 77
    hot="$tmp/rec_hot"
  fi
  perf record -q -e cpu-clock -F 2000 --call-graph dwarf -o "$tmp/$1" -- "$hot" "$2" \
    >/dev/null 2>&1 || { echo "perf record --call-graph dwarf failed"; exit 77; }
}
