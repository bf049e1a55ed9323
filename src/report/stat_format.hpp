#pragma once
/// \file
/// `perfx stat` output in perf stat's three layouts: the text table, CSV (-x SEP) and
/// JSON lines (-j), as perf 6.1 prints them (docs/stat-output.md). Pure: the caller
/// fills a StatReport with counts; this module computes the derived metrics ("CPUs
/// utilized", "/sec" rates, "insn per cycle", miss ratios) and formats.

#include <cstdint>
#include <ctime>
#include <string>
#include <vector>

#include "perfx/counter.hpp"

namespace perfx::report {

/// How counts are split into lines.
enum class StatAggr : std::uint8_t {
  kGlobal,     ///< one line per event
  kPerCpu,     ///< -A/--no-aggr: one line per event and CPU, prefixed "CPU<n>"
  kPerThread,  ///< --per-thread: one line per event and thread, prefixed "comm-tid"
  kPerSocket,  ///< --per-socket: one line per socket and event, prefixed "S0" and its CPUs
  kPerDie,     ///< --per-die: "S0-D0"
  kPerCore,    ///< --per-core: "S0-D0-C0"
  kPerNode,    ///< --per-node: "N0"
};

/// The modes that sum CPUs by where they sit (socket, die, core, node).
[[nodiscard]] constexpr bool aggregates_cpus(StatAggr a) noexcept {
  return a == StatAggr::kPerSocket || a == StatAggr::kPerDie || a == StatAggr::kPerCore ||
         a == StatAggr::kPerNode;
}

/// Output layout.
enum class StatLayout : std::uint8_t { kText, kCsv, kJson };

/// One line's worth of counts (one event, or one event on one CPU/thread).
struct StatEntry {
  std::string name;          ///< event name as printed
  std::uint32_t type = 0;    ///< attr.type (picks the unit and the derived metric)
  std::uint64_t config = 0;  ///< attr.config
  bool supported = true;     ///< false: "<not supported>"
  double value = 0;          ///< scaled count (mean over runs); ns for task-clock/cpu-clock
  double time_enabled = 0;   ///< ns (mean over runs)
  double time_running = 0;   ///< ns (mean over runs); 0 means "<not counted>"
  double noise_pct = 0;      ///< relative standard error of the mean over runs, percent
  int cpu = -1;              ///< kPerCpu: the CPU number
  std::string comm;          ///< kPerThread: the thread's command name
  int tid = -1;              ///< kPerThread: the thread id
  /// aggregates_cpus(): the socket/die/core/node of the line (the fields of the mode; the
  /// others -1) and how many CPUs it sums.
  CpuPlace place;
  int aggr_cpus = 0;
  /// The event's own cgroup (-G a,b; --for-each-cgroup), printed after its name; empty:
  /// StatReport::cgroup.
  std::string cgroup;
};

/// Everything a stat printout shows.
struct StatReport {
  /// What was counted, as perf words it after "for ": "'true 1'", "'system wide'",
  /// "'CPU(s) 0-1'", "process id '42'", "thread id '42'".
  std::string target;
  int runs = 1;  ///< -r N
  StatAggr aggr = StatAggr::kGlobal;
  std::string cgroup;              ///< -G with one cgroup: printed after each event name
  std::vector<StatEntry> entries;  ///< print order (event-major)
  double elapsed_ns = 0;           ///< wall time (mean over runs)
  double elapsed_stddev_ns = 0;    ///< standard error of the mean over runs
  bool show_rusage = false;        ///< print "seconds user/sys" (a workload was run once)
  double user_s = 0;               ///< workload user time
  double sys_s = 0;                ///< workload system time
  /// --table (with -r): perf's table of each run's wall time before the final result.
  bool table = false;
  std::vector<double> run_elapsed_ns;  ///< each run's wall time, for the table
};

/// Layout options.
struct StatFormatOptions {
  StatLayout layout = StatLayout::kText;
  std::string csv_sep = ",";  ///< -x SEP
  /// perf's big_num (-B, on unless --no-big-num): text counts grouped by thousands with
  /// the locale's separator ("%'18.0f"); empty = not grouped (the C locale's).
  std::string thousands_sep;
};

/// The derived metric of an entry (empty unit = none), as perf computes it from the
/// other entries of the same CPU/thread: value and unit ("CPUs utilized", "K/sec",
/// "insn per cycle", "of all branches", "GHz"...), plus the printf format perf uses.
struct StatMetric {
  bool present = false;  ///< false: no metric at all (no inputs)
  bool blank = false;    ///< metric known but its inputs are missing: printed empty
  double value = 0;
  std::string unit;
  std::string format;  ///< "%8.3f", "%7.2f ", "%7.2f%%"
};

/// Computes entry `index`'s metric from `report` (wall time `wall_ns` for "CPUs utilized").
StatMetric compute_metric(const StatReport& report, std::size_t index, double wall_ns);

/// The unit and scale perf shows for an event: task-clock/cpu-clock -> "msec", 1e-6.
struct StatUnit {
  std::string unit;
  double scale = 1.0;
};
StatUnit stat_unit(std::uint32_t type, std::uint64_t config);

/// The full non-interval output: header, one line per entry, footer (text); the lines
/// only (CSV, JSON).
std::string format_stat(const StatReport& report, const StatFormatOptions& opts);

/// format_stat() after an interval run (--summary): the same, but with `csv_summary`
/// each CSV line is prefixed with "summary" in the interval column (`%16s`), as perf
/// does unless --no-csv-summary.
std::string format_stat_summary(const StatReport& report, const StatFormatOptions& opts,
                                bool csv_summary);

/// One interval (-I): lines prefixed with the timestamp `time_s` (seconds since start).
/// `column_header` prints perf's "#           time             counts unit events"
/// line first (text only; perf repeats it every 25 intervals).
std::string format_stat_interval(const StatReport& report, const StatFormatOptions& opts,
                                 double time_s, bool column_header);

/// "# started on Sun Nov 22 21:54:57 2026\n\n", written first when output goes to a file.
std::string format_stat_started_on(std::time_t when);

/// Mean and the standard error of the mean over runs (perf's stddev_stats), and the
/// relative value in percent (perf's rel_stddev_stats).
struct RunStats {
  double mean = 0;
  double stddev_of_mean = 0;
  double rel_pct = 0;
};
RunStats run_stats(const std::vector<double>& samples);

}  // namespace perfx::report
