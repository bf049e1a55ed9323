#!/bin/bash
# Interop: perf script's filters and layout options give what `perf script` gives, byte
# for byte, on a recording with CPU fields, a tracepoint and context switches:
# --comms/-c, --pid, --tid, -C/--cpu (lists and ranges), --time (seconds, percent,
# seconds from the first sample with --reltime), -S/--symbols, --dsos, -G, --max-stack,
# --reltime, --deltatime, --show-switch-events, --show-lost-events, --header; perf's
# errors for a CPU the recording cannot have and for -C on a file without CPU fields.
set -u
source "$(dirname "$0")/common.bash"
perf record -q -e cpu-clock,syscalls:sys_enter_write -F 2000 -g --sample-cpu --switch-events \
  -o "$tmp/f.data" -- sh -c "\"$fixture\" 20000000; for i in 1 2 3; do echo hi; sleep 0.01; done" \
  >/dev/null 2>&1 || { echo "perf record --switch-events failed"; exit 77; }
perf record -q -e cpu-clock -F 2000 -g -o "$tmp/nocpu.data" -- "$fixture" 2000000 >/dev/null 2>&1 ||
  exit 77

fail=0
# same ARGS...: both exit 0 with identical output (perf must print something).
same() {
  perf script -i "$tmp/f.data" "$@" > "$tmp/perf.out" 2>"$tmp/perf.err" ||
    { echo "perf script $* failed: $(head -2 "$tmp/perf.err")"; fail=1; return; }
  "$PERFX" script -i "$tmp/f.data" "$@" > "$tmp/perfx.out" 2>"$tmp/perfx.err" ||
    { echo "perfx script $* failed: $(head -2 "$tmp/perfx.err")"; fail=1; return; }
  [ -s "$tmp/perf.out" ] || { echo "perf script $* printed nothing"; fail=1; return; }
  cmp -s "$tmp/perf.out" "$tmp/perfx.out" ||
    { echo "DIFF: script $*"; diff "$tmp/perf.out" "$tmp/perfx.out" | head -10; fail=1; }
}
pid=$(perf script -i "$tmp/f.data" -F pid,comm -G 2>/dev/null | awk '$1 == "sh" {print $2; exit}')
tid=$(perf script -i "$tmp/f.data" -F tid,comm -G 2>/dev/null | awk '$1 == "sym_pinned" {print $2; exit}')
cpu=$(perf script -i "$tmp/f.data" -F cpu -G 2>/dev/null | head -1 | tr -d '[] ')
cpu=$((10#${cpu:-0}))
[ -n "$pid" ] && [ -n "$tid" ] && [ -n "$cpu" ] || { echo "no sh/sym_pinned samples"; exit 1; }
first=$(perf report -i "$tmp/f.data" --header-only | awk '/time of first sample/ {print $NF}')

same --comms sym_pinned
same -c sh,sym_pinned
same --pid "$pid"
same --tid "$tid"
same -C "$cpu"
same -C 0-1 -G
same --time 10%/2
same --time 0%-30% -G
same --time "$first",
same --reltime --time 0.002,0.02 -G
same -S sym_alpha
same -S sym_outer,sym_alpha --max-stack 2
same --dsos libc.so.6
same --dsos "$(basename "$fixture")"
same -G
same --max-stack 1
same --max-stack 0
same --reltime
same --deltatime --show-task-events
same --reltime --ns -G --show-mmap-events
same --show-switch-events
same --show-switch-events -C "$cpu" --deltatime
same --show-lost-events
same --header
same --comms sh --show-switch-events --show-task-events
# perf's errors: a CPU past the recording's count, -C without CPU fields.
if "$PERFX" script -i "$tmp/f.data" -C 4096 > /dev/null 2>"$tmp/err" ||
  ! grep -q 'Requested CPU 4096 too large' "$tmp/err"; then
  echo "-C 4096: $(cat "$tmp/err")"; fail=1
fi
if "$PERFX" script -i "$tmp/nocpu.data" -C 0 > /dev/null 2>"$tmp/err" ||
  ! grep -q 'File does not contain CPU events' "$tmp/err"; then
  echo "-C on a file without CPU fields: $(cat "$tmp/err")"; fail=1
fi
# Pipe mode: the events are known only while reading; -C still needs their CPU field.
perf record -q -e cpu-clock -o - -- "$fixture" 2000000 2>/dev/null > "$tmp/pipe.data"
if "$PERFX" script -i - -C 0 < "$tmp/pipe.data" > /dev/null 2>"$tmp/err" ||
  ! grep -q 'File does not contain CPU events' "$tmp/err"; then
  echo "-C on a pipe without CPU fields: $(cat "$tmp/err")"; fail=1
fi
if "$PERFX" script -i "$tmp/f.data" --pid 12x > /dev/null 2>"$tmp/err" || ! grep -q "12x" "$tmp/err"; then
  echo "--pid 12x: $(cat "$tmp/err")"; fail=1
fi
[ $fail = 0 ] && echo "perfx script's filters match perf script"
exit $fail
