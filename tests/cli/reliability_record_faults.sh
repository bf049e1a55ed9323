#!/usr/bin/env bash
# Faults during `perfx record` (docs/reliability.md). Each case must end with a clear
# message (no crash, no hang) and, when a file was written, a perf.data that Linux perf
# reads (perf report exit 0) with what was recorded before the fault:
#   disk full (1 MiB tmpfs), unwritable output (read-only bind mount, /proc), workload
#   killed by a signal / exiting at once, command not found (127), SIGINT/SIGTERM at
#   random moments (repeated), fd limit (ulimit -n 32 with -a and many events), ring
#   buffer overrun (lost events reported when perf sees LOST records).
# Needs root for mounts (cases skipped otherwise). Exit 77 when perfx record is missing.
set -uo pipefail
: "${PERFX:?}" "${BUILD_DIR:?}"
LIMITED="$BUILD_DIR/fuzz/perfx_run_limited"
[[ -x "$LIMITED" ]] || { echo "FAIL: $LIMITED not built"; exit 1; }
if ! "$PERFX" record --help >/dev/null 2>&1; then
  echo "SKIP: 'perfx record' is not available yet"; exit 77
fi
HAVE_PERF=0; command -v perf >/dev/null 2>&1 && HAVE_PERF=1
work=$(mktemp -d /tmp/perfx-faults.XXXXXX)
mounts=()
cleanup() {
  for m in "${mounts[@]}"; do umount -l "$m" 2>/dev/null; done
  rm -rf "$work"
}
trap cleanup EXIT
failures=0
fail() { echo "FAIL: $*"; failures=$((failures + 1)); }
pass() { echo "ok: $*"; }
busy=(sh -c 'i=0; while [ $i -lt 200000 ]; do i=$((i+1)); done')

# run NAME TIMEOUT ARGS... : runs perfx record, sets rc/err; fails on crash or hang.
run() {
  local name=$1 limit=$2; shift 2
  "$LIMITED" "$limit" "$PERFX" record "$@" >"$work/out" 2>"$work/err" </dev/null
  rc=$?
  err=$(cat "$work/err")
  if [[ $rc -eq 251 ]]; then fail "$name: hung (killed after ${limit}s)"; return 1; fi
  if [[ $rc -eq 250 ]] || grep -qE 'AddressSanitizer|runtime error:|LeakSanitizer' "$work/err"; then
    fail "$name: crashed: $(head -3 "$work/err")"; return 1
  fi
  return 0
}
# perf_reads NAME FILE : Linux perf must read FILE without error.
perf_reads() {
  [[ $HAVE_PERF -eq 1 ]] || return 0
  if ! timeout 30 perf report -f -i "$2" --stdio >/dev/null 2>"$work/perf.err"; then
    fail "$1: perf report cannot read $2: $(head -2 "$work/perf.err")"; return 1
  fi
  # perf exits 0 on a file whose header says it holds no data; that is still a lost file.
  if grep -qE 'data size field is 0|not properly terminated|failed to process' "$work/perf.err"; then
    fail "$1: perf report warned on $2: $(grep -m2 -E 'data size|terminated|failed' "$work/perf.err")"
    return 1
  fi
  return 0
}

# 1. Disk full: a 256 KiB tmpfs and a recording larger than that (~1 MB). The partial
#    file must still be readable by perf (what was written before the fault).
if [[ $(id -u) -eq 0 ]] && mkdir -p "$work/full" && mount -t tmpfs -o size=256k tmpfs "$work/full"; then
  mounts+=("$work/full")
  run "disk full" 60 -e cpu-clock -F 20000 -g -o "$work/full/perf.data" -- \
    sh -c 'i=0; while [ $i -lt 600000 ]; do i=$((i+1)); done' && {
    if [[ $rc -eq 0 ]]; then fail "disk full: exit 0 (expected non-zero); stderr: $err"
    elif ! grep -qiE 'no space|disk.*full|ENOSPC' <<<"$err"; then
      fail "disk full: exit $rc without saying the disk is full: $err"
    elif perf_reads "disk full" "$work/full/perf.data"; then
      pass "disk full: exit $rc: $(grep -iE 'no space|full' <<<"$err" | head -1); partial file readable"
    fi
  }
  umount -l "$work/full"; mounts=()
else
  echo "skip: disk full (needs root to mount a tmpfs)"
fi

# 2. Output that cannot be written: a read-only bind mount, and a path under /proc.
mkdir -p "$work/ro"
if [[ $(id -u) -eq 0 ]] && mount --bind "$work/ro" "$work/ro" &&
   mount -o remount,ro,bind "$work/ro"; then
  mounts+=("$work/ro")
  run "read-only dir" 30 -e cpu-clock -o "$work/ro/perf.data" -- true && {
    if [[ $rc -ne 0 ]] && grep -qiE 'read-only|cannot|permission' <<<"$err" &&
       grep -q "$work/ro" <<<"$err"; then pass "read-only dir: exit $rc: $err"
    else fail "read-only dir: exit $rc, message must name the path and the reason: $err"; fi
  }
  umount -l "$work/ro"; mounts=()
fi
run "/proc output" 30 -e cpu-clock -o /proc/perfx-cannot-write/perf.data -- true && {
  if [[ $rc -ne 0 && -n "$err" ]]; then pass "/proc output: exit $rc: $(head -1 <<<"$err")"
  else fail "/proc output: exit $rc, stderr '$err'"; fi
}

# 3. Workload killed by a signal, and one that exits at once.
run "workload SIGKILLed" 30 -e cpu-clock -F 2000 -o "$work/killed.data" -- \
  sh -c 'i=0; while [ $i -lt 20000 ]; do i=$((i+1)); done; kill -9 $$' && {
  if [[ -s "$work/killed.data" ]] && perf_reads "workload SIGKILLed" "$work/killed.data"; then
    pass "workload SIGKILLed: exit $rc, file readable"
  else fail "workload SIGKILLed: no readable file (exit $rc): $err"; fi
}
run "workload exits at once" 30 -e cpu-clock -o "$work/true.data" -- true && {
  if [[ $rc -eq 0 ]] && perf_reads "workload exits at once" "$work/true.data"; then
    pass "workload exits at once"
  else fail "workload exits at once: exit $rc: $err"; fi
}
run "workload exit status" 30 -e cpu-clock -o "$work/false.data" -- sh -c 'exit 3' &&
  perf_reads "workload exit status" "$work/false.data" && pass "workload 'exit 3': perfx exit $rc"

# 4. A command that does not exist: 127 and a message naming it, like a shell.
run "no such command" 30 -e cpu-clock -o "$work/nocmd.data" -- /nonexistent/perfx-no-cmd && {
  if [[ $rc -eq 127 ]] && grep -q 'perfx-no-cmd' <<<"$err"; then pass "no such command: 127: $err"
  else fail "no such command: exit $rc (want 127 + message naming it): $err"; fi
}

# 5. SIGINT / SIGTERM at random moments, repeated. Job control on, so the background
#    perfx does not start with SIGINT ignored (as a non-interactive shell's jobs do).
set -m
for sig in INT TERM; do
  for i in 1 2 3 4; do
    f="$work/sig-$sig-$i.data"
    "$PERFX" record -q -e cpu-clock -F 4000 -g -o "$f" -- sleep 5 >/dev/null 2>"$work/err" &
    pid=$!
    delay="0.$((RANDOM % 7 + 3))$((RANDOM % 10))"   # 0.30 .. 0.99 s
    sleep "$delay"
    kill -s "$sig" "$pid" 2>/dev/null
    waited=0
    while kill -0 "$pid" 2>/dev/null && [[ $waited -lt 100 ]]; do sleep 0.1; waited=$((waited + 1)); done
    if kill -0 "$pid" 2>/dev/null; then
      kill -9 "$pid"; fail "SIG$sig #$i: still running 10 s after the signal"; continue
    fi
    wait "$pid"; rc=$?
    if [[ $rc -gt 128 && $rc -ne 130 && $rc -ne 143 ]] || grep -qE 'Sanitizer|runtime error' "$work/err"; then
      fail "SIG$sig #$i: crashed (exit $rc): $(head -2 "$work/err")"; continue
    fi
    if [[ -s "$f" ]]; then
      perf_reads "SIG$sig #$i" "$f" && pass "SIG$sig #$i: exit $rc, file readable"
    else
      # A signal that lands while perfx is still starting (slow under ASan) may end it
      # before anything was recorded: acceptable, it exits by the signal and writes nothing.
      if [[ ${delay:2:1} -lt 5 && ( $rc -eq 130 || $rc -eq 143 ) ]]; then
        echo "note: SIG$sig #$i after ${delay}s ended perfx during start-up (exit $rc, no file)"
      else
        fail "SIG$sig #$i after ${delay}s: no file written (exit $rc): $(head -2 "$work/err")"
      fi
    fi
  done
done
# Early signals, while -a -g is still creating the file and synthesizing the running
# tasks (~60 ms): the file is finalized all the same.
for sig in INT TERM; do
  for delay in 0.02 0.05; do
    f="$work/early-$sig-$delay.data"
    "$PERFX" record -q -a -g -o "$f" -- sleep 3 >/dev/null 2>"$work/err" &
    pid=$!
    sleep "$delay"
    kill -s "$sig" "$pid" 2>/dev/null
    wait "$pid"; rc=$?
    if [[ $rc -gt 128 && $rc -ne 130 && $rc -ne 143 ]] || grep -qE 'Sanitizer|runtime error' "$work/err"; then
      fail "early SIG$sig after ${delay}s: crashed (exit $rc): $(head -2 "$work/err")"
    elif [[ -s "$f" ]]; then
      perf_reads "early SIG$sig after ${delay}s" "$f" && pass "early SIG$sig after ${delay}s: file readable"
    else
      echo "note: early SIG$sig after ${delay}s ended perfx before it created the file"
    fi
  done
done
set +m

# 6. fd limit: -a with many events under ulimit -n 32.
events=cpu-clock,task-clock,page-faults,context-switches,cpu-migrations,minor-faults,major-faults
events=$events,alignment-faults,emulation-faults,dummy,cs,faults,migrations,bpf-output
( ulimit -n 32; exec "$LIMITED" 30 "$PERFX" record -a -e "$events" -o "$work/fd.data" -- sleep 0.2 ) \
  >/dev/null 2>"$work/err"
rc=$?
err=$(cat "$work/err")
if [[ $rc -eq 251 ]]; then fail "fd limit: hung"
elif [[ $rc -eq 250 ]]; then fail "fd limit: crashed: $err"
elif [[ $rc -ne 0 ]]; then
  if grep -qiE 'too many open files|fd limit|ulimit|EMFILE' <<<"$err"; then pass "fd limit: exit $rc: $(head -1 <<<"$err")"
  else fail "fd limit: exit $rc without naming the fd limit: $err"; fi
else
  perf_reads "fd limit" "$work/fd.data" && pass "fd limit: fit in 32 fds, file readable"
fi

# A low soft limit under a higher hard one is raised, as perf does: the same recording works.
( ulimit -Sn 32; exec "$LIMITED" 30 "$PERFX" record -a -e "$events" -o "$work/fd2.data" -- sleep 0.2 ) \
  >/dev/null 2>"$work/err"
rc=$?
if [[ $rc -eq 0 ]]; then perf_reads "soft fd limit" "$work/fd2.data" && pass "soft fd limit 32: raised, recorded"
else fail "soft fd limit 32 (hard $(ulimit -Hn)): exit $rc: $(head -2 "$work/err")"; fi

# 7. Ring buffer overrun: 1 data page, high rate, call chains. When perf sees LOST
#    records in the file, perfx must have said so on stderr.
run "overrun" 60 -e cpu-clock -c 20000 -g -m 1 -o "$work/lost.data" -- "${busy[@]}" && {
  if [[ $rc -ne 0 ]]; then fail "overrun: exit $rc: $err"
  elif perf_reads "overrun" "$work/lost.data"; then
    lost=0
    [[ $HAVE_PERF -eq 1 ]] && lost=$(perf report -f -i "$work/lost.data" --stats 2>/dev/null |
      awk -F: '/LOST events/ {split($2, a, " "); print a[1]; exit}')
    if [[ "${lost:-0}" -gt 0 ]] && ! grep -qi 'lost' <<<"$err"; then
      fail "overrun: perf counts $lost LOST records but perfx said nothing: $err"
    else pass "overrun: LOST records=${lost:-0}; perfx: $(grep -i lost <<<"$err" | head -1)"; fi
    # The count perfx prints is the one perf reads from the file (LOST_SAMPLES records).
    said=$(sed -n 's/.* samples, \([0-9]*\) lost).*/\1/p' <<<"$err" | head -1)
    if [[ $HAVE_PERF -eq 1 && -n "$said" ]]; then
      total=$(perf report -f -i "$work/lost.data" --stdio 2>/dev/null |
        awk '/^# Total Lost Samples:/ {print $NF; exit}')
      if [[ "$total" == "$said" ]]; then pass "overrun: perf's Total Lost Samples = perfx's $said"
      else fail "overrun: perfx said $said lost, perf's Total Lost Samples is '$total'"; fi
    fi
  fi
}

echo "record faults: $failures failure(s)"
[[ $failures -eq 0 ]]
