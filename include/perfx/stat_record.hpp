#pragma once
/// \file
/// `perf stat record` and `perf stat report` as a library: a stat session's readings
/// written to a perf.data that perf 6.1 reads (attrs with their ids, HEADER_STAT and the
/// system features, then THREAD_MAP, CPU_MAP, STAT_CONFIG, one STAT per event, CPU and
/// thread per reading and a STAT_ROUND after each), and such a file, from perf or perfx,
/// read back into the counts model the live `stat` prints (stat.hpp).
///
/// \code
///   perfx::StatRecorder rec("perf.data", {});     // nothing written yet
///   rec.attach(cfg);                               // cfg: a StatSessionConfig
///   auto runs = perfx::run_stat_session(cfg);
///   if (auto ok = rec.finish(*runs); !ok) fail(ok.error());
///
///   auto file = perfx::read_stat_recording("perf.data");
///   for (const auto& p : perfx::stat_recording_printouts(*file, {}))
///     std::fputs(p.interval ? perfx::format_stat_interval(p.report, {}, p.time_s,
///     p.header).c_str()
///                           : perfx::format_stat(p.report, {}).c_str(), stderr);
/// \endcode

#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "perfx/counter.hpp"
#include "perfx/error.hpp"
#include "perfx/export.hpp"
#include "perfx/stat.hpp"

namespace perfx {

/// perf 6.1's number of an aggregation mode in STAT_CONFIG (enum aggr_mode: 0 none/-A,
/// 1 global, 2 socket, 3 die, 4 core, 5 thread, 7 node).
[[nodiscard]] PERFX_API std::uint64_t stat_aggr_code(StatAggr aggr) noexcept;
/// The StatAggr of a STAT_CONFIG aggr_mode number; nullopt for one perfx does not know.
[[nodiscard]] PERFX_API std::optional<StatAggr> stat_aggr_from_code(std::uint64_t code) noexcept;

/// How a StatRecorder describes the run.
struct PERFX_API StatRecordOptions {
  StatAggr aggr = StatAggr::kGlobal;  ///< written to STAT_CONFIG (the report's default)
  std::uint64_t interval_ms = 0;      ///< -I (STAT_CONFIG; rounds are INTERVAL then)
  /// HEADER_CMDLINE after the running binary's path, which goes first as perf writes it
  /// ({"stat", "record", "-e", ...}): the report's "Performance counter stats for '...'".
  std::vector<std::string> cmdline;
  std::vector<std::string> thread_comms;  ///< THREAD_MAP comms (--per-thread), by row
  std::string version = "perfx";          ///< HEADER_VERSION ("perf version" of the header)
};

/// Writes a `perf stat record` perf.data from a stat session. The file is created when
/// the counters are first read (their ids are known then): at the first -I interval, or
/// at finish(). It is created as `perfx record -o` creates its output (OutputFile
/// kNewKeepOld: an existing file becomes `<path>.old`, never through a symlink, 0600).
/// Move-only; attach() keeps a pointer to this object in the config's callback, so it
/// must outlive the session.
class PERFX_API StatRecorder {
 public:
  StatRecorder(std::string path, StatRecordOptions options);
  StatRecorder(StatRecorder&&) noexcept;
  StatRecorder& operator=(StatRecorder&&) noexcept;
  ~StatRecorder();

  /// Chains a callback into `cfg.on_read`: each -I reading is written as STAT records and
  /// an INTERVAL round. An error there is kept and returned by finish().
  void attach(StatSessionConfig& cfg);
  /// Writes the last reading of `runs` (one run: perf refuses -r with record) and, without
  /// -I, the FINAL round with the run's wall time; then the features and the header.
  /// Errors: kInvalidArgument (no run, more than one), the file's kIo/kPermission, or the
  /// first error of an interval write.
  [[nodiscard]] Result<void> finish(const std::vector<StatRun>& runs);

 private:
  struct Impl;
  std::unique_ptr<Impl> impl_;
};

/// One reading of a stat recording (the STAT records before a STAT_ROUND).
struct PERFX_API StatRecordingRound {
  CounterSnapshot counts;     ///< cumulative counts, events x CPUs x threads
  std::uint64_t time_ns = 0;  ///< the round's time: since the start (INTERVAL), wall (FINAL)
  bool final = false;         ///< PERF_STAT_ROUND_TYPE__FINAL
};

/// A stat recording read back.
struct PERFX_API StatRecording {
  /// HEADER_CMDLINE; empty when absent and for a pipe-mode file (perf's report ignores it
  /// there and says 'pipe').
  std::vector<std::string> cmdline;
  StatAggr aggr = StatAggr::kGlobal;       ///< STAT_CONFIG's aggregation
  std::uint64_t interval_ms = 0;           ///< STAT_CONFIG's interval (0: none)
  std::vector<int> cpus;                   ///< CPU_MAP (-1: any CPU)
  std::vector<std::int64_t> threads;       ///< THREAD_MAP pids (-1: any thread)
  std::vector<std::string> thread_comms;   ///< THREAD_MAP comms
  std::vector<StatRecordingRound> rounds;  ///< in file order
  /// Where each CPU (by number) sat on the recording machine, from the file's
  /// CPU_TOPOLOGY (socket, die, core) and NUMA_TOPOLOGY (node: the node's index in that
  /// feature, as perf's perf_env__numa_node() numbers it); empty without CPU_TOPOLOGY (a
  /// pipe-mode file).
  std::vector<CpuPlace> cpu_places;
};

/// Reads a `perf stat record` file (perf's or perfx's). Errors: the file's (kNotFound,
/// kMalformedData ...); kInvalidArgument "... holds no stat data" for a recording without
/// STAT records (a sampling perf.data); kMalformedData for a STAT naming an unknown id, a
/// CPU not in the CPU_MAP or a thread past the THREAD_MAP.
[[nodiscard]] PERFX_API Result<StatRecording> read_stat_recording(const std::string& path);

/// What `perf stat report` prints for one round.
struct PERFX_API StatPrintout {
  StatReport report;
  bool interval = false;  ///< print with format_stat_interval() (else format_stat())
  double time_s = 0;      ///< interval: the round's time
  bool header = false;    ///< interval: print the column header first (every 25th)
};

/// The printouts of `rec` as perf stat report makes them: each INTERVAL round (the delta
/// from the previous one) when the recording has an interval, else the FINAL round (wall
/// time = its time; no rusage). `aggr`: the report's -A/--per-* (nullopt: the recorded
/// mode). The per-socket/die/core/node modes group CPUs by the recording's topology
/// (`rec.cpu_places`), as perf stat report does; only a file without one (a pipe) takes
/// `live_places` (this machine's cpu_places(), by CPU number), without NUMA nodes, as
/// perf does then.
[[nodiscard]] PERFX_API std::vector<StatPrintout> stat_recording_printouts(
    const StatRecording& rec, std::optional<StatAggr> aggr,
    const std::vector<CpuPlace>& live_places = {});

}  // namespace perfx
