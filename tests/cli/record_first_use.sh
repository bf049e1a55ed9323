#!/usr/bin/env bash
# What a new user of `perfx record` sees: -F/-c take positive whole numbers (CLI11 used to
# read -F -1 as 2^64-1), and `perfx record` with no command says on stderr that it
# records the whole system until Ctrl-C.
set -u
: "${PERFX:?}"
source "$(dirname "$0")/common.bash"
for bad in "-F -1" "-F -5" "-c -1" "-F 1.5" "-F abc"; do
  # shellcheck disable=SC2086
  out=$("$PERFX" record $bad -o "$tmp/x.data" -- true 2>&1)
  rc=$?
  check "record $bad is refused (exit $rc): $out" '[ $rc -ne 0 ] && echo "$out" | grep -q "positive whole number"'
  check "record $bad writes no file" '[ ! -e "$tmp/x.data" ]'
done
out=$("$PERFX" record -F 99 -q -o "$tmp/ok.data" -- true 2>&1)
check "record -F 99 works ($out)" '[ -s "$tmp/ok.data" ]'

# No command: system-wide until Ctrl-C, and it says so before anything else.
"$PERFX" record -e cpu-clock -o "$tmp/sys.data" 2> "$tmp/sys.err" &
pid=$!
for _ in $(seq 50); do [ -s "$tmp/sys.err" ] && break; sleep 0.1; done
sleep 0.5
kill -INT "$pid"
wait "$pid"
rc=$?
cat "$tmp/sys.err"
check "no command: the first line says system-wide until Ctrl-C" \
  'head -1 "$tmp/sys.err" | grep -q "no command given: recording the whole system (all CPUs) until Ctrl-C"'
check "no command: Ctrl-C ends it with exit 0 (got $rc) and a file" '[ $rc -eq 0 ] && [ -s "$tmp/sys.data" ]'
exit $fail
