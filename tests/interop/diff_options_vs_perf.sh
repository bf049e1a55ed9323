#!/bin/bash
# Interop: `perfx diff` prints what `perf diff` prints, byte for byte (a DSO's unresolved
# addresses are one row, shown by the lowest, as perf collapses them), with perf diff's
# filters and switches (issue #25: -o/--order, -s/--sort, --percentage, -F/--formula): -q, -C/--comms (a row takes the verdict of the sample that made
# it, and is shown by its baseline's), --pid, --tid, -d/--dsos and -S/--symbols (one
# value drops that column), --time, -c delta|delta-abs|ratio|wdiff:W1,W2, -p, -b, -t; and a
# baseline event the new file lacks is shown with its baselines only.
set -u
source "$(dirname "$0")/common.bash"
perf record -q -e cpu-clock,syscalls:sys_enter_write -F 4000 -g -o "$tmp/old.data" -- \
  sh -c "'$fixture' 80000000; echo hi" >/dev/null 2>&1 || { echo "perf record failed"; exit 77; }
perf record -q -e cpu-clock -F 4000 -g -o "$tmp/new.data" -- \
  sh -c "'$fixture' 50000000; seq 200000 >/dev/null" >/dev/null 2>&1 || exit 77
fail=0
same() {
  perf diff "$@" "$tmp/old.data" "$tmp/new.data" > "$tmp/perf.out" 2>&1 ||
    { echo "perf diff $* failed"; fail=1; return; }
  "$PERFX" diff "$@" "$tmp/old.data" "$tmp/new.data" > "$tmp/perfx.out" 2>"$tmp/err" ||
    { echo "perfx diff $* failed: $(cat "$tmp/err")"; fail=1; return; }
  # A case must show rows (no vacuous pass), but for --pid/--tid: perf diff then keeps few
  # rows of a run-dependent kind (none in some runs); there the two outputs are compared only.
  [ "${may_be_empty:-0}" = 1 ] || grep -q '^[^#]' "$tmp/perf.out" ||
    { echo "perf diff $* printed no rows"; fail=1; return; }
  # Without dso among the -s keys, the row of several DSOs' unresolved code shows an address
  # perf picks by its tree walk (docs/exports.md): masked there, the values compare.
  if [ "${mask_unresolved:-0}" = 1 ]; then
    sed -i 's/\[\.\] 0x[0-9a-f]\{16\}/[.] 0x(unresolved)/' "$tmp/perf.out" "$tmp/perfx.out"
  fi
  if ! cmp -s "$tmp/perf.out" "$tmp/perfx.out"; then
    echo "DIFF: diff $*"; diff "$tmp/perf.out" "$tmp/perfx.out" | head -10; fail=1
  fi
}
pid=$(perf script -i "$tmp/new.data" -F comm,pid -G 2>/dev/null | awk '$1 == "sh" {print $2; exit}')
tid=$(perf script -i "$tmp/new.data" -F comm,tid -G 2>/dev/null | awk '$1 == "sym_pinned" {print $2; exit}')
same
same -q
same -C sym_pinned
same --comms sh,seq
may_be_empty=1 same --pid "${pid:-1}"
may_be_empty=1 same --tid "${tid:-1}"
same -d libc.so.6
same -d "$(basename "$fixture"),libc.so.6"
same -S sym_alpha
same -S sym_alpha,sym_outer -q
same --time 0%-50%
# -c: the compute column and its order (ratio and wdiff: "N/A" for rows only NEW has),
# -p: the periods, -b: only rows of both files, baselines of those.
same -c delta
same -c ratio
same -c wdiff:1,2
same -c wdiff:3,1 -q
same -p
same -p -c ratio
same -b
same -b -c delta
# -t: perf's separated layout (values unaligned and padded after, no dot rule).
same -t ';'
same -t , -p -c ratio
same -t '|' -c wdiff:1,2 -d libc.so.6
# -o: the column that sorts (0 the baseline, 1 the -c column); perf's -o is not --output.
# (More -o/-s/--percentage/-F cases: tests/interop/options_table/diff.tsv.)
same -o 0
# -s: rows paired by other keys (ties by the keys in order, symbols by name).
mask_unresolved=1 same -s sym
same -s pid
mask_unresolved=1 same -s comm,sym
same -s sym,dso
# --percentage relative: of the rows the filters keep (perf's "-nan%" when none in OLD).
# With -C the Delta is of the samples that pass the filter themselves (perf computes it
# before its output sort), the Baseline and -F's OLD total of the rows kept.
same --percentage relative -d libc.so.6
same --percentage relative -C sh
same --percentage relative --comms sh,seq -c delta -F
# -F/--formula: how each -c value was computed.
same --formula
same -F -c ratio
same -F -c wdiff:1,2 -p
"$PERFX" diff -o 2 "$tmp/old.data" "$tmp/new.data" >/dev/null 2>"$tmp/err" ||
  grep -q 'Order option out of limit' "$tmp/err" || { echo "-o 2: $(cat "$tmp/err")"; fail=1; }
for key in tid bogus; do
  if "$PERFX" diff -s "$key" "$tmp/old.data" "$tmp/new.data" >/dev/null 2>"$tmp/err" ||
     ! grep -q "Unknown --sort key: \`$key'" "$tmp/err"; then
    echo "-s $key: $(cat "$tmp/err")"; fail=1
  fi
done
for bad in bogus wdiff:x; do
  if "$PERFX" diff -c "$bad" "$tmp/old.data" "$tmp/new.data" >/dev/null 2>"$tmp/err" ||
     ! grep -q "$bad" "$tmp/err"; then
    echo "-c $bad: $(cat "$tmp/err")"; fail=1
  fi
done
"$PERFX" diff "$tmp/old.data" "$tmp/new.data" 2>/dev/null | grep -q "^# Event 'syscalls:sys_enter_write'" ||
  { echo "the baseline-only event has no section"; fail=1; }
[ $fail = 0 ] && echo "perfx diff's options match perf diff"
exit $fail
