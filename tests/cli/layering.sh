#!/usr/bin/env bash
# The dependency rules of docs/architecture.md, checked on the source tree (no build
# needed): which src/ module may include which, public headers include only public
# headers, the CLI (tools/perfx) includes only include/perfx and its own helpers, and no
# CLI file is over 400 lines. Prints every violation as "file: rule".
#
# ENFORCE=1: any violation fails (ENFORCE=0 lists them and reports the test skipped, 77,
# for a tree in the middle of a restructuring). Env: SOURCE_DIR (default: the checkout
# holding this script).
set -u
ENFORCE=1

root=${SOURCE_DIR:-$(cd "$(dirname "$0")/../.." && pwd)}
cd "$root" || exit 1

modules="core sys event record symbol profile report api"
# module -> the modules its files may include (itself always). The pure modules never
# include sys/; report presents and never loads (no record/, symbol/).
allowed() {
  case $1 in
    core) echo "core" ;;
    event) echo "core event" ;;
    record) echo "core record" ;;
    symbol) echo "core symbol" ;;
    profile) echo "core event record symbol profile" ;;
    report) echo "core event profile report" ;;
    sys) echo "core event record symbol sys" ;;
    api) echo "core event record symbol profile report api" ;;
  esac
}

violations=0
violation() {
  echo "$1: $2"
  violations=$((violations + 1))
}

# The quoted includes of a file that name a src/ module ("record/decoder.hpp" -> record).
module_includes() {
  grep -hoE '^[[:space:]]*#[[:space:]]*include[[:space:]]+"[a-z_]+/' "$1" |
    sed -E 's/.*"([a-z_]+)\/$/\1/' | sort -u
}

# 1. src/<module> includes only what its layer may.
for m in $modules; do
  ok=" $(allowed "$m") "
  while IFS= read -r f; do
    for dep in $(module_includes "$f"); do
      case " $modules " in *" $dep "*) ;; *) continue ;; esac
      case "$ok" in
        *" $dep "*) ;;
        *) violation "$f" "src/$m may not include $dep/ (allowed: $(allowed "$m"))" ;;
      esac
    done
  done < <(find "src/$m" -name '*.cpp' -o -name '*.hpp' | sort)
done

# 2. Public headers include only public headers and system/third-party ones users have
#    (no src/ module, no fmt).
while IFS= read -r f; do
  for dep in $(module_includes "$f"); do
    [ "$dep" = perfx ] || violation "$f" "a public header includes \"$dep/...\" (only perfx/*)"
  done
  if grep -qE '^[[:space:]]*#[[:space:]]*include[[:space:]]+<fmt/' "$f"; then
    violation "$f" "a public header includes fmt"
  fi
done < <(find include/perfx -name '*.hpp' | sort)

# 3. The CLI: only include/perfx and its own helpers; each file at most 400 lines.
while IFS= read -r f; do
  for dep in $(module_includes "$f"); do
    # perfx/* or the CLI's own folders (tools/perfx/data: generated option tables)
    [ "$dep" = perfx ] || [ -d "tools/perfx/$dep" ] ||
      violation "$f" "tools/perfx includes src/ header \"$dep/...\""
  done
  lines=$(wc -l <"$f")
  [ "$lines" -le 400 ] || violation "$f" "$lines lines (tools/perfx files stay within 400)"
done < <(find tools/perfx -name '*.cpp' -o -name '*.hpp' | sort)

if [ "$violations" -eq 0 ]; then
  echo "ok: the tree follows docs/architecture.md's dependency rules"
  exit 0
fi
echo "$violations violation(s) of docs/architecture.md's dependency rules"
[ "$ENFORCE" = 1 ] && exit 1
echo "(not enforced yet: ENFORCE=0 in $0)"
exit 77
