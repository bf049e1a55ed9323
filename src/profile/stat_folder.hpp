#pragma once
/// \file
/// A stat recording's records folded into counts as perf's stat handlers do
/// (builtin-stat.c's process_thread_map_event, process_cpu_map_event,
/// process_stat_config_event, perf_event__process_stat_event, process_stat_round_event):
/// read_stat_recording() keeps every round, perf script prints each round's counts.

#include <optional>
#include <string>
#include <utility>

#include "perfx/records.hpp"
#include "perfx/stat_record.hpp"

namespace perfx::record {
class PerfDataReader;
}  // namespace perfx::record

namespace perfx::profile {

/// Folds the records of one recording, in file order. The events are the reader's
/// (pipe mode: those seen by the first STAT).
struct StatFolder {
  /// `path` names the input in errors; `keep_rounds` false leaves `out.rounds` empty
  /// (`current` holds the counts).
  StatFolder(const record::PerfDataReader& r, std::string p, bool keep = true)
      : reader(r), path(std::move(p)), keep_rounds(keep) {}

  const record::PerfDataReader& reader;
  std::string path;
  bool keep_rounds = true;
  StatRecording out;
  std::optional<CounterSnapshot> current;  ///< the counts so far (cumulative)
  bool have_threads = false, have_cpus = false;
  std::uint64_t stats = 0;  ///< STAT records folded

  /// Folds `r` (other records are ignored). Errors: kMalformedData for a STAT before the
  /// maps, naming an unknown id, a CPU not in the CPU_MAP or a thread past the THREAD_MAP,
  /// and for a CPU_MAP that does not decode.
  [[nodiscard]] Result<void> on(const record::Record& r, std::uint64_t offset);

 private:
  Result<void> start();
  Result<void> stat(const record::Stat& st, std::uint64_t offset);
};

}  // namespace perfx::profile
