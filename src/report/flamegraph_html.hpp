#pragma once
/// \file
/// Self-contained interactive HTML flame graph (vanilla JS from src/report/assets/,
/// inlined; the page loads nothing from the network).

#include <ostream>
#include <string>
#include <string_view>

#include "perfx/error.hpp"
#include "profile/profile.hpp"
#include "report/export.hpp"
#include "report/folded.hpp"

namespace perfx::report {

/// Writes the flame graph of one event of `profile` (see ExportOptions::event).
[[nodiscard]] Result<void> write_flamegraph_html(const profile::Profile& profile, std::ostream& out,
                                                 const ExportOptions& options);

/// Fills the page template with `title` and the JSON data object `data_json`
/// ({title, subtitle, unit, names, kinds, stacks, diff, icicle}; see flamegraph.js).
[[nodiscard]] Result<void> write_flamegraph_page(std::string_view title, std::string_view data_json,
                                                 std::ostream& out);

/// Appends `"names":[...],"kinds":[...]` for a folded profile's name table.
void append_folded_names_json(std::string& out, const FoldedProfile& folded);

}  // namespace perfx::report
