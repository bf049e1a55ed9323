# Sourced by the interop scripts that compare perfx with perf: checks the environment
# (exit 77 = skipped when perf is missing), makes a scratch directory $tmp (removed on
# exit) and sets $fixture to the sym_pinned fixture most of them record.
: "${PERFX:?}" "${BUILD_DIR:?}" "${SOURCE_DIR:?}"
command -v perf >/dev/null || { echo "perf not installed"; exit 77; }
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

# drop_perf_tip: stdin without perf report's closing random "# (Tip: ...)" and the '#'
# line after it (not part of any comparison).
drop_perf_tip() { sed '/^# (Tip:/,$d' | sed '${/^#$/d}'; }

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

# gcc_fixture VAR NAME CFLAGS...: sets VAR to tests/fixtures/NAME.c compiled by gcc with
# CFLAGS into $tmp, whatever compiler the build uses (exit 77 when that fails). For the
# comparisons of inline frames and source lines: perf 6.1 resolves them with binutils'
# addr2line, which misses inline scopes that clang's DWARF 5 gives by DW_AT_ranges
# (rnglistx; the ASan build's fixtures), where perfx (libdw) finds them.
gcc_fixture() {
  local _var=$1 _name=$2
  shift 2
  gcc "$@" -o "$tmp/$_name" "$SOURCE_DIR/tests/fixtures/$_name.c" || exit 77
  printf -v "$_var" '%s' "$tmp/$_name"
}

# record_dwarf OUT MS: perf records the rec_hot fixture (driver -> hot_a/hot_b) for MS ms
# with --call-graph dwarf into $tmp/OUT (exit 77 when that is not possible here).
record_dwarf() {
  local hot
  gcc_fixture hot rec_hot -O1 -g
  perf_record_unwound "$tmp/$1" -e cpu-clock -F 2000 --call-graph dwarf -- "$hot" "$2"
}

# perf_record_unwound OUT ARGS...: `perf record -q -o OUT ARGS` of a --call-graph dwarf
# recording, made again (at most three times) while perf's own unwinder gave up on one of
# its samples: perf script shows a 0xffffffffffffffff frame where libunwind found no CFI
# (a page fault on the first instruction of a library's _fini during exit, rare and
# timing-dependent). perfx unwinds such a frame from the return address on the stack, so
# the two reports would differ in that sample only, a difference of unwinders rather than
# of the report under test (docs/report.md). Also made again while perf names a sample
# `_init`: a sample in a PLT stub, which perf 6.1 files under the zero-size `_init` it
# stretched over the PLT or under the stub's `@plt` symbol, as its symbol tree's shape
# decides (perfx names the stub; docs/report.md). Exit 77 when perf record fails.
perf_record_unwound() {
  local out=$1 try
  shift
  for try in 1 2 3; do
    perf record -q -o "$out" "$@" >/dev/null 2>&1 ||
      { echo "perf record $* failed"; exit 77; }
    perf script -i "$out" 2>/dev/null |
      grep -qE '^[[:space:]]*ffffffffffffffff \[unknown\] \(\[unknown\]\)$| _init(\+0x[0-9a-f]+)? \(' ||
      return 0
    echo "perf gave up unwinding, or named a PLT sample _init, in $(basename "$out") (try $try); recording again"
  done
}
