#pragma once
/// \file
/// `perfx stat` output in perf stat's three layouts: the text table, CSV (-x SEP) and
/// JSON lines (-j), as perf 6.1 prints them (docs/stat-output.md). Pure. Declared public
/// in perfx/stat.hpp (defined in stat_format.cpp); these names keep the report::
/// spelling for the library's own code.

#include "perfx/stat.hpp"

namespace perfx::report {

using perfx::aggregates_cpus;
using perfx::compute_metric;
using perfx::format_stat;
using perfx::format_stat_interval;
using perfx::format_stat_started_on;
using perfx::format_stat_summary;
using perfx::run_stats;
using perfx::RunStats;
using perfx::stat_unit;
using perfx::StatAggr;
using perfx::StatEntry;
using perfx::StatFormatOptions;
using perfx::StatLayout;
using perfx::StatMetric;
using perfx::StatReport;
using perfx::StatUnit;

}  // namespace perfx::report
