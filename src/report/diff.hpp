#pragma once
/// \file
/// `perfx diff`: compares two profiles the way `perf diff` does (self overhead per
/// shared object + symbol, "Baseline" = old percent, "Delta Abs" = new - old percent,
/// rows sorted by the absolute delta), and draws a differential flame graph.

#include <cstdint>
#include <optional>
#include <ostream>
#include <string>
#include <vector>

#include "perfx/error.hpp"
#include "perfx/report.hpp"
#include "profile/profile.hpp"
#include "profile/thread_filter.hpp"
#include "report/export.hpp"

namespace perfx::report {

using perfx::diff_profiles;
using perfx::DiffCompute;
using perfx::DiffOptions;
using perfx::DiffRow;
using perfx::DiffSection;
using perfx::parse_diff_compute;
using perfx::write_diff_table;

/// Differential flame graph (HTML, same viewer as `--format html`): frame widths are
/// NEW's samples, colours the change of each path's share of all samples (red = grew,
/// blue = shrank, white = unchanged). Options as for the flame graph.
[[nodiscard]] Result<void> write_diff_flamegraph_html(const profile::Profile& old_profile,
                                                      const profile::Profile& new_profile,
                                                      std::ostream& out,
                                                      const ExportOptions& options);

}  // namespace perfx::report
