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
# CLI11's --help starts with the command's one-line description.
# sed reads the whole text: with head, perfx could die of SIGPIPE and pipefail fail the build
name=$("$perfx" "$cmd" --help | sed -n 1p)
"$help2man" --no-info --section=1 --name="$name" --help-option="$cmd --help" \
  --version-option=--version --output="$out.tmp" "$perfx"
upper=$(echo "perfx-$cmd" | tr '[:lower:]' '[:upper:]')
# help2man names the page after the binary: make it perfx-CMD, as perf's pages are.
# "\:" lets a long comma list (comm,tid,pid,...) break after its commas.
sed -e "s/^\\.TH PERFX /.TH $upper /" -e '/^[^.]/s/,\([A-Za-z]\)/,\\:\1/g' -e "/^\\.SH NAME/{n;s/^perfx /perfx-$cmd /}" \
  "$out.tmp" >"$out"
rm -f "$out.tmp"
