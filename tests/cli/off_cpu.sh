#!/bin/bash
# perfx record --off-cpu on a fixture whose two threads split their wall time between a
# CPU-bound function (spin_cpu) and a blocking one (block_sleep, nanosleep): the wall
# view of the report, the folded stacks and the SVG flame graph give each function the
# share of the threads' wall time the fixture measured itself (within 5 points); off-CPU
# frames are blue in the flame graph, run-queue waits reported apart; speedscope and
# Firefox exports keep the threads apart with the same shares; --wall is the same mode.
set -u
source "$(dirname "$0")/common.bash"
: "${BUILD_DIR:=build}"
fixture="$BUILD_DIR/fixtures/offcpu_split"
[ -x "$fixture" ] || { echo "no fixture $fixture"; exit 77; }
if ! "$PERFX" record -q --off-cpu -o "$tmp/perf.data" -- "$fixture" 60 4 6 >"$tmp/fixture.out" 2>"$tmp/rec.err"; then
  if grep -qi "permission\|tracefs" "$tmp/rec.err"; then echo "skip: $(cat "$tmp/rec.err")"; exit 77; fi
  cat "$tmp/rec.err"; exit 1
fi
spin=$(sed -n 's/.*spin_share=\([0-9.]*\).*/\1/p' "$tmp/fixture.out")
block=$(sed -n 's/.*block_share=\([0-9.]*\).*/\1/p' "$tmp/fixture.out")
echo "fixture measured: spin $spin, block $block (nominal 0.40 / 0.60; more spin when CPUs are busy)"
# near A B: |A - B| <= 0.05
near() { awk -v a="$1" -v b="$2" 'BEGIN { d = a - b; if (d < 0) d = -d; exit !(d <= 0.05) }'; }

"$PERFX" report -i "$tmp/perf.data" --stdio --children --sort sym -g none > "$tmp/report" 2>&1
pct() { awk -v s="$1" '$NF == s && $(NF-1) ~ /^\[/ { sub("%", "", $1); print $1; exit }' "$tmp/report"; }
r_worker=$(pct worker); r_spin=$(pct spin_cpu); r_block=$(pct block_sleep)
check "report: one event on one time scale" 'grep -q "of event '\''cpu-clock+offcpu-time'\''" "$tmp/report"'
check "report: [off-cpu] and [run-queue] entries" 'grep -q "\[off-cpu\]$" "$tmp/report" && grep -q "\[run-queue\]$" "$tmp/report"'
check "report: spin_cpu's share of the threads' wall time ($r_spin/$r_worker vs $spin)" \
  'near "$(awk -v a="$r_spin" -v b="$r_worker" "BEGIN { print a / b }")" "$spin"'
check "report: block_sleep's share ($r_block/$r_worker vs $block)" \
  'near "$(awk -v a="$r_block" -v b="$r_worker" "BEGIN { print a / b }")" "$block"'
check "report: no sched_switch section (its samples became the intervals)" '! grep -q "of event '\''sched:sched_switch'\''" "$tmp/report"'

"$PERFX" report -i "$tmp/perf.data" --format folded -o "$tmp/folded" 2>/dev/null
read -r f_spin f_block <<<"$(awk '{ w = $NF; if ($0 ~ /;worker;/) t += w; if ($0 ~ /;spin_cpu(;|$| )/) s += w; if ($0 ~ /;block_sleep(;|$| )/) b += w }
  END { if (t > 0) printf "%.3f %.3f\n", s / t, b / t }' "$tmp/folded")"
check "folded (ns weights): spin_cpu share $f_spin vs $spin" 'near "$f_spin" "$spin"'
check "folded (ns weights): block_sleep share $f_block vs $block" 'near "$f_block" "$block"'
check "folded: blocked stacks end in [off-cpu] under block_sleep" 'grep -q ";block_sleep;.*;\[off-cpu\] [0-9]*$" "$tmp/folded"'

"$PERFX" report -i "$tmp/perf.data" --format svg -o "$tmp/flame.svg" 2>/dev/null
svg_pct() { grep -o "<title>$1 ([0-9]* ns, [0-9.]*%" "$tmp/flame.svg" | head -1 | sed 's/.*, \([0-9.]*\)%/\1/'; }
s_worker=$(svg_pct worker); s_spin=$(svg_pct spin_cpu); s_block=$(svg_pct block_sleep)
check "flame graph: spin_cpu's width ($s_spin/$s_worker vs $spin)" \
  'near "$(awk -v a="$s_spin" -v b="$s_worker" "BEGIN { print a / b }")" "$spin"'
check "flame graph: block_sleep's width ($s_block/$s_worker vs $block)" \
  'near "$(awk -v a="$s_block" -v b="$s_worker" "BEGIN { print a / b }")" "$block"'
check "flame graph: block_sleep is blue (off-CPU)" \
  'grep -o "<title>block_sleep [^<]*</title><rect[^>]*>" "$tmp/flame.svg" | head -1 | grep -Eq "fill=\"rgb\(([6-9][0-9]|100),([9][0-9]|1[0-3][0-9]|140),(2[0-5][0-9])\)\""'
check "flame graph: the spin loop's own frames are not blue" \
  'grep -o "<title>spin_cpu [^<]*</title><rect[^>]*>" "$tmp/flame.svg" | grep -q "off-CPU 0.00%\|fill=\"rgb(2[0-5][0-9],"  || grep -o "<title>spin_cpu [^<]*</title>" "$tmp/flame.svg" | grep -vq "off-CPU"'
check "flame graph: says ns on and off CPU" 'grep -q "s on and off CPU (off-CPU frames in blue)" "$tmp/flame.svg"'
"$PERFX" report -i "$tmp/perf.data" --format html -o "$tmp/flame.html" 2>/dev/null
check "html flame graph: weighted in ns, marker kinds" 'grep -q "\"unit\":\"ns\"" "$tmp/flame.html" && grep -q "\[off-cpu\]" "$tmp/flame.html"'

# Timeline exports: per thread, same shares.
"$PERFX" report -i "$tmp/perf.data" --format speedscope -o "$tmp/ss.json" 2>/dev/null
"$PERFX" report -i "$tmp/perf.data" --format firefox -o "$tmp/ff.json" 2>/dev/null
if command -v python3 >/dev/null; then
  read -r ss_threads ss_spin <<<"$(python3 - "$tmp/ss.json" <<'PY'
import json, sys
d = json.load(open(sys.argv[1]))
names = [f["name"] for f in d["shared"]["frames"]]
threads = spin = total = 0
for p in d["profiles"]:
    w_all = w_spin = 0
    for st, w in zip(p["samples"], p["weights"]):
        fn = [names[i].split(" ")[0] for i in st]
        if "worker" in fn:
            w_all += w
            w_spin += w if "spin_cpu" in fn else 0
    if w_all:
        threads += 1; spin += w_spin; total += w_all
print(threads, round(spin / total, 3) if total else 0)
PY
)"
  check "speedscope: two worker threads, spin share $ss_spin vs $spin" '[ "$ss_threads" = 2 ] && near "$ss_spin" "$spin"'
  read -r ff_threads ff_spin <<<"$(python3 - "$tmp/ff.json" <<'PY'
import json, sys
d = json.load(open(sys.argv[1]))
threads = spin = total = 0
for t in d["threads"]:
    strings = t["stringTable"]
    frames = [strings[f[0]].split(" ")[0] for f in t["frameTable"]["data"]]
    stacks = t["stackTable"]["data"]
    def names(s):
        out = []
        while s is not None:
            pre, fr = stacks[s]
            out.append(frames[fr]); s = pre
        return out
    n_all = n_spin = 0
    for row in t["samples"]["data"]:
        if row[0] is None: continue
        fn = names(row[0])
        if "worker" in fn:
            n_all += 1; n_spin += "spin_cpu" in fn
    if n_all:
        threads += 1; spin += n_spin; total += n_all
print(threads, round(spin / total, 3) if total else 0)
PY
)"
  check "firefox: two worker threads, spin share of samples $ff_spin vs $spin" '[ "$ff_threads" = 2 ] && near "$ff_spin" "$spin"'
fi

check "--wall is the same mode (-F leaves sched_switch at every switch)" '"$PERFX" record -q --wall -F 499 -o "$tmp/wall.data" -- "$fixture" 5 1 1 >/dev/null 2>&1 && "$PERFX" report -i "$tmp/wall.data" --stdio 2>/dev/null | grep -q "cpu-clock+offcpu-time"'
check "a plain recording is unchanged" '"$PERFX" record -q -o "$tmp/plain.data" -- "$fixture" 5 1 1 >/dev/null 2>&1 && ! "$PERFX" report -i "$tmp/plain.data" --stdio 2>/dev/null | grep -q "offcpu-time\|\[off-cpu\]"'
exit $fail
