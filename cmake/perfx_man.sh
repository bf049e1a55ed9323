#!/usr/bin/env bash
# Writes the man page of perfx (no COMMAND) or of `perfx COMMAND` to OUT with help2man,
# from the same --help text the binary prints. Usage: perfx_man.sh HELP2MAN PERFX OUT [COMMAND]
set -euo pipefail
help2man=$1 perfx=$2 out=$3 cmd=${4:-}
if [ -z "$cmd" ]; then
  "$help2man" --no-info --section=1 --name="a perf-compatible profiler for Linux" \
    --version-option=--version --output="$out" "$perfx"
  exit 0
fi
# COMMAND is a command (buildid-list) or a command and its subcommand joined by a dash
# (stat-report: `perfx stat report`, perf's perf-stat-report page name).
words=$cmd
"$perfx" "$cmd" --help >/dev/null 2>&1 || words=${cmd/-/ }
# CLI11's --help starts with the command's one-line description.
# sed reads the whole text: with head, perfx could die of SIGPIPE and pipefail fail the build
# shellcheck disable=SC2086 # words is one or two words
name=$("$perfx" $words --help | sed -n 1p)
"$help2man" --no-info --section=1 --name="$name" --help-option="$words --help" \
  --version-option=--version --output="$out.tmp" "$perfx"
upper=$(echo "perfx-$cmd" | tr '[:lower:]' '[:upper:]')
# help2man names the page after the binary: make it perfx-CMD, as perf's pages are.
# "\:" lets a long comma list (comm,tid,pid,...) break after its commas.
sed -e "s/^\\.TH PERFX /.TH $upper /" -e '/^[^.]/s/,\([A-Za-z]\)/,\\:\1/g' -e "/^\\.SH NAME/{n;s/^perfx /perfx-$cmd /}" \
  "$out.tmp" >"$out"
rm -f "$out.tmp"
