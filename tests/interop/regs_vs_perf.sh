#!/bin/bash
# Interop: sampled registers. `perfx record -I` / `--intr-regs=...` / `--user-regs=...`
# set the attrs perf record sets for the same options (perf evlist -v), and `perfx script
# -F ...iregs,uregs` prints perf script's " ABI:2    AX:0x..." text, after the ip's frame
# or after the callchain, on both tools' recordings; a field the samples lack is perf's
# error; a recording made with -c (no PERIOD in the samples) shows the attr's period.
set -u
source "$(dirname "$0")/common.bash"
fail=0
run() { "$@" >/dev/null 2>&1 || { echo "failed: $*"; fail=1; }; }
work=("$fixture" 3000000)
run perf record -q -I -e cpu-clock -c 1000000 -o "$tmp/perf_i.data" -- "${work[@]}"
run "$PERFX" record -q -I -e cpu-clock -c 1000000 -o "$tmp/perfx_i.data" -- "${work[@]}"
run perf record -q --user-regs=ip,sp,bp -e cpu-clock -c 1000000 -o "$tmp/perf_u.data" -- "${work[@]}"
run "$PERFX" record -q --user-regs=ip,sp,bp -e cpu-clock -c 1000000 -o "$tmp/perfx_u.data" -- "${work[@]}"
run perf record -q --intr-regs=ax,ip -g -e cpu-clock -c 1000000 -o "$tmp/perf_g.data" -- "${work[@]}"
run "$PERFX" record -q --intr-regs=ax,ip -g -e cpu-clock -c 1000000 -o "$tmp/perfx_g.data" -- "${work[@]}"
for k in i u g; do
  diff <(perf evlist -v -i "$tmp/perf_$k.data" 2>&1) <(perf evlist -v -i "$tmp/perfx_$k.data" 2>&1) ||
    { echo "attrs differ ($k)"; fail=1; }
done
same() {  # file, script args...: the same text (errors without perfx's prefix)
  local f=$1; shift
  perf script -i "$f" "$@" 2>&1 | sed 's/^perfx script: //' > "$tmp/perf.out"
  "$PERFX" script -i "$f" "$@" 2>&1 | sed 's/^perfx script: //' > "$tmp/perfx.out"
  grep -q . "$tmp/perf.out" || { echo "perf script $* printed nothing"; fail=1; return; }
  cmp -s "$tmp/perf.out" "$tmp/perfx.out" ||
    { echo "DIFF: script $* ($(basename "$f"))"; diff "$tmp/perf.out" "$tmp/perfx.out" | cut -c1-200 | head -6; fail=1; }
}
for who in perf perfx; do
  same "$tmp/${who}_i.data"
  same "$tmp/${who}_i.data" -F comm,ip,iregs
  same "$tmp/${who}_i.data" -F +iregs
  same "$tmp/${who}_i.data" -F comm,ip,uregs
  same "$tmp/${who}_u.data" -F ip,sym,uregs
  same "$tmp/${who}_u.data" -F ip,sym,iregs,uregs
  same "$tmp/${who}_g.data" -F comm,ip,sym,iregs
  same "$tmp/${who}_g.data" -F +iregs
done
if "$PERFX" record --intr-regs=bogus -- true >/dev/null 2>"$tmp/err" || ! grep -q "bogus" "$tmp/err"; then
  echo "--intr-regs=bogus: $(cat "$tmp/err")"; fail=1
fi
[ $fail = 0 ] && echo "registers are recorded and printed as perf does"
