#!/usr/bin/env bash
# Files from other users (docs/reliability.md): `perfx report`, `script`, `diff`, `sched`
# and `lock` refuse a perf.data not owned by the caller or root unless --force (perf's
# rule), and `perfx record` never follows a symlink when it replaces perf.data.old.
#   - as nobody (setpriv) on a root-owned file: allowed;
#   - as root on a file owned by nobody: refused with a reason naming --force; allowed
#     with --force;
#   - perf.data.old -> victim symlink: the victim is untouched after two recordings.
# Needs root and setpriv (skip otherwise); skips until report/script take --force.
set -uo pipefail
: "${PERFX:?}"
[[ $(id -u) -eq 0 ]] || { echo "SKIP: needs root (chown, setpriv)"; exit 77; }
command -v setpriv >/dev/null || { echo "SKIP: setpriv missing"; exit 77; }
cmds=()
for c in report script; do
  if "$PERFX" "$c" --help 2>/dev/null | grep -q -- '--force'; then cmds+=("$c"); fi
done
[[ ${#cmds[@]} -gt 0 ]] || { echo "SKIP: perfx report/script have no --force yet"; exit 77; }

work=$(mktemp -d /tmp/perfx-owner.XXXXXX)
trap 'rm -rf "$work"' EXIT
chmod 755 "$work"
failures=0
fail() { echo "FAIL: $*"; failures=$((failures + 1)); }
as_nobody() { setpriv --reuid=65534 --regid=65534 --clear-groups "$@"; }

# A valid recording, by perf if present (else perfx record).
if command -v perf >/dev/null && perf record -q -e cpu-clock -o "$work/root.data" -- true 2>/dev/null; then :
elif "$PERFX" record -q -e cpu-clock -o "$work/root.data" -- true 2>/dev/null; then :
else echo "FAIL: cannot make a perf.data"; exit 1; fi
chmod 644 "$work/root.data"
cp "$work/root.data" "$work/nobody.data"
chown 65534:65534 "$work/nobody.data"

bin="$work/perfx"   # a copy nobody can surely execute
cp "$PERFX" "$bin" && chmod 755 "$bin"
for c in "${cmds[@]}"; do
  if ! as_nobody "$bin" "$c" -i "$work/root.data" >/dev/null 2>"$work/err"; then
    fail "$c as nobody on a root-owned file was refused: $(head -2 "$work/err")"
  else echo "ok: $c as nobody reads a root-owned file"; fi

  if "$bin" "$c" -i "$work/nobody.data" >/dev/null 2>"$work/err"; then
    fail "$c as root read a file owned by nobody without --force"
  elif ! grep -q -- '--force' "$work/err" || ! grep -qi 'own' "$work/err"; then
    fail "$c refused nobody's file without naming the owner rule and --force: $(cat "$work/err")"
  else echo "ok: $c refuses nobody's file: $(head -1 "$work/err")"; fi

  if ! "$bin" "$c" --force -i "$work/nobody.data" >/dev/null 2>"$work/err"; then
    fail "$c --force still refused nobody's file: $(head -2 "$work/err")"
  else echo "ok: $c --force reads nobody's file"; fi
done

# perfx diff takes two files: each is checked the same way.
if "$bin" diff "$work/root.data" "$work/nobody.data" >/dev/null 2>"$work/err"; then
  fail "diff read a file owned by nobody without --force"
elif ! grep -q -- '--force' "$work/err"; then
  fail "diff refused nobody's file without naming --force: $(cat "$work/err")"
else echo "ok: diff refuses nobody's file"; fi
if ! "$bin" diff -f "$work/root.data" "$work/nobody.data" >/dev/null 2>"$work/err"; then
  fail "diff -f still refused nobody's file: $(head -2 "$work/err")"
else echo "ok: diff -f reads nobody's file"; fi

# sched and lock read through the same check; -f goes before or after the subcommand,
# as perf's OPT_PARENT options.
if command -v perf >/dev/null && perf sched record -o "$work/sched.data" -- true >/dev/null 2>&1; then
  chown 65534:65534 "$work/sched.data"
  for sub in "sched latency" "sched timehist" "sched map" "lock contention"; do
    # shellcheck disable=SC2086  # the command and its subcommand
    if "$bin" $sub -i "$work/sched.data" >/dev/null 2>"$work/err"; then
      fail "$sub read a file owned by nobody without -f"
    elif ! grep -q -- '--force' "$work/err"; then
      fail "$sub refused nobody's file without naming --force: $(cat "$work/err")"
    else echo "ok: $sub refuses nobody's file"; fi
  done
  "$bin" sched -f latency -i "$work/sched.data" >/dev/null 2>"$work/err" ||
    fail "sched -f latency refused nobody's file: $(head -2 "$work/err")"
  "$bin" sched timehist -f -i "$work/sched.data" >/dev/null 2>"$work/err" ||
    fail "sched timehist -f refused nobody's file: $(head -2 "$work/err")"
  "$bin" lock -f contention -i "$work/sched.data" >/dev/null 2>"$work/err"
  grep -q "no lock:contention" "$work/err" || fail "lock -f contention: $(head -2 "$work/err")"
fi

# perf.data.old symlink: rotation must replace the link, never write through it.
if "$PERFX" record --help >/dev/null 2>&1; then
  echo precious > "$work/victim"
  ln -s "$work/victim" "$work/out.data.old"
  for i in 1 2; do
    "$PERFX" record -q -e cpu-clock -o "$work/out.data" -- true >/dev/null 2>"$work/err" ||
      fail "record #$i failed: $(head -2 "$work/err")"
  done
  if [[ "$(cat "$work/victim")" != precious ]]; then fail "perf.data.old symlink was followed"
  elif [[ -L "$work/out.data.old" ]]; then fail "perf.data.old is still the symlink"
  else echo "ok: perf.data.old symlink replaced, target untouched"; fi
fi
echo "ownership: $failures failure(s)"
[[ $failures -eq 0 ]]
