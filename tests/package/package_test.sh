#!/usr/bin/env bash
# The installed package, used from outside (docs/library/install.md):
#   package_test.sh static   install $BUILD_DIR into a temporary prefix (CTest test
#                            package.install_consumer);
#   package_test.sh shared   configure + build + install a shared libperfx (library only,
#                            PERFX_BUILD_TESTS/TOOLS/BENCH/EXAMPLES=OFF) from $SOURCE_DIR
#                            (a separate .ci/run step: it compiles the library once more).
# Then, for that prefix moved elsewhere (the package must be relocatable): build every
# examples/*.cpp through find_package(perfx) (tests/package/consumer) and through
# `pkg-config --cflags --libs perfx`, and run each program (each must exit 0).
set -euo pipefail
mode=${1:-static}
: "${SOURCE_DIR:?}"
BUILD_DIR=${BUILD_DIR:-$SOURCE_DIR/build}
JOBS=${JOBS:-2}
tmp=$(mktemp -d "${TMPDIR:-/tmp}/perfx-package.XXXXXX")
trap 'rm -rf "$tmp"' EXIT
die() { echo "package_test ($mode): $*" >&2; exit 1; }
t0=$(date +%s)

case $mode in
  static) cmake --install "$BUILD_DIR" --prefix "$tmp/stage" >/dev/null ;;
  shared)
    # No optimisation, no debug info: this step checks the package (SONAME, exports,
    # relocation, consumers), not the code, and -O0 -g0 halves its compile time.
    cmake -S "$SOURCE_DIR" -B "$tmp/lib-build" -G Ninja -DCMAKE_BUILD_TYPE=None \
      -DCMAKE_CXX_FLAGS=-g0 -DCMAKE_C_FLAGS=-g0 \
      -DBUILD_SHARED_LIBS=ON -DPERFX_BUILD_TESTS=OFF -DPERFX_BUILD_TOOLS=OFF \
      -DPERFX_BUILD_BENCH=OFF -DPERFX_BUILD_EXAMPLES=OFF >/dev/null
    nice cmake --build "$tmp/lib-build" -j "$JOBS" >/dev/null
    cmake --install "$tmp/lib-build" --prefix "$tmp/stage" >/dev/null ;;
  *) die "usage: package_test.sh static|shared" ;;
esac
# Relocate: nothing installed may point back at the install or build location.
mv "$tmp/stage" "$tmp/prefix"
prefix=$tmp/prefix
pc=$(find "$prefix" -name perfx.pc | head -1)
[[ -n $pc ]] || die "no perfx.pc installed"
config=$(find "$prefix" -name perfxConfig.cmake | head -1)
[[ -n $config ]] || die "no perfxConfig.cmake installed"
if grep -rn -e "$tmp" -e "$SOURCE_DIR" -e "$BUILD_DIR" -e "/usr/lib/x86_64-linux-gnu/lib" \
     "$(dirname "$config")" "$pc"; then
  die "absolute paths in the installed package files (above)"
fi
if grep -rln "fmt/" "$prefix/include/perfx"; then die "a public header includes fmt (above)"; fi

if [[ $mode == shared ]]; then
  so=$(find "$prefix" -name 'libperfx.so.*.*' | head -1)
  [[ -n $so ]] || die "no libperfx.so.<version> installed"
  soname=$(objdump -p "$so" | awk '/SONAME/ {print $2}')
  [[ $soname == libperfx.so.* ]] || die "libperfx has no SONAME (got '$soname')"
  # perfx::record is public too (include/perfx/records.hpp: the typed records and
  # record_type_name); the decoder behind it stays hidden like every other module.
  internal=$(nm -D --defined-only -C "$so" | grep -E \
    ' perfx::(core|sys|event|symbol|profile|report)::' | head -5 || true)
  [[ -z $internal ]] || die "libperfx.so exports internal symbols, e.g.: $internal"
  echo "shared: $soname, $(nm -D --defined-only "$so" | grep -c ' T ') exported functions"
fi

run_all() {  # run_all <dir> <label>: every built example exits 0
  local n=0 exe
  for exe in "$1"/*; do
    [[ -f $exe && -x $exe ]] || continue
    if ! (cd "$tmp" && LD_LIBRARY_PATH="$prefix/lib:$(dirname "$pc")/.." timeout 120 "$exe" \
          >"$tmp/out.txt" 2>&1); then
      cat "$tmp/out.txt" >&2
      die "$2: $(basename "$exe") failed"
    fi
    n=$((n + 1))
  done
  ((n > 0)) || die "$2: no example built"
  echo "$2: $n examples built and ran"
}

# 1. CMake: find_package(perfx REQUIRED) + perfx::perfx.
cmake -S "$SOURCE_DIR/tests/package/consumer" -B "$tmp/consumer" -G Ninja \
  -DCMAKE_PREFIX_PATH="$prefix" -DPERFX_EXAMPLES_DIR="$SOURCE_DIR/examples" >"$tmp/log" 2>&1 ||
  { cat "$tmp/log" >&2; die "find_package(perfx) failed"; }
nice cmake --build "$tmp/consumer" -j "$JOBS" >"$tmp/log" 2>&1 ||
  { tail -40 "$tmp/log" >&2; die "examples do not build against perfx::perfx"; }
mkdir -p "$tmp/cmake-bin"
for src in "$SOURCE_DIR"/examples/*.cpp; do
  cp "$tmp/consumer/$(basename "$src" .cpp)" "$tmp/cmake-bin/"
done
run_all "$tmp/cmake-bin" "find_package"

# 2. pkg-config: plain --cflags --libs, no --static.
export PKG_CONFIG_PATH="$(dirname "$pc")"
flags=$(pkg-config --cflags --libs perfx) || die "pkg-config --cflags --libs perfx failed"
mkdir -p "$tmp/pc-bin"
for src in "$SOURCE_DIR"/examples/*.cpp; do
  # shellcheck disable=SC2086  # flags are words
  nice c++ -std=c++20 -O1 "$src" $flags -o "$tmp/pc-bin/$(basename "$src" .cpp)" 2>"$tmp/log" ||
    { cat "$tmp/log" >&2; die "$(basename "$src") does not build with: $flags"; }
done
run_all "$tmp/pc-bin" "pkg-config"
echo "package_test ($mode): ok in $(($(date +%s) - t0))s"
