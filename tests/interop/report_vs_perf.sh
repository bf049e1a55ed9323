#!/bin/bash
# Interop: perf records a fixture; `perfx report` and `perf report` on the same file must
# show the same entries with percentages within 0.1 points (top rows >= 0.5%), for
# --no-children -g none --sort dso,sym and for the default --children report; and on a
# --call-graph dwarf recording (user chains unwound from the stack copies), the
# --children report. Rows perf makes for inline scopes ("(inlined)") are not compared:
# perfx report does not expand inline scopes into entries yet.
set -u
: "${PERFX:?}" "${BUILD_DIR:?}" "${SOURCE_DIR:?}"
command -v perf >/dev/null || { echo "perf not installed"; exit 77; }
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
fixture="$BUILD_DIR/fixtures/sym_pinned"
if [ ! -x "$fixture" ]; then
  cc -O1 -g -fno-omit-frame-pointer -o "$tmp/sym_pinned" "$SOURCE_DIR/tests/fixtures/sym_pinned.c" || exit 77
  fixture="$tmp/sym_pinned"
fi
perf record -q -e cpu-clock -F 4000 -g -o "$tmp/g.data" -- "$fixture" 100000000 >/dev/null 2>&1 ||
  { echo "perf record failed"; exit 77; }
hot="$BUILD_DIR/fixtures/rec_hot"
if [ ! -x "$hot" ]; then
  cc -O1 -g -o "$tmp/rec_hot" "$SOURCE_DIR/tests/fixtures/rec_hot.c" || exit 77
  hot="$tmp/rec_hot"
fi
perf record -q -e cpu-clock -F 2000 --call-graph dwarf -o "$tmp/dw.data" -- "$hot" 500 \
  >/dev/null 2>&1 || { echo "perf record --call-graph dwarf failed"; exit 77; }
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
data=dw.data
compare dwarf_children 1 --children -g none || fail=1
compare dwarf_self 1 --no-children -g none --sort dso,sym || fail=1
[ $fail = 0 ] && echo "perfx report matches perf report"
exit $fail
