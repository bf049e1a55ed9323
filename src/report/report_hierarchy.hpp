#pragma once
/// \file
/// perf report --hierarchy: hist entries nested by sort key, one level per key, each
/// level's entry summing the entries below it (perf's hists__hierarchy_insert_entry()
/// and hist_entry__hierarchy_fprintf()); call graphs under the last level's entries.

#include <cstdint>
#include <ostream>
#include <vector>

#include "profile/hists.hpp"
#include "report/report_callgraph.hpp"
#include "report/report_columns.hpp"

namespace perfx::report {

/// What print_hierarchy() needs of the event's report.
struct HierarchyInput {
  const profile::Hists& hists;
  const ReportOptions& options;
  const ReportColumns& columns;                 ///< sized over `rows`
  std::vector<const profile::HistEntry*> rows;  ///< the entries, in perf's output order
  bool graphs = false;                          ///< print the entries' call graphs
  std::uint64_t total = 0;                      ///< the event's total period
};

/// Writes the header lines (after "# ") and the nested entries.
void print_hierarchy(std::ostream& out, const HierarchyInput& in);

}  // namespace perfx::report
