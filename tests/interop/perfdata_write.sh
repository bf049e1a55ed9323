#!/usr/bin/env bash
# perfx writes, perf reads: a recording synthesized by the perfx writer (FORK, COMM,
# MMAP2 of a real binary, kernel MMAP, SAMPLEs with callchains, EXIT) is read by
# Linux perf with no warning in file mode, pipe mode and zstd mode, with the
# expected symbols and percentages; `perf report --header-only` equals perfx's text.
set -u
BUILD_DIR=${BUILD_DIR:?}
TOOL=$BUILD_DIR/tools/perfdata_tool
FIX=$BUILD_DIR/fixtures/fmt_work
command -v perf >/dev/null || { echo "SKIP: no perf"; exit 77; }
[ -x "$TOOL" ] && [ -x "$FIX" ] || { echo "SKIP: build testtool_perfdata_tool and fixture_fmt_work"; exit 77; }
T=$(mktemp -d); trap 'rm -rf "$T"' EXIT
fails=0
fail() { echo "FAIL $*"; fails=$((fails+1)); }
addr() { nm "$FIX" | awk -v s="$1" '$3==s{print "0x"$1}'; }
hot=$(addr fmt_hot); cold=$(addr fmt_cold); drv=$(addr fmt_driver)
[ -n "$hot" ] && [ -n "$cold" ] && [ -n "$drv" ] || { echo "SKIP: no symbols in fixture"; exit 77; }
# Return addresses inside fmt_driver, IPs inside the leaf functions.
S=(--binary "$FIX" --stack "$((hot + 4)),$((drv + 9)):30" --stack "$((cold + 4)),$((drv + 14)):10")

expect_report() {  # name report-output stderr
  local name=$1 out=$2 err=$3
  [ -z "$err" ] || fail "$name: perf printed on stderr: $err"
  grep -q "Samples: 40  of event 'cpu-clock'" <<<"$out" || fail "$name: sample count"
  grep -Eq '75\.00%.*fmt_work +\[\.\] fmt_hot' <<<"$out" || fail "$name: fmt_hot 75%"
  grep -Eq '25\.00%.*fmt_work +\[\.\] fmt_cold' <<<"$out" || fail "$name: fmt_cold 25%"
}

# File mode.
"$TOOL" synth "$T/f.data" "${S[@]}" || fail "synth file"
out=$(perf report -i "$T/f.data" --stdio 2>"$T/err"); expect_report file "$out" "$(cat "$T/err")"
grep -q -- '--75.00%--fmt_hot' <<<"$out" || fail "file: callchain fmt_driver -> fmt_hot"
n=$(perf script -i "$T/f.data" -F comm,tid,ip,sym 2>"$T/err" | grep -c 'fmt_driver'); [ -s "$T/err" ] && fail "script stderr: $(cat "$T/err")"
[ "$n" = 40 ] || fail "perf script: $n samples with fmt_driver in the chain, want 40"
mine=$("$TOOL" header "$T/f.data"); theirs=$(perf report --header-only -i "$T/f.data" 2>"$T/err")
[ "$mine" = "$theirs" ] || { fail "header text differs"; diff <(echo "$theirs") <(echo "$mine"); }
[ -s "$T/err" ] && fail "header-only stderr: $(cat "$T/err")"

# Pipe mode.
out=$("$TOOL" synth - "${S[@]}" --pipe | perf report -i - --stdio 2>"$T/err"); expect_report pipe "$out" "$(cat "$T/err")"
n=$("$TOOL" synth - "${S[@]}" --pipe | perf script -i - -F tid 2>/dev/null | grep -c 4242)
[ "$n" -ge 40 ] || fail "pipe perf script: $n"

# Compressed (file and pipe).
"$TOOL" synth "$T/z.data" "${S[@]}" -z 3 || fail "synth -z"
out=$(perf report -i "$T/z.data" --stdio 2>"$T/err"); expect_report zstd "$out" "$(cat "$T/err")"
perf report --header-only -i "$T/z.data" 2>/dev/null | grep -q '^# compressed : Zstd, level = 3' || fail "zstd: COMPRESSED feature"
out=$("$TOOL" synth - "${S[@]}" --pipe -z 1 | perf report -i - --stdio 2>"$T/err"); expect_report pipe-zstd "$out" "$(cat "$T/err")"

# And perfx reads back what it wrote.
for f in f z; do
  d=$("$TOOL" dump "$T/$f.data")
  grep -q '^samples 40$' <<<"$d" && grep -q '^malformed 0$' <<<"$d" || fail "read back $f.data"
done
[ $fails -eq 0 ] || { echo "$fails failure(s)"; exit 1; }
echo PASS
