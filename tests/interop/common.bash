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
