#pragma once
/// \file
/// perf report's call graphs under an entry (-g graph, fractal, flat, folded), printed
/// from the hist entry's call tree (profile::call_tree()) as perf's ui/stdio/hist.c does.

#include <cstdint>
#include <ostream>

#include "perfx/report.hpp"
#include "profile/hists.hpp"

namespace perfx::report {

/// How call graphs are printed (perf's -g print type).
using GraphMode = perfx::CallGraphMode;

/// perf's callchain_param for printing.
struct GraphStyle {
  GraphMode mode = GraphMode::kGraph;
  double threshold = 0.5;         ///< percent: of the total, of the parent's callees (fractal)
  std::uint32_t print_limit = 0;  ///< 0 = all
  CallGraphValue value = CallGraphValue::kPercent;
  /// perf's "sort by sym" rule: a graph without a percentage omits its first frame.
  bool skip_first_frame = false;
};

/// The call tree key of -g's sort_key.
[[nodiscard]] profile::CallKey call_key(CallGraphKey key);

/// The style of `options` (-g, -s).
[[nodiscard]] GraphStyle graph_style(const ReportOptions& options);

/// Prints the call graph `tree` of an entry of `profile`. `total` is the event's total period
/// (percentages and the threshold of graph, flat and folded); `entry_period` the entry's
/// shown period (children, or self), which a single chain must reach to be printed
/// without a percentage, and the base of fractal percentages.
void print_call_graph(std::ostream& out, const profile::Profile& profile,
                      const profile::CallNode& tree, const GraphStyle& style, std::uint64_t total,
                      std::uint64_t entry_period);

}  // namespace perfx::report
