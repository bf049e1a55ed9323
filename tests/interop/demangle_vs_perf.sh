#!/bin/bash
# Interop: C++ (and, when rustc is here, Rust v0) names in `perfx report` and
# `perfx script` are demangled as perf 6.1 prints them: no parameter lists or clone
# suffixes ("ns::Box<long>::spin"); `--demangle-params` gives what perf -v prints,
# `--no-demangle` the mangled names, as perf's (the last of it and `--demangle` wins).
set -u
: "${PERFX:?}" "${BUILD_DIR:?}" "${SOURCE_DIR:?}"
command -v perf >/dev/null || { echo "perf not installed"; exit 77; }
command -v g++ >/dev/null || { echo "no g++"; exit 77; }
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
g++ -O2 -g -fno-omit-frame-pointer -o "$tmp/cxx_names" "$SOURCE_DIR/tests/fixtures/cxx_names.cpp" || exit 77
perf record -q -e cpu-clock -F 2000 -g -o "$tmp/cxx.data" -- "$tmp/cxx_names" 3000000 >/dev/null 2>&1 ||
  { echo "perf record failed"; exit 77; }
fail=0
norm() { tr -s ' \t' ' ' | sed 's/ $//'; }
# Lines naming the fixture's functions, from perf and from perfx (same file, same args).
check() {  # name, pattern, perf-args, --, perfx-args
  local name=$1 pat=$2; shift 2
  local pa=() xa=()
  while [ $# -gt 0 ] && [ "$1" != -- ]; do pa+=("$1"); shift; done
  shift; xa=("$@")
  perf "${pa[@]}" 2>/dev/null | norm | grep -v "^#" | grep -E "$pat" > "$tmp/perf.$name"
  "$PERFX" "${xa[@]}" 2>/dev/null | norm | grep -v "^#" | grep -E "$pat" > "$tmp/perfx.$name"
  if [ ! -s "$tmp/perf.$name" ]; then echo "$name: perf printed no matching lines"; fail=1; return; fi
  if ! diff -u "$tmp/perf.$name" "$tmp/perfx.$name" > "$tmp/diff.$name"; then
    echo "$name differs:"; head -20 "$tmp/diff.$name"; fail=1
  fi
}
pat='spin|outer|other'
check report "$pat" report -i "$tmp/cxx.data" --stdio --no-children -g none -- \
  report -i "$tmp/cxx.data" --stdio --no-children -g none
check script "$pat" script -i "$tmp/cxx.data" -- script -i "$tmp/cxx.data"
grep -q 'ns::Box<long>::spin$' "$tmp/perfx.report" || { echo "no ns::Box<long>::spin row"; fail=1; }
# Full signatures: perf -v's symbol column vs --demangle-params.
perf report -v -i "$tmp/cxx.data" --stdio --no-children -g none 2>/dev/null |
  grep -oE '\[\.\] (ns::|other|outer).*' | norm | sort > "$tmp/perf.v"
"$PERFX" report --demangle-params -i "$tmp/cxx.data" --stdio --no-children -g none 2>/dev/null |
  grep -oE '\[\.\] (ns::|other|outer).*' | norm | sort > "$tmp/perfx.v"
if [ ! -s "$tmp/perf.v" ] || ! diff -u "$tmp/perf.v" "$tmp/perfx.v"; then
  echo "--demangle-params differs from perf report -v"; fail=1
fi
# --no-demangle: the names as the binary has them (_ZNK2ns3BoxIlE4spinEl.isra.0), report and script.
pat='_ZN|outer|other'
check report_mangled "$pat" report -i "$tmp/cxx.data" --stdio --no-children -g none --no-demangle -- \
  report -i "$tmp/cxx.data" --stdio --no-children -g none --no-demangle
check script_mangled "$pat" script -i "$tmp/cxx.data" --no-demangle -- \
  script -i "$tmp/cxx.data" --no-demangle
grep -q '_ZNK2ns3Box' "$tmp/perfx.report_mangled" || { echo "--no-demangle: no _ZNK2ns3Box row"; fail=1; }
# The last of --demangle and --no-demangle wins, as in perf.
pat='spin|outer|other'
check report_remangled "$pat" report -i "$tmp/cxx.data" --stdio --no-children -g none \
  --no-demangle --demangle -- report -i "$tmp/cxx.data" --stdio --no-children -g none \
  --no-demangle --demangle
check script_unmangled "$pat" script -i "$tmp/cxx.data" --demangle --no-demangle -- \
  script -i "$tmp/cxx.data" --demangle --no-demangle
grep -q '_ZNK2ns3Box' "$tmp/perfx.script_unmangled" || { echo "--demangle --no-demangle: no _ZNK2ns3Box"; fail=1; }

rustc=$(command -v rustc || echo "$HOME/.cargo/bin/rustc")
if [ -x "$rustc" ]; then
  cat > "$tmp/rv.rs" <<'RS'
#[inline(never)]
fn busy(n: u64) -> u64 { let mut s = 0u64; for i in 0..n { s = s.wrapping_add(i.wrapping_mul(s ^ i)); } s }
fn main() { let n: u64 = std::env::args().nth(1).map(|a| a.parse().unwrap()).unwrap_or(1); println!("{}", busy(n)); }
RS
  if "$rustc" -O -C symbol-mangling-version=v0 -C force-frame-pointers=yes -o "$tmp/rv" "$tmp/rv.rs" \
       >/dev/null 2>&1 &&
     perf record -q -e cpu-clock -F 2000 -o "$tmp/rv.data" -- "$tmp/rv" 100000000 >/dev/null 2>&1; then
    check rust_v0 'busy' report -i "$tmp/rv.data" --stdio --no-children -g none -- \
      report -i "$tmp/rv.data" --stdio --no-children -g none
    grep -q 'rv::busy' "$tmp/perfx.rust_v0" || { echo "rust v0: no rv::busy row"; fail=1; }
  else
    echo "note: rustc cannot build a v0 fixture here; Rust v0 not checked"
  fi
fi
[ $fail = 0 ] && echo "perfx demangles like perf"
exit $fail
