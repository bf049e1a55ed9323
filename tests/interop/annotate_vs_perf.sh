#!/bin/bash
# Interop: `perfx annotate` gives every symbol perf annotate --stdio annotates, with the
# same title (DSO, event, sample count, percent type), the same instructions (addresses)
# and the same value on each: percentages of local/global period and hits, -n samples,
# --show-total-period periods; and -s/positional symbols and -d/--dsos select alike.
# The instruction text comes from libopcodes as objdump's does, but names addresses from the
# DSO's function symbols only, so it is not compared; the source lines are checked.
set -u
source "$(dirname "$0")/common.bash"
perf record -q -e cpu-clock -F 4000 -o "$tmp/perf.data" -- \
  sh -c "'$fixture' 60000000; seq 300000 >/dev/null" >/dev/null 2>&1 || { echo "perf record failed"; exit 77; }
command -v python3 >/dev/null || { echo "python3 missing"; exit 77; }
# Blocks of a listing: (dso, samples, first address) -> [(address, value)], one per title.
cat > "$tmp/blocks.py" <<'PY'
import re, sys
blocks, cur, title = {}, None, None
for line in open(sys.argv[1], errors="replace"):
    m = re.match(r" (?:Percent|Samples|Period)\s*\|\tSource code & Disassembly of (\S+) for (\S+) \((\d+) samples, percent: ([a-z ]+)\)", line)
    if m:
        title, cur = (m.group(1), m.group(2), m.group(3), m.group(4)), []
        continue
    m = re.match(r"\s+([0-9.]+) :\s+([0-9a-f]+):", line)
    if m and cur is not None:
        if not cur:
            blocks[title + (m.group(2),)] = cur
        cur.append((m.group(2), m.group(1)))
for k in sorted(blocks):
    print(" ".join(k), "|", " ".join(f"{a}={v}" for a, v in blocks[k]))
PY
fail=0
same() {
  perf annotate --stdio -i "$tmp/perf.data" "$@" > "$tmp/perf.out" 2>/dev/null
  "$PERFX" annotate -i "$tmp/perf.data" "$@" > "$tmp/perfx.out" 2>"$tmp/err"
  python3 "$tmp/blocks.py" "$tmp/perf.out" > "$tmp/perf.blocks"
  python3 "$tmp/blocks.py" "$tmp/perfx.out" > "$tmp/perfx.blocks"
  [ -s "$tmp/perf.blocks" ] || { echo "perf annotate $* annotated nothing"; fail=1; return; }
  if ! cmp -s "$tmp/perf.blocks" "$tmp/perfx.blocks"; then
    echo "DIFF: annotate $*"; diff "$tmp/perf.blocks" "$tmp/perfx.blocks" | cut -c1-300 | head -8
    fail=1
  fi
}
same
same -n
same --show-total-period
same --percent-type global-period
same --percent-type local-hits
same --percent-type hits-local
# global-hits: perf 6.1 prints 0.00 on every line (its annotate never counts the
# hists' non-filtered samples); perfx divides by the event's samples, so a symbol's lines
# add up to its share of all samples.
"$PERFX" annotate -i "$tmp/perf.data" --percent-type global-hits sym_alpha > "$tmp/gh.out" 2>/dev/null
all=$("$PERFX" report -i "$tmp/perf.data" --stdio --sort comm 2>/dev/null | awk '/^# Samples:/ {print $3; exit}')
python3 - "$tmp/gh.out" "$all" <<'PY' || fail=1
import re, sys
text = open(sys.argv[1]).read()
n = int(re.search(r"\((\d+) samples, percent: global hits\)", text).group(1))
got = sum(float(v) for v in re.findall(r"^\s+([0-9.]+) :", text, re.M))
want = 100.0 * n / int(sys.argv[2])
if abs(got - want) > 0.01 * text.count("\n") + 0.01:
    sys.exit(f"global-hits of sym_alpha add up to {got:.2f}, not {want:.2f}")
PY
same sym_alpha
same -s sym_outer
same -d libc.so.6
# The hot loop is in sym_alpha: its hottest instruction is inside the loop's source line,
# which is shown (from the fixture's source) above it.
"$PERFX" annotate -i "$tmp/perf.data" sym_alpha > "$tmp/alpha.out" 2>"$tmp/err" ||
  { echo "perfx annotate sym_alpha failed: $(cat "$tmp/err")"; fail=1; }
grep -q "for (unsigned long i = 0; i < n; ++i) x = x \* 31 + i;" "$tmp/alpha.out" ||
  { echo "sym_alpha's loop line is not interleaved"; head -20 "$tmp/alpha.out"; fail=1; }
# -l: the summary names the loop's line first.
"$PERFX" annotate -i "$tmp/perf.data" -l sym_alpha 2>/dev/null |
  awk '/^Sorted summary/ {s = 1; next} s && /^ +[0-9]/ {print $2; exit}' | grep -q '^sym_pinned.c:13$' ||
  { echo "-l: the hottest line is not sym_pinned.c:13"; fail=1; }
# Bad input: an unknown percent type and a symbol without samples are named.
if "$PERFX" annotate -i "$tmp/perf.data" --percent-type bogus >/dev/null 2>"$tmp/err" ||
   ! grep -q "bogus" "$tmp/err"; then
  echo "--percent-type bogus: $(cat "$tmp/err")"; fail=1
fi
if "$PERFX" annotate -i "$tmp/perf.data" no_such_symbol >/dev/null 2>"$tmp/err" ||
   ! grep -q "no_such_symbol" "$tmp/err"; then
  echo "no_such_symbol: $(cat "$tmp/err")"; fail=1
fi
[ $fail = 0 ] && echo "perfx annotate matches perf annotate"
