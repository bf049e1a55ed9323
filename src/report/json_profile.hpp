#pragma once
/// \file
/// perfx's own JSON export (format "perfx-profile", version 1; schema in docs/exports.md):
/// the whole resolved profile (events, threads, mappings, frames, stacks, columnar
/// samples) plus a per-event function summary (the report: self and total samples).

#include <ostream>

#include "perfx/error.hpp"
#include "profile/profile.hpp"
#include "report/export.hpp"

namespace perfx::report {

/// Version written as "version"; bumped on incompatible schema changes.
inline constexpr int kJsonProfileVersion = 1;

/// Writes the JSON document (options.event restricts samples and summary to one event).
[[nodiscard]] Result<void> write_json_profile(const profile::Profile& profile, std::ostream& out,
                                              const ExportOptions& options);

}  // namespace perfx::report
