# Sourced by the interop scripts that compare perfx with perf: checks the environment
# (exit 77 = skipped when perf is missing), makes a scratch directory $tmp (removed on
# exit) and sets $fixture to the sym_pinned fixture most of them record.
: "${PERFX:?}" "${BUILD_DIR:?}" "${SOURCE_DIR:?}"
command -v perf >/dev/null || { echo "perf not installed"; exit 77; }
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

# use_fixture VAR NAME CFLAGS...: sets VAR to the fixture NAME as the build made it, or
# compiles tests/fixtures/NAME.c with CFLAGS into $tmp (exit 77 when that fails).
use_fixture() {
  local _var=$1 _name=$2 _path="$BUILD_DIR/fixtures/$2"
  shift 2
  if [ ! -x "$_path" ]; then
    cc "$@" -o "$tmp/$_name" "$SOURCE_DIR/tests/fixtures/$_name.c" || exit 77
    _path="$tmp/$_name"
  fi
  printf -v "$_var" '%s' "$_path"
}
use_fixture fixture sym_pinned -O1 -g -fno-omit-frame-pointer

# record_dwarf OUT MS: perf records the rec_hot fixture (driver -> hot_a/hot_b) for MS ms
# with --call-graph dwarf into $tmp/OUT (exit 77 when that is not possible here).
record_dwarf() {
  local hot
  use_fixture hot rec_hot -O1 -g
  perf record -q -e cpu-clock -F 2000 --call-graph dwarf -o "$tmp/$1" -- "$hot" "$2" \
    >/dev/null 2>&1 || { echo "perf record --call-graph dwarf failed"; exit 77; }
}
