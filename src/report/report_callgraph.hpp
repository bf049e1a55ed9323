#pragma once
/// \file
/// perf report's call graphs under an entry (-g graph, flat, folded), printed from the
/// hist entry's call tree (profile::call_tree()).

#include <cstdint>
#include <ostream>

#include "perfx/report.hpp"
#include "profile/hists.hpp"

namespace perfx::report {

/// How call graphs are printed (perf's -g print type).
using GraphMode = perfx::CallGraphMode;

/// Prints the call graph `tree` of an entry: chains under `threshold` percent of `total`
/// are left out (perf's callchain threshold, cut to an integer period).
void print_call_graph(std::ostream& out, const profile::CallNode& tree, GraphMode mode,
                      double total, double threshold);

}  // namespace perfx::report
