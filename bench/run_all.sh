#!/usr/bin/env bash
# `make bench`: every perfx-vs-perf comparison in one run, each printing its ratio.
# Timings vary on shared machines: every script takes medians; read the ratios.
#   usage: bench/run_all.sh [BUILD_DIR]
set -u
build=${1:-build}
here=$(cd "$(dirname "$0")" && pwd)
status=0
run() {
  echo "=== $*"
  "$@" || { echo "(failed: $*)"; status=1; }
}
run bash "$here/stat_vs_perf.sh" "$build"
run bash "$here/record_vs_perf.sh" "$build"
run bash "$here/report_vs_perf.sh" "$build/bin/perfx"
run bash "$here/report_inline_vs_perf.sh" "$build/bin/perfx"
run bash "$here/script_vs_perf.sh" "$build/bin/perfx"
run bash "$here/annotate_vs_perf.sh" "$build/bin/perfx"
run bash "$here/export_vs_report.sh" "$build"
exit $status
