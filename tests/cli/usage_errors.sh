#!/usr/bin/env bash
# Usage errors as perf makes them: a mistyped command or option suggests the nearest one,
# an option perf 6.1 has and perfx not yet says so (tools/perfx/perf_options_table.cpp),
# and every option error exits 129 (perf's parse_options() usage exit). Env: PERFX.
set -u
source "$(dirname "$0")/common.bash"
data=$(dirname "$0")/../data/fmt-multi-event.data

"$PERFX" recrod -o "$tmp/x.data" true >/dev/null 2>"$tmp/cmd.err"
rc=$?
check "perfx recrod suggests record, exits 1 as perf" \
  '[ $rc -eq 1 ] && grep -q "did you mean '"'record'"'?" "$tmp/cmd.err" && [ ! -e "$tmp/x.data" ]'
"$PERFX" kmem >/dev/null 2>"$tmp/kmem.err"
check "perf's kmem command: not supported yet" \
  '[ $? -eq 1 ] && grep -q "perf'"'"'s \`kmem\` is not supported by perfx yet" "$tmp/kmem.err"'
"$PERFX" zzzzzz >/dev/null 2>"$tmp/zz.err"
check "a far-off command name gets no suggestion" \
  '[ $? -eq 1 ] && grep -q "not a perfx command" "$tmp/zz.err" && ! grep -q "did you mean" "$tmp/zz.err"'

"$PERFX" report -i "$data" --stdio --sotr comm >/dev/null 2>"$tmp/sotr.err"
rc=$?
check "report --sotr suggests --sort, exits 129" \
  '[ $rc -eq 129 ] && grep -q "unknown option: --sotr; did you mean '"'--sort'"'?" "$tmp/sotr.err"'
"$PERFX" record -o "$tmp/y.data" --bogus -- true >/dev/null 2>"$tmp/bogus.err"
rc=$?
check "record --bogus exits 129 as perf record --bogus" \
  '[ $rc -eq 129 ] && grep -q "unknown option: --bogus" "$tmp/bogus.err" && [ ! -e "$tmp/y.data" ]'
if command -v perf >/dev/null; then
  perf record -o "$tmp/p.data" --bogus -- true >/dev/null 2>&1
  prc=$?
  check "perf record --bogus exits 129 too ($prc)" '[ $prc -eq 129 ]'
fi
"$PERFX" --bogus >/dev/null 2>"$tmp/global.err"
check "perfx --bogus exits 129" '[ $? -eq 129 ] && grep -q "unknown option: --bogus" "$tmp/global.err"'
"$PERFX" report -i "$data" --stdio --s comm >/dev/null 2>&1
check "an ambiguous prefix exits 129" '[ $? -eq 129 ]'
"$PERFX" report -i "$data" --stdio --percent-limit >/dev/null 2>&1
check "a missing option value exits 129" '[ $? -eq 129 ]'
"$PERFX" report --help >/dev/null 2>&1
check "--help still exits 0" '[ $? -eq 0 ]'

# perf's options perfx lacks: named as perf's, not a parser error. Each must be in the
# table generated from perf 6.1's own help and not (yet) a perfx option.
unsupported() {  # command option  (the option as typed)
  "$PERFX" "$1" "$2" >/dev/null 2>"$tmp/u.err"
  local rc=$?
  check "$1 $2: perf's option not supported yet (rc $rc)" \
    '[ $rc -eq 129 ] && grep -q "is not supported by perfx yet" "$tmp/u.err" && ! grep -q "did you mean" "$tmp/u.err"'
}
# Pick options from the table that perfx's --help does not list, so the test keeps
# meaning something as perfx grows.
table=$(dirname "$0")/../../tools/perfx/data/perf_options.inc
for cmd in record report script stat; do
  have=$("$PERFX" "$cmd" --help 2>/dev/null | grep -oE -- '--[A-Za-z0-9][A-Za-z0-9-]*' | sort -u)
  n=0
  for opt in $(sed -nE "s/^ *\{\"$cmd\", '.*', \"([^\"]+)\"\},/\1/p" "$table"); do
    grep -qx -- "--$opt" <<<"$have" && continue
    unsupported "$cmd" "--$opt"
    n=$((n + 1))
    [ $n -ge 3 ] && break
  done
  check "$cmd: the table names perf options perfx lacks" '[ $n -gt 0 ]'
done
# sched and lock: before the subcommand (perfx's own front) and after it (a subcommand's
# options and, as perf's OPT_PARENT, its parent's), e.g. -D, perf's raw dump
for args in "sched -D latency" "sched latency -D" "sched timehist --state" "lock -D contention" \
  "lock contention --map-nr-entries 1"; do
  # shellcheck disable=SC2086
  "$PERFX" $args >/dev/null 2>"$tmp/u.err"
  rc=$?
  check "$args: perf's option not supported yet (rc $rc)" \
    '[ $rc -eq 129 ] && [ "$(wc -l <"$tmp/u.err")" -le 2 ] && grep -q "is not supported by perfx yet" "$tmp/u.err"'
done
"$PERFX" sched -Z latency >/dev/null 2>"$tmp/u.err"
check "sched -Z: unknown, exits 129" '[ $? -eq 129 ] && grep -q "unknown option: -Z" "$tmp/u.err"'
exit $fail
