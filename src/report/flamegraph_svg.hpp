#pragma once
/// \file
/// Static SVG flame graph in the style of FlameGraph's flamegraph.pl: one <rect> per
/// call-tree node with a <title> tooltip ("name (N samples, P%)"), labels truncated
/// to the rectangle's width, colours by frame kind.

#include <ostream>

#include "perfx/error.hpp"
#include "profile/profile.hpp"
#include "report/export.hpp"

namespace perfx::report {

/// Writes the SVG flame graph of one event (options.event), options.width pixels wide;
/// options.inverted draws an icicle (roots at the top).
[[nodiscard]] Result<void> write_flamegraph_svg(const profile::Profile& profile, std::ostream& out,
                                                const ExportOptions& options);

}  // namespace perfx::report
