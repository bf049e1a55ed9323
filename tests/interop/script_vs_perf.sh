#!/bin/bash
# Interop: `perfx script` output equals `perf script` output up to runs of whitespace,
# on files perf records here: cpu-clock with -g, cpu-clock without callchains, and a
# tracepoint (fields formatted by libtraceevent).
set -u
source "$(dirname "$0")/common.bash"
perf record -q -e cpu-clock -F 2000 -g -o "$tmp/g.data" -- "$fixture" 30000000 >/dev/null 2>&1 ||
  { echo "perf record failed"; exit 77; }
perf record -q -e cpu-clock -F 2000 -o "$tmp/ng.data" -- "$fixture" 30000000 >/dev/null 2>&1 || exit 77
perf record -q -e syscalls:sys_enter_write -o "$tmp/tp.data" -- sh -c 'for i in 1 2 3 4; do echo hi; done' \
  >/dev/null 2>&1 || { echo "tracepoint recording not possible"; exit 77; }
norm() { tr -s ' \t' ' ' | sed 's/ $//'; }
fail=0
check() {  # file, args...
  local f=$1; shift
  perf script -i "$tmp/$f" "$@" 2>/dev/null | norm > "$tmp/perf.out"
  "$PERFX" script -i "$tmp/$f" "$@" 2>"$tmp/err" | norm > "$tmp/perfx.out"
  if ! diff -q "$tmp/perf.out" "$tmp/perfx.out" >/dev/null; then
    echo "DIFF: script -i $f $*"; diff "$tmp/perf.out" "$tmp/perfx.out" | head -20; cat "$tmp/err"
    fail=1
  elif [ ! -s "$tmp/perf.out" ]; then
    echo "perf script printed nothing for $f"; fail=1
  fi
}
check g.data
check ng.data
check tp.data
check g.data --ns
check g.data --show-task-events --show-mmap-events
check ng.data -F comm,tid,pid,time,event,ip,sym,symoff,dso,period
check tp.data -F comm,tid,cpu,time,event,trace
[ $fail = 0 ] && echo "perfx script matches perf script"
exit $fail
