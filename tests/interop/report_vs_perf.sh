#!/bin/bash
# Interop: perf records a fixture; `perfx report` and `perf report` on the same file must
# show the same entries with percentages within 0.1 points (top rows >= 0.5%), for
# --no-children -g none --sort dso,sym and for the default --children report; and on a
# --call-graph dwarf recording (user chains unwound from the stack copies), the
# --children report; and the tables of a two-event recording with a tracepoint, byte for
# byte; and the source lines of a binary without debug info. Rows perf makes for inline
# scopes ("(inlined)") are not compared: perfx report does not expand inline scopes into
# entries yet.
set -u
source "$(dirname "$0")/common.bash"
perf record -q -e cpu-clock -F 4000 -g -o "$tmp/g.data" -- "$fixture" 100000000 >/dev/null 2>&1 ||
  { echo "perf record failed"; exit 77; }
record_dwarf dw.data 500
data=g.data

# Rows "pct ... key" -> "key<TAB>pct" (key = the text after the percentage columns).
rows() {  # ncols_pct
  awk -v n="$1" '/^ +[0-9]+\.[0-9]+%/ {
      pct = $1; sub(/%/, "", pct);
      key = ""; for (i = n + 1; i <= NF; ++i) key = key (key == "" ? "" : " ") $i;
      if (pct + 0 >= 0.5) print key "\t" pct }'
}
compare() {  # name, ncols, args...
  local name=$1 n=$2; shift 2
  perf report -i "$tmp/$data" --stdio "$@" 2>/dev/null | rows "$n" | grep -v '(inlined)' |
    sort > "$tmp/perf.$name"
  "$PERFX" report -i "$tmp/$data" --stdio "$@" 2>/dev/null | rows "$n" | sort > "$tmp/perfx.$name"
  if [ ! -s "$tmp/perf.$name" ]; then echo "$name: perf printed no rows"; return 1; fi
  join -t $'\t' -a 1 -e MISSING -o 0,1.2,2.2 "$tmp/perf.$name" "$tmp/perfx.$name" |
    awk -F'\t' -v name="$name" '
      $3 == "MISSING" { print name ": perfx lacks row: " $1 " (" $2 "%)"; bad = 1; next }
      { d = $2 - $3; if (d < 0) d = -d; if (d > 0.1) { print name ": " $1 " perf " $2 "% perfx " $3 "%"; bad = 1 } }
      END { exit bad }'
}
fail=0
compare self 1 --no-children -g none --sort dso,sym || fail=1
compare children 1 --children -g none || fail=1
compare default 1 || fail=1
compare comm_dso 1 --no-children -g none --sort comm,dso || fail=1
# JIT frames (/tmp/perf-PID.map): perf names the DSO "[JIT] tid PID" in report and diff.
jit="$BUILD_DIR/fixtures/jit_map"
if [ ! -x "$jit" ]; then
  cc -O1 -o "$tmp/jit_map" "$SOURCE_DIR/tests/fixtures/jit_map.c" || exit 77
  jit="$tmp/jit_map"
fi
perf record -q -e cpu-clock -o "$tmp/jit.data" -- "$jit" 300 >/dev/null 2>&1 ||
  { echo "perf record (jit) failed"; exit 77; }
cp "$tmp/jit.data" "$tmp/g.data"
compare jit 1 --no-children -g none --sort dso,sym || fail=1
if ! "$PERFX" report -i "$tmp/jit.data" --stdio --no-children -g none | grep -q '\[JIT\] tid [0-9]* *\[\.\] jitted_loop'; then
  echo "jit: no '[JIT] tid PID' row"; fail=1
fi
perf diff "$tmp/jit.data" "$tmp/jit.data" 2>/dev/null | grep -o '\[JIT\] tid [0-9]*' | sort -u >"$tmp/perf.jitdiff"
"$PERFX" diff "$tmp/jit.data" "$tmp/jit.data" 2>/dev/null | grep -o '\[JIT\] tid [0-9]*' | sort -u >"$tmp/perfx.jitdiff"
if [ ! -s "$tmp/perf.jitdiff" ] || ! cmp -s "$tmp/perf.jitdiff" "$tmp/perfx.jitdiff"; then
  echo "jit: perfx diff DSO differs from perf diff:"; cat "$tmp/perf.jitdiff" "$tmp/perfx.jitdiff"; fail=1
fi
rm -f /tmp/perf-"$(perf script -i "$tmp/jit.data" -F pid 2>/dev/null | head -1 | tr -d ' ')".map

# On a recording of two events with -g, one a tracepoint (touch_pages' page faults): the
# tables byte for byte (perf's closing tip aside), column widths and section layout
# included. (Graphs are not compared so: perf orders siblings of equal period from two
# DSOs by where the DSOs are in its memory; a shell's recording also has garbage
# callchains through code without frame pointers, which perf and perfx walk alike only
# mostly.)
touch="$BUILD_DIR/fixtures/touch_pages"
if [ -x "$touch" ] && perf record -q -e cpu-clock,exceptions:page_fault_user -F 2000 -g \
  -o "$tmp/mix.data" -- "$touch" 20000 >/dev/null 2>&1; then
  for args in "--no-children --sort comm,dso,sym -g none" "--children -g none"; do
    # shellcheck disable=SC2086
    perf report -i "$tmp/mix.data" --stdio $args 2>/dev/null | drop_perf_tip >"$tmp/perf.exact"
    # shellcheck disable=SC2086
    "$PERFX" report -i "$tmp/mix.data" --stdio $args 2>/dev/null >"$tmp/perfx.exact"
    if ! grep -q 'page_fault_user' "$tmp/perf.exact" ||
      ! cmp -s "$tmp/perf.exact" "$tmp/perfx.exact"; then
      echo "exact ($args): perfx report differs from perf report:"
      diff "$tmp/perf.exact" "$tmp/perfx.exact" | head -20; fail=1
    fi
  done
else
  echo "note: no exceptions:page_fault_user recording here; the exact table check is skipped"
fi

# Source lines of a binary built without -g: perf's GNU addr2line names the function but
# no line ("??:?"), so perf shows "??:0" (not symbol+offset); the Source:Line column is
# sized and cut as perf does (tables byte for byte).
if cc -O1 -fno-omit-frame-pointer -o "$tmp/nodebug" "$SOURCE_DIR/tests/fixtures/sym_pinned.c" &&
  perf record -q -e cpu-clock -F 4000 -o "$tmp/nodebug.data" -- "$tmp/nodebug" 30000000 \
    >/dev/null 2>&1; then
  for sort in sym,srcline srcline,sym dso,srcline; do
    args=(--no-children -g none --sort "$sort" --dsos nodebug)
    perf report -i "$tmp/nodebug.data" --stdio "${args[@]}" 2>/dev/null |
      drop_perf_tip >"$tmp/perf.srcline"
    "$PERFX" report -i "$tmp/nodebug.data" --stdio "${args[@]}" 2>/dev/null >"$tmp/perfx.srcline"
    if ! grep -q '??:0' "$tmp/perf.srcline" || ! cmp -s "$tmp/perf.srcline" "$tmp/perfx.srcline"; then
      echo "srcline (--sort $sort): perfx report differs from perf report:"
      diff "$tmp/perf.srcline" "$tmp/perfx.srcline" | head -20; fail=1
    fi
  done
else
  echo "note: could not build and record a binary without debug info; srcline check skipped"
fi

data=dw.data
compare dwarf_children 1 --children -g none || fail=1
compare dwarf_self 1 --no-children -g none --sort dso,sym || fail=1
[ $fail = 0 ] && echo "perfx report matches perf report"
exit $fail
