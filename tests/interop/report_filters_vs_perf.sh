#!/bin/bash
# Interop: perf records a fixture; `perfx report` must print what `perf report` prints
# for --time windows (header line with "(time slices: ...)", in-window totals and
# percentages), and reject a --time it cannot parse, naming the text; --cpu (totals of
# the selected CPUs only) and, on a file without PERF_SAMPLE_CPU, perf's -C error and
# its "-001" for -s cpu; -g folded / flat callchains (merged by function, threshold),
# compared as sorted lines (perf orders equal-overhead entries by its rbtree insertion);
# -t, --show-total-period, --symbol-filter, and --hide-unresolved's totals with and without
# thread filters.
set -u
source "$(dirname "$0")/common.bash"
perf record -q -e cpu-clock -F 4000 -g -o "$tmp/g.data" -- "$fixture" 100000000 >/dev/null 2>&1 ||
  { echo "perf record failed"; exit 77; }

fail=0
# perf's text without blank lines and its closing tip.
clean() { grep -v -e '^$' -e '^# (Tip' -e '^#$'; }
# same [--may-be-empty] NAME ARGS...: perf must print rows unless --may-be-empty (then
# an empty table must be matched too), and must exit 0.
same() {
  local may_be_empty=0
  [ "$1" = --may-be-empty ] && { may_be_empty=1; shift; }
  local name=$1; shift
  if ! perf report -i "$tmp/g.data" --stdio "$@" 2>"$tmp/perferr.$name" > "$tmp/perf.raw.$name"; then
    echo "$name: perf report $* failed:"; head -5 "$tmp/perferr.$name"; fail=1; return
  fi
  clean < "$tmp/perf.raw.$name" > "$tmp/perf.$name"
  "$PERFX" report -i "$tmp/g.data" --stdio "$@" 2>"$tmp/err.$name" | clean > "$tmp/perfx.$name"
  if [ $may_be_empty = 0 ] && ! grep -q '%' "$tmp/perf.$name"; then
    echo "$name: perf printed no rows"; fail=1; return
  fi
  if ! diff -u "$tmp/perf.$name" "$tmp/perfx.$name" > "$tmp/diff.$name"; then
    echo "$name: perfx report $* differs from perf report:"; head -30 "$tmp/diff.$name"
    cat "$tmp/err.$name"; fail=1
  fi
}

# Unresolved addresses inside callchain lines are left out of the sorted-line checks:
# perf merges and orders them by its rbtree, which the text alone cannot reproduce.
# PLT entries ("foo@plt", perf 6.1's synthesized symbols) are compared like any symbol.
no_plt() { grep -v -E '\[\.\] 0x[0-9a-f]+$|(^|;| )0x[0-9a-f]+(;|$)'; }
same_lines() {  # name, args...
  local name=$1; shift
  perf report -i "$tmp/g.data" --stdio "$@" 2>/dev/null | clean | no_plt | sort > "$tmp/perf.$name"
  "$PERFX" report -i "$tmp/g.data" --stdio "$@" 2>"$tmp/err.$name" | clean | no_plt |
    sort > "$tmp/perfx.$name"
  if ! diff -u "$tmp/perf.$name" "$tmp/perfx.$name" > "$tmp/diff.$name"; then
    echo "$name: perfx report $* differs from perf report (sorted lines):"
    head -30 "$tmp/diff.$name"; fail=1
  fi
}
for g in folded flat folded,0.05 flat,0.05 folded,caller flat,caller folded,callee flat,callee \
  graph,0.5,callee; do
  same_lines "g_$g" --no-children -g "$g"
  same_lines "g_${g}_children" --children -g "$g"
done

# perf report habits: -q, -F, --sort overhead, repeated -s (perf: the last wins),
# --hide-unresolved, --max-stack (first N entries in display order), -G (caller order),
# --percentage relative with filters.
same opt_quiet -q --no-children -g none
same opt_fields -F overhead,comm,dso,sym,sample,period --no-children -g none
same opt_fields_period -F period,overhead,sym --no-children -g none
# Rows of one sample can tie with garbage callchain addresses, whose tie order perfx does
# not follow yet (perf's collapsed-tree ip order): rows under 0.5% are left out here.
same opt_fields_children -F overhead_children,overhead,sym -g none --percent-limit 0.5
same opt_sort_overhead --sort overhead --no-children -g none
same opt_sort_last -s dso -s sym --no-children -g none
# --sort time (100 ms buckets, --time-quantum), and -s with -F: the -s keys sort first.
same opt_sort_time --sort time --no-children -g none
same opt_sort_time_sym --sort time,sym --no-children -g none --time-quantum 50ms
same opt_sort_time_graph --sort time,dso --no-children -G
same opt_sort_then_fields -s dso -F overhead,dso,sym --no-children -g none
same opt_sort_time_fields -s time -F overhead,time,sym,sample --no-children -g none
# The time column at every width, whatever the machine's uptime: recordings written by
# perfx's writer (perfdata_tool synth) whose samples start at 4809 s (11 characters:
# unpadded as the last column, padded elsewhere), 14809 s (exactly the 12-wide column)
# and 123456 s (13: cut to 12).
tool="$BUILD_DIR/tools/perfdata_tool"
sym_addr() { nm "$fixture" | awk -v s="$1" '$3 == s { print "0x" $1 }'; }
alpha=$(sym_addr sym_alpha) outer=$(sym_addr sym_outer)
if [ ! -x "$tool" ] || [ -z "$alpha" ] || [ -z "$outer" ]; then
  echo "time widths: no $tool or no sym_alpha/sym_outer in $fixture"; fail=1
else
  mv "$tmp/g.data" "$tmp/g.orig"
  for start in 4809350000000 14809350000000 123456350000000; do
    "$tool" synth "$tmp/g.data" --binary "$fixture" --start $start --step 30000000 \
      --stack "$((alpha + 4)):25" --stack "$((outer + 4)):15" ||
      { echo "perfdata_tool synth --start $start failed"; fail=1; continue; }
    w=${start%350000000}
    same "time_${w}_last" --sort time --no-children -g none
    same "time_${w}_first" --sort time,sym --no-children -g none
    same "time_${w}_after" --sort sym,time --no-children -g none
    same "time_${w}_comm" --sort comm,time --no-children -g none --time-quantum 500ms
    same "time_${w}_fields" -F overhead,time,sym --no-children -g none
    same "time_${w}_sep" --sort time -t ';' --no-children -g none
  done
  grep -q '  4809\.400000$' "$tmp/perfx.time_4809_last" ||
    { echo "time_4809_last: no unpadded 4809.400000 row"; fail=1; }
  mv "$tmp/g.orig" "$tmp/g.data"
fi
# The parent key: -p's regex (POSIX extended) against the callchain in display order;
# -p alone appends the key; -x keeps only samples with a parent (totals unchanged).
same opt_parent --sort parent,sym --no-children -g none -p 'main|sym_outer'
same opt_parent_children --sort parent,sym -g none -p main
same opt_parent_default --sort parent --no-children -g none
same opt_parent_appended --sort sym -p 'main|sym_outer' --no-children -g none
same opt_parent_exclude --sort sym -p sym_outer -x --no-children -g none
same opt_parent_caller --sort dso,sym -p main -G --no-children
same opt_hide_unresolved --hide-unresolved -g none
same opt_hide_unresolved_graph --hide-unresolved --no-children
same opt_max_stack --max-stack 2 -g none
same opt_max_stack_callee --no-children --max-stack 2
same opt_max_stack_caller --no-children -G --max-stack 2
same opt_inverted -G --no-children
same opt_relative -S sym_alpha --percentage relative -g none --no-children
same opt_relative_children --dsos sym_pinned --percentage relative -g none
# --symbol-filter: a substring of the entry's symbol, applied (as perf 6.1) only with a
# comm/tid key, to the first event; relative percentages of the entries kept.
same symfilt_default --symbol-filter=sym_ -g none
same symfilt_self --symbol-filter=alpha --no-children
same symfilt_sym_only --symbol-filter=alpha -s sym --no-children -g none
same symfilt_relative --symbol-filter=sym_ --percentage relative -g none
same symfilt_comm_relative --symbol-filter=sym_ -s comm,sym --percentage relative -n -g none
"$PERFX" report -i "$tmp/g.data" --stdio -v -g none >/dev/null 2>&1 || { echo "-v rejected"; fail=1; }
if "$PERFX" report -i "$tmp/g.data" --stdio -p 'a(b' >/dev/null 2>"$tmp/err"; then
  echo "-p 'a(b' accepted"; fail=1
elif ! grep -qF "'a(b'" "$tmp/err"; then echo "-p 'a(b': error does not name it"; cat "$tmp/err"; fail=1; fi
for bad in 5xs 0 -3ms; do  # perf's messages for a --time-quantum it cannot use
  if "$PERFX" report -i "$tmp/g.data" --stdio -s time --time-quantum="$bad" >/dev/null 2>"$tmp/err"; then
    echo "--time-quantum $bad accepted"; fail=1
  elif ! grep -Eq "Cannot parse time quantum \`$bad'|time quantum cannot be 0" "$tmp/err"; then
    echo "--time-quantum $bad: unclear error"; cat "$tmp/err"; fail=1
  fi
done
if "$PERFX" report -i "$tmp/g.data" --stdio -T >/dev/null 2>"$tmp/err"; then
  echo "-T accepted"; fail=1
elif ! grep -q "not supported" "$tmp/err"; then echo "-T: unclear error"; cat "$tmp/err"; fail=1; fi
# --dsos/--symbols filter the samples by their leaf; the entries a sample creates keep its
# verdict (perf's hist_entry::filtered, set by the sample that created the entry). A
# one-value filter prints "# dso: X" / "# symbol: X" and drops that column.
# With children, a symbol's entry is often created by a sample whose leaf is elsewhere
# (the kernel, a callee), which hides it: in some recordings perf prints no row at all
# for -S sym_alpha (seen in CI), and perfx must then print none either.
same --may-be-empty filt_sym_children -S sym_outer,main -g none
same --may-be-empty filt_sym_children2 -S sym_alpha,main -g none
same filt_sym_self -S sym_outer,main --no-children -g none
same filt_dso_one --dsos sym_pinned -g none
same filt_dso_two --dsos sym_pinned,libc.so.6 -g none
same --may-be-empty filt_sym_one -S sym_alpha -g none
same filt_comm_one --comms sym_pinned --no-children -g none

# A window around the middle of the recording, in perf's seconds.
times=$(perf script -i "$tmp/g.data" -F time 2>/dev/null | tr -d ' :' | sed -n '1p;$p')
first=$(echo "$times" | sed -n 1p)
last=$(echo "$times" | sed -n 2p)
mid_a=$(awk -v a="$first" -v b="$last" 'BEGIN { printf "%.6f", a + (b - a) * 0.3 }')
mid_b=$(awk -v a="$first" -v b="$last" 'BEGIN { printf "%.6f", a + (b - a) * 0.6 }')

same time_abs --no-children -g none --time "$mid_a,$mid_b"
same time_open --no-children -g none --time ",$mid_a"
same time_two --no-children -g none --time "$first,$mid_a $mid_b,"
same time_slice --no-children -g none --time 10%/2
same time_dash --no-children -g none --time 0%-25%,50%-60%
same time_children -g none --time "$mid_a,$mid_b"

for bad in 10%/x 12.5 "$mid_b,$mid_a" abc,; do
  if "$PERFX" report -i "$tmp/g.data" --stdio --time "$bad" >/dev/null 2>"$tmp/err"; then
    echo "--time '$bad' was accepted"; fail=1
  elif ! grep -qF "'$bad'" "$tmp/err"; then
    echo "--time '$bad': error does not name the text:"; cat "$tmp/err"; fail=1
  fi
done
# No PERF_SAMPLE_CPU in g.data (perf record of a command without --sample-cpu).
same sort_cpu --no-children -g none -s cpu
same sort_comm_cpu --no-children -g none -s comm,cpu
same sort_socket --no-children -g none -s socket,comm  # no CPU field: socket -1
if "$PERFX" report -i "$tmp/g.data" --stdio --cpu 0 >/dev/null 2>"$tmp/err"; then
  echo "--cpu on a file without CPU was accepted"; fail=1
elif ! grep -qF "File does not contain CPU events. Remove -C option to proceed." "$tmp/err"; then
  echo "--cpu without CPU field: not perf's message:"; cat "$tmp/err"; fail=1
fi
# With CPUs: two copies of the fixture, and --cpu keeps only one CPU in the totals.
perf record -q -e cpu-clock -F 4000 --sample-cpu -o "$tmp/cpu.data" -- \
  sh -c "'$fixture' 30000000 & '$fixture' 30000000; wait" >/dev/null 2>&1 ||
  { echo "perf record --sample-cpu failed"; exit 77; }
mv "$tmp/g.data" "$tmp/g.orig" && cp "$tmp/cpu.data" "$tmp/g.data"
cpu=$(perf script -i "$tmp/g.data" -F cpu 2>/dev/null | tr -dc '0-9\n' | sed -n '1s/^0*\([0-9]\)/\1/p')
same cpu_one --no-children -g none --cpu "${cpu:-0}"
same cpu_sort --no-children -g none -s cpu,comm
same socket_sort --no-children -g none -s socket,sym  # the CPUs' sockets from the topology
mv "$tmp/g.orig" "$tmp/g.data"

# Layout options: -t (perf's field separator: values unaligned and padded after, no dot
# rule, no 16-wide Shared Object for unresolved entries), --show-total-period, -c.
same opt_separator -t ';' -g none
same opt_separator_cols -t , -n --show-total-period --no-children -g none
same opt_total_period --show-total-period -n -g none
same opt_comms_short -c sym_pinned --no-children -g none
# A shell loop (dash has no symbols: unresolved leaves) and a child: --hide-unresolved
# takes those samples out of the header's totals, also those of threads --comms/--pid
# leave out; a thread filter marks the entries like --dsos (perf's relative totals).
perf record -q -e cpu-clock -F 4000 -g -o "$tmp/sh.data" -- \
  sh -c 'i=0; while [ $i -lt 40000 ]; do i=$((i+1)); done; seq 300000 >/dev/null' >/dev/null 2>&1 ||
  { echo "perf record of a shell loop failed"; exit 77; }
mv "$tmp/g.data" "$tmp/g.orig" && cp "$tmp/sh.data" "$tmp/g.data"
sh_pid=$(perf script -i "$tmp/g.data" -F comm,pid 2>/dev/null | awk '$1 == "sh" {print $2; exit}')
seq_tid=$(perf script -i "$tmp/g.data" -F comm,tid 2>/dev/null | awk '$1 == "seq" {print $2; exit}')
same sh_hide -U -g none
same sh_hide_self -U --no-children -g none
same sh_hide_comm -c sh -U -g none
same --may-be-empty sh_hide_pid --pid "${sh_pid:-0}" -U --no-children -g none
same --may-be-empty sh_tid_relative --tid "${seq_tid:-0}" --percentage relative -g none
same --may-be-empty sh_tid_hide_relative --tid "${seq_tid:-0}" -U --percentage relative -g none
mv "$tmp/g.orig" "$tmp/g.data"

# Event groups (-e '{cpu-clock,task-clock}'): one section per group with a value per
# member (perf's default), --no-group's sections, and perfx record's group header (perf
# shows perfx's recording as a group too).
mv "$tmp/g.data" "$tmp/g.orig"
for rec in perf "$PERFX"; do
  $rec record -q -g -e '{cpu-clock,task-clock}' -F 999 -o "$tmp/g.data" -- "$fixture" 100000000 \
    >/dev/null 2>&1 || { echo "$rec record of a group failed"; fail=1; continue; }
  tag=$(basename "$rec")
  same "group_$tag" -g none
  same "group_self_$tag" --no-children -n
  same "group_relative_$tag" --percentage relative --dsos sym_pinned -g none --no-children
  same "group_off_$tag" --no-group --no-children -g none --sort sym
  grep -q "of events 'anon group { cpu-clock, task-clock }'" "$tmp/perfx.group_$tag" ||
    { echo "group_$tag: no group section"; fail=1; }
done
mv "$tmp/g.orig" "$tmp/g.data"

[ $fail = 0 ] && echo "perfx report filters match perf report"
exit $fail
