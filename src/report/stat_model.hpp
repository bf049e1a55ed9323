#pragma once
/// \file
/// CounterSnapshot(s) -> StatReport: aggregation (global, per CPU, per thread), means
/// and run-to-run noise over -r runs. Pure.

#include <string>
#include <vector>

#include "perfx/counter.hpp"
#include "report/stat_format.hpp"

namespace perfx::report {

/// Inputs besides the counts.
struct StatModelOptions {
  StatAggr aggr = StatAggr::kGlobal;
  std::vector<std::string> thread_comms;  ///< kPerThread: comm of each snapshot thread row
  /// aggregates_cpus(): the place of each CPU by CPU number (cpu_places()); a CPU past
  /// the end is nowhere (-1s).
  std::vector<CpuPlace> cpu_places;
  /// Each snapshot event's own cgroup name (-G a,b; --for-each-cgroup); may be short.
  std::vector<std::string> event_cgroups;
};

/// Builds the entries of a report from one snapshot per run (all from the same set of
/// events and instances). Entry order is event-major (every CPU/thread of event 0, then
/// event 1...) but aggregate-major for the per-socket/die/core/node modes (every event of
/// the first core, then the next...), sorted by node, socket, die, core: as perf prints. Values are
/// the mean over runs; noise_pct the relative standard error of the mean.
std::vector<StatEntry> build_stat_entries(const std::vector<CounterSnapshot>& runs,
                                          const StatModelOptions& opts);

/// perf's header wording of the target: "'cmd args'", "'system wide'", "'CPU(s) 0-1'",
/// "process id '42'", "thread id '42'".
std::string describe_stat_target(const std::vector<std::string>& command, bool system_wide,
                                 const std::string& cpu_list, const std::string& pids,
                                 const std::string& tids);

}  // namespace perfx::report
