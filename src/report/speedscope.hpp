#pragma once
/// \file
/// speedscope export (https://www.speedscope.app/file-format-schema.json): shared.frames
/// and one "sampled" profile per thread (and per event when several are exported).

#include <ostream>

#include "perfx/error.hpp"
#include "profile/profile.hpp"
#include "report/export.hpp"

namespace perfx::report {

/// Writes the speedscope JSON. Samples keep their time order per thread; consecutive
/// samples with the same stack are merged (weights summed). Weights are periods in
/// nanoseconds for clock events (unit "nanoseconds"), else periods with unit "none".
[[nodiscard]] Result<void> write_speedscope(const profile::Profile& profile, std::ostream& out,
                                            const ExportOptions& options);

}  // namespace perfx::report
