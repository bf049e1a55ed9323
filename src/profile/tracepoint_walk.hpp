#pragma once
/// \file
/// Walks the records of a perf.data recording of tracepoints (perf or perfx, file or pipe
/// mode) with the format of each tracepoint attr, taken from the recording's own tracing
/// data (HEADER_TRACING_DATA): what `perfx sched` and `perfx lock` build their models from.

#include <cstdint>
#include <functional>
#include <string>
#include <vector>

#include "event/tracepoint_format.hpp"
#include "perfx/error.hpp"
#include "perfx/records.hpp"

namespace perfx::profile {

/// Counters of one walk.
struct TracepointWalkStats {
  std::uint64_t records = 0;
  std::uint64_t samples = 0;
  std::uint64_t lost = 0;  ///< sum of PERF_RECORD_LOST counts
  std::uint64_t lost_records = 0;
  std::uint64_t malformed = 0;      ///< records that did not decode
  std::uint32_t nr_cpus = 0;        ///< HEADER_NRCPUS (online), 0 when absent
  std::uint64_t skipped_bytes = 0;  ///< damaged stretches the reader skipped
  /// What stopped the walk early (a truncated or damaged file) when samples had been read
  /// before it; empty when the whole file was read.
  std::string damage;
};

/// Calls `fn(record, format)` for every record of `path` in file order; `format` is the
/// tracepoint format of a SAMPLE's attr (nullptr for other records and non-tracepoint
/// attrs). A file another user owns is refused unless `force` (perf's owner check).
/// Errors: the reader's (kNotFound, kIo, kMalformedData) when nothing could be
/// read (damage after some samples is reported in TracepointWalkStats::damage), kNotFound
/// when the recording has tracepoint samples but no tracing data to decode them.
[[nodiscard]] Result<TracepointWalkStats> walk_tracepoint_recording(
    const std::string& path, bool force,
    const std::function<void(const record::Record&, const event::TracepointFormat*)>& fn);

}  // namespace perfx::profile
