#!/usr/bin/env bash
# The pager (tools/perfx/pager.hpp): on a terminal (a tmux pane) long output waits in
# `less -FRX` until the user quits it; through a pipe, with --no-pager/-P or with a pager
# of "cat" there is none; $PERFX_PAGER, then $PERF_PAGER, then $PAGER choose it. Env: PERFX.
set -u
: "${PERFX:?}"
command -v tmux >/dev/null || { echo "tmux missing: run scripts/setup"; exit 77; }
command -v less >/dev/null || { echo "less missing"; exit 77; }
source "$(dirname "$0")/common.bash"
data=$(cd "$(dirname "$0")/../data" && pwd)/fmt-multi-event.data
sock="perfx-pager-$$"
tm() { tmux -L "$sock" -f /dev/null "$@"; }
trap 'tm kill-server 2>/dev/null; rm -rf "$tmp"' EXIT
"$PERFX" script -i "$data" >"$tmp/piped.out" 2>/dev/null
lines=$(wc -l <"$tmp/piped.out")
check "the output is longer than the 20-line pane ($lines lines)" '[ "$lines" -gt 40 ]'

# run NAME CMD: runs CMD in a fresh 100x20 pane with no pager variables set; CMD's exit
# status lands in $tmp/NAME.rc once it ends.
run() {
  tm kill-server 2>/dev/null && sleep 0.5
  tm new-session -d -x 100 -y 20 \
    "env -u PAGER -u PERF_PAGER -u PERFX_PAGER -u LESS TERM=xterm $2; echo \$? >$tmp/$1.rc; sleep 60"
}
wait_rc() {  # NAME SECONDS: whether $tmp/NAME.rc appears in time
  for _ in $(seq $(($2 * 10))); do [ -s "$tmp/$1.rc" ] && return 0; sleep 0.1; done
  return 1
}

# The default pager: less holds the first screen until 'q'.
run less "'$PERFX' script -i '$data'"
! wait_rc less 2
waiting=$?
tm capture-pane -p >"$tmp/screen.txt"
check "on a terminal, perfx waits in the pager" '[ $waiting -eq 0 ]'
check "the pane shows the first lines" 'grep -qF "$(head -n 1 "$tmp/piped.out" | cut -c1-40)" "$tmp/screen.txt"'
check "less's prompt is on the last line" '[ "$(tail -n 1 "$tmp/screen.txt" | tr -d " ")" = ":" ]'
pgrep -s "$(tm display -p '#{pane_pid}')" -x less >/dev/null
check "the pager is less" '[ $? -eq 0 ]'
tm send-keys q
check "q leaves the pager and perfx exits 0" 'wait_rc less 5 && [ "$(cat "$tmp/less.rc")" = 0 ]'

# Short output: less -F shows it and quits without a key.
run short "'$PERFX' evlist -i '$data'"
check "short output needs no key (less -F)" 'wait_rc short 5 && [ "$(cat "$tmp/short.rc")" = 0 ]'

for how in "--no-pager" "-P"; do
  run nopager "'$PERFX' $how script -i '$data'"
  check "$how: no pager on a terminal" 'wait_rc nopager 5 && [ "$(cat "$tmp/nopager.rc")" = 0 ]'
  rm -f "$tmp/nopager.rc"
done

run pipe "'$PERFX' script -i '$data' | cat >'$tmp/pipe.out'"
check "piped: no pager, the whole output" 'wait_rc pipe 5 && cmp -s "$tmp/pipe.out" "$tmp/piped.out"'

run cat "PAGER=cat '$PERFX' script -i '$data'"
check "PAGER=cat: no pager" 'wait_rc cat 5'

# Which variable wins: PERFX_PAGER over PERF_PAGER over PAGER.
run var1 "PAGER=false PERF_PAGER=false PERFX_PAGER='cat >$tmp/v1.out' '$PERFX' script -i '$data'"
check "PERFX_PAGER is the pager" 'wait_rc var1 5 && cmp -s "$tmp/v1.out" "$tmp/piped.out"'
run var2 "PAGER=false PERF_PAGER='cat >$tmp/v2.out' '$PERFX' script -i '$data'"
check "PERF_PAGER comes next" 'wait_rc var2 5 && cmp -s "$tmp/v2.out" "$tmp/piped.out"'
run var3 "PAGER='cat >$tmp/v3.out' '$PERFX' script -i '$data'"
check "then PAGER" 'wait_rc var3 5 && cmp -s "$tmp/v3.out" "$tmp/piped.out"'

# Commands that are not paged (record, stat) and errors before any output print directly.
run stat "PAGER='cat >$tmp/stat.out' '$PERFX' stat -e task-clock true"
check "stat is not paged" 'wait_rc stat 5 && [ ! -e "$tmp/stat.out" ]'
exit $fail
