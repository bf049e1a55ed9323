#pragma once
/// \file
/// The counts behind `perf report --stats` (perf_session__fprintf_nr_events()): every
/// record of the data section under its type, a PERF_RECORD_COMPRESSED record as well as
/// the records inside it; per event its samples and lost samples (LOST_SAMPLES counts).

#include <cstdint>
#include <string>
#include <vector>

#include "perfx/error.hpp"

namespace perfx::record {
class PerfDataReader;
}

namespace perfx::profile {

struct RecordCounts {
  /// Record types up to perf's PERF_RECORD_HEADER_MAX, by type number (index 0 unused);
  /// `names[t]` is the type's perf name, "UNKNOWN" for numbers perf does not name.
  std::vector<std::uint64_t> by_type;
  std::vector<std::string> names;
  std::uint64_t total = 0;  ///< sum of by_type
  struct Event {
    std::string name;
    std::uint64_t samples = 0;
    std::uint64_t lost = 0;  ///< PERF_RECORD_LOST_SAMPLES counts
  };
  std::vector<Event> events;  ///< one per attr of the recording
  /// A damaged file: what stopped the counting (profile::describe_damage()); the counts
  /// are of what was read before it.
  std::string damage;
};

/// Counts records one at a time (a pass that does more than count: perf's -D).
class RecordCounter {
 public:
  /// One record of type `type`; a SAMPLE of event `attr_index` (-1: unknown) counts for
  /// it, a LOST_SAMPLES adds `lost_samples` to it.
  void add(std::uint32_t type, int attr_index, std::uint64_t lost_samples = 0);
  /// The counts of `reader`'s pass so far, with its events' names and what stopped it
  /// (`read`: the pass's result).
  [[nodiscard]] RecordCounts finish(const record::PerfDataReader& reader,
                                    const Result<void>& read) const;

 private:
  std::vector<std::uint64_t> by_type_;
  std::vector<std::uint64_t> samples_, lost_;
};

/// Reads `reader` from where it stands to its end and counts.
[[nodiscard]] RecordCounts count_records(record::PerfDataReader& reader);

}  // namespace perfx::profile
