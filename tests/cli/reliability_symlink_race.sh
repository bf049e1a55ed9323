#!/usr/bin/env bash
# Output files against a symlink race (docs/reliability.md, "Files perfx writes"): a second,
# unprivileged user (made here with useradd, removed at the end) plants and removes a
# symlink to a root-owned victim file at the output's name as fast as it can, while root
# runs `perfx record -o` 30 times and `perfx report --format json -o` (an export) 30
# times in a world-writable directory without the sticky bit (so the kernel's
# fs.protected_symlinks does not step in). Each run must either succeed or fail with one
# line naming the file; the victim must never be written.
# Needs root, useradd/userdel, setpriv and cc (skip with 77 otherwise).
set -uo pipefail
: "${PERFX:?}"
[[ $(id -u) -eq 0 ]] || { echo "SKIP: needs root (a second user races root's perfx)"; exit 77; }
for tool in useradd userdel setpriv cc; do
  command -v "$tool" >/dev/null || { echo "SKIP: $tool missing"; exit 77; }
done

user="perfxrace$$"
work=$(mktemp -d /tmp/perfx-race.XXXXXX)
racer_pid=
cleanup() {
  [[ -n $racer_pid ]] && kill "$racer_pid" 2>/dev/null && wait "$racer_pid" 2>/dev/null
  userdel "$user" >/dev/null 2>&1
  rm -rf "$work"
}
trap cleanup EXIT
useradd -M -r -s /usr/sbin/nologin "$user" >/dev/null 2>&1 ||
  { echo "SKIP: useradd could not make a test user"; exit 77; }
uid=$(id -u "$user") gid=$(id -g "$user")

# The racer: symlink(victim, name), a random pause, then remove the link (never a file).
# After its first planted link it creates READY, so the test knows the race is on.
cat > "$work/racer.c" <<'C'
#include <fcntl.h>
#include <stdlib.h>
#include <sys/stat.h>
#include <unistd.h>
int main(int argc, char** argv) {
  if (argc != 4) return 2;
  srand((unsigned)getpid());
  int ready = 0;
  for (;;) {
    if (symlink(argv[1], argv[2]) == 0 && !ready) {
      ready = 1;
      int fd = open(argv[3], O_WRONLY | O_CREAT | O_EXCL, 0644);
      if (fd >= 0) close(fd);
    }
    for (volatile int i = rand() % 4000; i > 0; --i) {
    }
    struct stat st;
    if (lstat(argv[2], &st) == 0 && S_ISLNK(st.st_mode)) unlink(argv[2]);
  }
}
C
cc -O2 -o "$work/racer" "$work/racer.c" || { echo "SKIP: cc cannot build the racer"; exit 77; }
chmod 755 "$work" "$work/racer"

mkdir -m 755 "$work/root"  # root's: the victim and the input recording
echo "precious root file" > "$work/root/victim"
cp "$work/root/victim" "$work/root/victim.orig"
"$PERFX" record -q -e cpu-clock -o "$work/root/in.data" -- true >/dev/null 2>&1 ||
  { echo "FAIL: cannot record the input"; exit 1; }
mkdir -m 777 "$work/shared"  # world-writable, not sticky: the race needs no kernel bug
chmod 777 "$work/shared"

failures=0
fail() { echo "FAIL: $*"; failures=$((failures + 1)); }

race() {  # race NAME OUTPUT -- command...
  local name=$1 out=$2
  shift 3
  local won=0 refused=0
  rm -f "$work/shared/ready"
  setpriv --reuid="$uid" --regid="$gid" --clear-groups "$work/racer" "$work/root/victim" "$out" \
    "$work/shared/ready" &
  racer_pid=$!
  for _ in $(seq 250); do [[ -e $work/shared/ready ]] && break; sleep 0.02; done
  [[ -e $work/shared/ready ]] || fail "$name: the racer never planted its link"
  for run in $(seq 30); do
    if "$@" >/dev/null 2>"$work/err"; then
      won=$((won + 1))
    else
      refused=$((refused + 1))
      if [[ $(wc -l < "$work/err") -ne 1 ]] || ! grep -qF "$out" "$work/err"; then
        fail "$name run $run: not one line naming $out: $(head -3 "$work/err")"
      fi
    fi
    cmp -s "$work/root/victim" "$work/root/victim.orig" || {
      fail "$name run $run: the victim was written through the link"
      cp "$work/root/victim.orig" "$work/root/victim"
    }
    [[ $(stat -c %U "$work/root/victim") == root ]] || fail "$name run $run: victim changed owner"
    rm -f "$out" "$out.old"  # let the racer plant again
  done
  kill "$racer_pid" 2>/dev/null
  wait "$racer_pid" 2>/dev/null
  racer_pid=
  echo "ok: $name: 30 runs against the racer: $won written, $refused refused with one line"
}

race "record -o" "$work/shared/perf.data" -- \
  "$PERFX" record -q -e cpu-clock -o "$work/shared/perf.data" -- true
race "report --format json -o" "$work/shared/out.json" -- \
  "$PERFX" report -i "$work/root/in.data" --format json -o "$work/shared/out.json"

# Leftovers: no temporary of a finished export stays behind.
left=$(find "$work/shared" -name '.*.tmp' | wc -l)
[[ $left -eq 0 ]] || fail "$left temporary file(s) left in the shared directory"
echo "symlink race: $failures failure(s)"
[[ $failures -eq 0 ]]
