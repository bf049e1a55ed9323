#!/usr/bin/env bash
# perfx stat record / stat report vs perf 6.1, both directions, on the same files:
#   1. perfx's file: `perf stat report` and `perfx stat report` print the same text;
#      `perf report -D`, `perf script` and `perf evlist` read it without complaint, and
#      `perf evlist -v` shows the attrs of perf's own file of the same options;
#   2. perf's file (plain, -I intervals, -a -A per CPU): `perfx stat report` prints what
#      `perf stat report` prints on it;
#   3. a sampling recording: perfx stat report refuses it with one line.
# Both reports of one file print the same recorded numbers, so text is compared whole
# (whitespace squeezed): no timing or load dependence. Software events only.
set -u
source "$(dirname "$0")/common.bash"
perf stat record -e task-clock -o "$tmp/probe.data" -- true >/dev/null 2>&1 ||
  { echo "perf stat record does not work here"; exit 77; }
ok=1
fail() { echo "FAIL: $*"; ok=0; }
events=task-clock,context-switches,page-faults

# same_report FILE WHAT [STDIN]: perf stat report and perfx stat report of FILE (- : STDIN,
# a pipe-mode file), with the options in $opts, equal up to blanks.
opts=()
same_report() {
  local in=${3:-/dev/null}
  perf stat report -i "$1" "${opts[@]}" <"$in" >/dev/null 2>"$tmp/perf.txt" || { fail "$2: perf stat report exited $?"; return; }
  "$PERFX" stat report -i "$1" "${opts[@]}" <"$in" >/dev/null 2>"$tmp/perfx.txt" || { fail "$2: perfx stat report exited $?"; return; }
  grep -q '[0-9]' "$tmp/perfx.txt" || fail "$2: perfx printed no counts"
  if ! diff <(tr -s ' \t' ' ' <"$tmp/perf.txt" | sed 's/ *$//') \
            <(tr -s ' \t' ' ' <"$tmp/perfx.txt" | sed 's/ *$//') >"$tmp/diff.txt"; then
    fail "$2: reports differ (< perf, > perfx)"; cat "$tmp/diff.txt"
  fi
}

# 1. perfx writes, both read.
"$PERFX" stat record -e "$events" -o "$tmp/x.data" -- "$fixture" >/dev/null 2>"$tmp/live.txt" ||
  fail "perfx stat record exited $?"
grep -q 'page-faults' "$tmp/live.txt" || fail "perfx stat record printed no live counts"
same_report "$tmp/x.data" "perfx's file"
perf report -D -i "$tmp/x.data" >"$tmp/dump.txt" 2>&1 || fail "perf report -D exited $?"
for t in THREAD_MAP CPU_MAP STAT_CONFIG STAT STAT_ROUND; do
  grep -q "PERF_RECORD_$t\b" "$tmp/dump.txt" || fail "perf report -D shows no PERF_RECORD_$t"
done
grep -q 'type FINAL' "$tmp/dump.txt" || fail "no FINAL stat round"
perf script -i "$tmp/x.data" >"$tmp/script.txt" 2>"$tmp/script.err" || fail "perf script exited $?"
# perf script prints the FINAL round's counts: page-faults as perfx's report says
pf_script=$(awk '$NF == "page-faults" { print $3 }' "$tmp/script.txt")
pf_report=$(awk '$2 == "page-faults" { gsub(",", "", $1); print $1 }' "$tmp/perfx.txt")
[ -n "$pf_script" ] && [ "$pf_script" = "$pf_report" ] ||
  fail "perf script's page-faults ($pf_script) differ from perfx's report ($pf_report)"
perf evlist -i "$tmp/x.data" 2>/dev/null | grep -qx 'page-faults' || fail "perf evlist lacks page-faults"
perf report --header-only -i "$tmp/x.data" 2>/dev/null | grep -q 'contains stat data' ||
  fail "no HEADER_STAT feature"
# the old file is kept, as perf record does
"$PERFX" stat record --quiet -e task-clock -o "$tmp/x.data" -- true 2>/dev/null
[ -f "$tmp/x.data.old" ] || fail "no x.data.old after a second recording"
# perfx's -I file, read by both
"$PERFX" stat record -I 100 -e "$events" -o "$tmp/xi.data" -- sleep 0.25 2>/dev/null ||
  fail "perfx stat record -I exited $?"
same_report "$tmp/xi.data" "perfx's -I file"

# The attrs perfx writes are perf's (perf evlist -v of both files): exclude_guest as the
# event's modifiers say, --all-user/--all-kernel over the modifiers, inherit on CPU-wide
# counters too, the attr of an event the PMU lacks as it was tried, and msr/tsc/ without
# the exclude bits its PMU refuses (perf's "switching off exclude_guest, exclude_host").
cases=("-e task-clock -- true" "-a -e task-clock -- sleep 0.01"
  "-e task-clock:u,page-faults:k -- true" "-C 0 -e {task-clock,page-faults} -- sleep 0.01"
  "--no-inherit -e task-clock -- true" "-- true"
  "--all-user -e page-faults,cpu-clock:k -- true" "--all-kernel -e task-clock:u -- true")
[ -e /sys/bus/event_source/devices/msr/events/tsc ] && cases+=("-e msr/tsc/,task-clock -- true")
for args in "${cases[@]}"; do
  # shellcheck disable=SC2086  # the options are words
  perf stat record -o "$tmp/ep.data" $args >/dev/null 2>&1 &&
    "$PERFX" stat record -o "$tmp/ex.data" $args >/dev/null 2>&1 ||
    { fail "stat record $args failed"; continue; }
  diff <(perf evlist -v -i "$tmp/ep.data" 2>&1) <(perf evlist -v -i "$tmp/ex.data" 2>&1) \
    >"$tmp/diff.txt" || { fail "stat record $args: attrs differ (< perf, > perfx)"; cat "$tmp/diff.txt"; }
done

# 2. perf writes, both read.
perf stat record -e "$events" -o "$tmp/p.data" -- "$fixture" >/dev/null 2>&1
same_report "$tmp/p.data" "perf's file"
# perf's tool event (a software dummy named duration_time, its unit "ns" in an
# EVENT_UPDATE) next to two clocks (perf's "/sec" divides by their mean)
perf stat record -e task-clock,cpu-clock,page-faults,duration_time -o "$tmp/pt.data" -- "$fixture" >/dev/null 2>&1
same_report "$tmp/pt.data" "perf's file with duration_time and two clocks"
grep -q ' ns *duration_time' "$tmp/perfx.txt" || fail "duration_time is not in ns"
perf stat record -I 100 -e "$events" -o "$tmp/pi.data" -- sleep 0.25 >/dev/null 2>&1
same_report "$tmp/pi.data" "perf's -I file"
perf stat -a -A record -e cpu-clock,context-switches -o "$tmp/pa.data" -- sleep 0.05 >/dev/null 2>&1
same_report "$tmp/pa.data" "perf's -a -A file"

# perf's -a file and perfx's: every aggregation of the report, from the file's topology.
# perfx writes the topology features perf reads (CPU_TOPOLOGY, NUMA_TOPOLOGY).
"$PERFX" stat record -a -e cpu-clock,context-switches -o "$tmp/xa.data" -- sleep 0.05 >/dev/null 2>&1 ||
  fail "perfx stat record -a exited $?"
perf report --header-only -I -i "$tmp/xa.data" 2>/dev/null | grep -q '^# CPU 0: Core ID [0-9]*, Die ID' ||
  fail "perfx's stat file has no CPU_TOPOLOGY perf reads"
perf report --header-only -I -i "$tmp/xa.data" 2>/dev/null | grep -q '^# node0 meminfo' ||
  fail "perfx's stat file has no NUMA_TOPOLOGY perf reads"
for o in --per-core --per-socket --per-die --per-node -A; do
  opts=("$o")
  same_report "$tmp/pa.data" "perf's -a file $o"
  same_report "$tmp/xa.data" "perfx's -a file $o"
done
# The file's topology, not this machine's: perf's -a file with its CPU_TOPOLOGY rewritten
# in place (CPU 1 in core 0 of socket 0: "merge", or on socket 1: "split") and its
# NUMA_TOPOLOGY (the first node lists CPU 1 only: "numa"); needs 2 CPUs here.
patch_topology() {  # file mode: rewrites the file's feature sections
  python3 - "$1" "$2" <<'PY'
import struct, sys
path, mode = sys.argv[1], sys.argv[2]
b = bytearray(open(path, 'rb').read())
data_off, data_size = struct.unpack_from('<QQ', b, 40)
bits = int.from_bytes(b[72:104], 'little')
secs, at = {}, data_off + data_size
for f in range(256):
    if bits >> f & 1:
        secs[f] = struct.unpack_from('<QQ', b, at)[0]
        at += 16
def skip_strings(p):  # u32 nr, then nr * {u32 len; char str[len]}
    n, = struct.unpack_from('<I', b, p)
    p += 4
    for _ in range(n):
        p += 4 + struct.unpack_from('<I', b, p)[0]
    return p
ids = skip_strings(skip_strings(secs[13]))  # {u32 core_id; u32 socket_id} per CPU
if mode == 'merge':
    struct.pack_into('<I', b, ids + 8, 0)
elif mode == 'split':
    struct.pack_into('<I', b, ids + 12, 1)
else:  # node 0's CPU list (after u32 nr, u32 node, u64 total, u64 free, u32 len)
    p = secs[14] + 4 + 4 + 16
    n, = struct.unpack_from('<I', b, p)
    b[p + 4:p + 4 + n] = b'1'.ljust(n, b'\0')
open(path, 'wb').write(b)
PY
}
if [ "$(getconf _NPROCESSORS_ONLN)" -ge 2 ]; then
  for m in merge split numa; do
    cp "$tmp/pa.data" "$tmp/$m.data"
    patch_topology "$tmp/$m.data" $m || { fail "could not patch the topology ($m)"; continue; }
    for o in --per-core --per-socket --per-node; do
      opts=("$o")
      same_report "$tmp/$m.data" "perf's -a file, topology $m, $o"
      cp "$tmp/perfx.txt" "$tmp/$m$o.txt"
    done
  done
  # what the comparisons rest on: the rewritten topology shows in the aggregates
  grep -Eq '^S0-D0-C0 +2 ' "$tmp/merge--per-core.txt" || fail "merge: CPUs 0 and 1 not in one core"
  grep -Eq '^S1 +1 ' "$tmp/split--per-socket.txt" || fail "split: no socket 1"
  grep -Eq '^N-1 +1 ' "$tmp/numa--per-node.txt" || fail "numa: CPU 0 still in a node"
fi
opts=()

# pipe mode, both ways ('pipe' is the target perf names then)
"$PERFX" stat record -e "$events" -o - -- true 2>/dev/null >"$tmp/xpipe.data"
same_report - "perfx's pipe" "$tmp/xpipe.data"
# perf script reads perfx's stream too (its attrs have no PERF_SAMPLE_IDENTIFIER there, as
# perf's: perf refuses a pipe's HEADER_ATTR with one) and prints the report's counts
perf script -i - <"$tmp/xpipe.data" >"$tmp/pscript.txt" 2>"$tmp/pscript.err" ||
  fail "perf script of perfx's pipe exited $?: $(head -2 "$tmp/pscript.err")"
grep -q 'failed to process' "$tmp/pscript.err" && fail "perf script: $(grep -m1 'failed to process' "$tmp/pscript.err")"
"$PERFX" stat report -i - <"$tmp/xpipe.data" >/dev/null 2>"$tmp/perfx.txt"
pf_script=$(awk '$NF == "page-faults" { print $3 }' "$tmp/pscript.txt")
pf_report=$(awk '$2 == "page-faults" { gsub(",", "", $1); print $1 }' "$tmp/perfx.txt")
[ -n "$pf_script" ] && [ "$pf_script" = "$pf_report" ] ||
  fail "perf script of perfx's pipe: page-faults ($pf_script) differ from perfx's report ($pf_report)"
perf stat record -e "$events" -o - -- true 2>/dev/null >"$tmp/ppipe.data"
same_report - "perf's pipe" "$tmp/ppipe.data"
# perf's view of both streams and files: the same records of each type (EVENT_UPDATE unit,
# scale and name, the placeholder kernel MMAP, no FEATURE in a pipe), the same stderr
record_types() {  # FILE [STDIN]: perf report -D's record counts and its stderr
  perf report -D -i "$1" <"${2:-/dev/null}" 2>"$tmp/types.err" | sed -n '/^Aggregated stats/,$p'
  cat "$tmp/types.err"
}
diff <(record_types - "$tmp/ppipe.data") <(record_types - "$tmp/xpipe.data") >"$tmp/diff.txt" ||
  { fail "perf report -D: perfx's pipe differs from perf's (< perf, > perfx)"; cat "$tmp/diff.txt"; }
diff <(record_types "$tmp/p.data") <(record_types "$tmp/x.data.old") >"$tmp/diff.txt" ||
  { fail "perf report -D: perfx's file differs from perf's (< perf, > perfx)"; cat "$tmp/diff.txt"; }
# a pipe has no topology: perf's report takes this machine's sockets/dies/cores, no nodes
perf stat record -a -e cpu-clock -o - -- sleep 0.02 2>/dev/null >"$tmp/papipe.data"
"$PERFX" stat record -a -e cpu-clock -o - -- sleep 0.02 2>/dev/null >"$tmp/xapipe.data"
for o in --per-core --per-node; do
  opts=("$o")
  same_report - "perf's -a pipe $o" "$tmp/papipe.data"
  same_report - "perfx's -a pipe $o" "$tmp/xapipe.data"
done
opts=()

# 3. not stat data: one line, non-zero.
perf record -q -e cpu-clock -o "$tmp/samples.data" -- "$fixture" >/dev/null 2>&1
if "$PERFX" stat report -i "$tmp/samples.data" >/dev/null 2>"$tmp/err.txt"; then
  fail "perfx stat report took a sampling recording"
fi
[ "$(wc -l <"$tmp/err.txt")" -eq 1 ] && grep -q 'no stat data' "$tmp/err.txt" ||
  { fail "not one clear line for a sampling recording:"; cat "$tmp/err.txt"; }

[ "$ok" = 1 ] && echo "PASS"
[ "$ok" = 1 ]
