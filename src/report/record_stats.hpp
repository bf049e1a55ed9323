#pragma once
/// \file
/// `perfx report --stats`: perf report's statistics of a recording instead of its table
/// (perf_session__fprintf_nr_events(), evlist__fprintf_nr_events()):
///
///   Aggregated stats:
///              TOTAL events:        118
///               MMAP events:          1  ( 0.8%)
///             SAMPLE events:         96  (81.4%)
///   cpu-clock stats:
///             SAMPLE events:         88
///
/// Every record of the data section counts under its type's perf name, a
/// PERF_RECORD_COMPRESSED record as well as the records inside it; then per event its
/// samples and lost samples (PERF_RECORD_LOST_SAMPLES counts).

#include <ostream>
#include <string>

#include "perfx/error.hpp"
#include "profile/record_counts.hpp"

namespace perfx::report {

/// Writes the statistics of `counts`. `skip_empty` (perf's default): types and events
/// with nothing to count are left out. A damaged file: the statistics of what was read,
/// then kMalformedData naming the damage.
[[nodiscard]] Result<void> write_record_stats(std::ostream& out,
                                              const profile::RecordCounts& counts,
                                              bool skip_empty = true);

}  // namespace perfx::report
