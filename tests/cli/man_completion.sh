#!/usr/bin/env bash
# The man pages (made by help2man from --help, cmake/PerfxManCompletion.cmake) render
# without warnings, one per command; `cmake --install` installs them and the bash
# completion, which completes commands, options, events and sort keys. Env: PERFX, BUILD_DIR.
set -u
: "${PERFX:?}" "${BUILD_DIR:?}"
command -v man >/dev/null || { echo "man missing (man-db): run scripts/setup"; exit 77; }
source "$(dirname "$0")/common.bash"
src=$(cd "$(dirname "$0")/../.." && pwd)
mandir=$BUILD_DIR/man/man1
[ -d "$mandir" ] || { echo "no $mandir: help2man missing at configure time (scripts/setup)"; exit 77; }

cmds=$("$PERFX" --help | awk '/^commands:/ { f = 1; next } f && /^   [a-z]/ { print $1 }')
check "perfx --help lists commands" '[ -n "$cmds" ]'
for page in perfx $(printf 'perfx-%s\n' $cmds); do
  f=$mandir/$page.1
  MANWIDTH=80 LC_ALL=C.UTF-8 man --warnings -l "$f" >"$tmp/$page.txt" 2>"$tmp/$page.err"
  rc=$?
  check "man -l $page.1 renders with no warnings" '[ $rc -eq 0 ] && [ ! -s "$tmp/$page.err" ] && [ -s "$tmp/$page.txt" ]'
done
# One source: the page carries the --help text.
check "perfx-record.1 has record's options" 'grep -q -- "--call-graph" "$tmp/perfx-record.txt"'
check "perfx-report.1 is named perfx-report" 'grep -q "^NAME" "$tmp/perfx-report.txt" && grep -q "perfx-report - " "$tmp/perfx-report.txt"'

# cmake --install puts the pages and the completion under the prefix.
cmake --install "$BUILD_DIR" --prefix "$tmp/inst" >/dev/null 2>"$tmp/install.err"
check "cmake --install succeeds" '[ $? -eq 0 ]'
check "perfx-record.1 installed" '[ -s "$tmp/inst/share/man/man1/perfx-record.1" ]'
MANPATH=$tmp/inst/share/man MANWIDTH=80 man perfx-record >"$tmp/installed.txt" 2>/dev/null
check "man perfx-record finds the installed page" 'grep -q -- "--call-graph" "$tmp/installed.txt"'
comp=$tmp/inst/share/bash-completion/completions/perfx
check "the bash completion is installed" '[ -s "$comp" ]'
[ -s "$comp" ] || comp=$src/cmake/perfx-completion.bash

# complete WORDS...: what the completion offers for the last word, in a fresh bash.
complete_words() {
  PATH="$(dirname "$PERFX"):$PATH" bash --norc --noprofile -c '
    source "$1"; shift
    COMP_WORDS=("$@"); COMP_CWORD=$(($# - 1))
    _perfx; printf "%s\n" "${COMPREPLY[@]}"' _ "$comp" "$@"
}
check "perfx rec -> record" '[ "$(complete_words perfx rec)" = record ]'
# perf report has two --so options (--sort, --socket-filter): --so offers both, --sor is --sort.
check "perfx report --so -> --sort, --socket-filter" \
  '[ "$(complete_words perfx report --so | tr "\n" " ")" = "--socket-filter --sort " ]'
check "perfx report --sor -> --sort" '[ "$(complete_words perfx report --sor)" = --sort ]'
check "perfx --no-p -> --no-pager" '[ "$(complete_words perfx --no-p)" = --no-pager ]'
check "perfx record -e task-c -> task-clock" \
  'complete_words perfx record -e task-c | grep -qx task-clock'
check "perfx report --sort dso,sy -> dso,sym" \
  'complete_words perfx report --sort dso,sy | grep -qx dso,sym'
check "perfx stat --per-t -> --per-thread" '[ "$(complete_words perfx stat --per-t)" = --per-thread ]'
exit $fail
