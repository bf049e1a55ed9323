#pragma once
/// \file
/// CounterSnapshot(s) -> StatReport entries: aggregation (global, per CPU, per thread,
/// per socket/die/core/node), means and run-to-run noise over -r runs. Pure. Declared
/// public in perfx/stat.hpp (defined in stat_model.cpp).

#include "perfx/stat.hpp"
#include "report/stat_format.hpp"

namespace perfx::report {

using perfx::build_stat_entries;
using perfx::describe_stat_target;
using perfx::StatModelOptions;

}  // namespace perfx::report
