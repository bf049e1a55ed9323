// perf stat report's output side: the rounds of a stat recording as the printouts the
// live stat makes (builtin-stat.c's process_stat_round_event -> print_counters).
#include <algorithm>

#include "perfx/stat_record.hpp"

namespace perfx {

std::vector<StatPrintout> stat_recording_printouts(const StatRecording& rec,
                                                   std::optional<StatAggr> aggr,
                                                   const std::vector<CpuPlace>& live_places) {
  StatModelOptions mopts;
  mopts.aggr = rec.aggr;
  // perf: a recording of a task (no CPUs) keeps its mode, whatever the report asks for.
  const bool task_data = std::all_of(rec.cpus.begin(), rec.cpus.end(), [](int c) { return c < 0; });
  if (aggr && !(task_data && *aggr != StatAggr::kGlobal && *aggr != StatAggr::kPerThread))
    mopts.aggr = *aggr;
  mopts.thread_comms = rec.thread_comms;
  // perf's env: the file's topology; without one perf_env__read_cpu_topology_map() reads
  // this machine's sockets, dies and cores, and no NUMA node is known.
  mopts.cpu_places = rec.cpu_places;
  if (rec.cpu_places.empty()) {
    mopts.cpu_places = live_places;
    for (CpuPlace& p : mopts.cpu_places) p.node = -1;
  }
  // perf stat report prints the recorder's whole command line ("perf stat record ..."), or
  // 'pipe' without one.
  std::string target;
  for (const auto& a : rec.cmdline) target += (target.empty() ? "" : " ") + a;
  target = "'" + (rec.cmdline.empty() ? std::string("pipe") : target) + "'";  // perf: no argv

  std::vector<StatPrintout> out;
  const CounterSnapshot* previous = nullptr;
  int printed = 0;
  for (const auto& round : rec.rounds) {
    StatPrintout p;
    p.report.target = target;
    p.report.aggr = mopts.aggr;
    if (rec.interval_ms > 0) {
      // Each interval is the delta from the round before (perf's prev_raw_counts); no
      // wall time is known then, so no "CPUs utilized".
      const CounterSnapshot counts = previous ? delta(round.counts, *previous) : round.counts;
      p.report.entries = build_stat_entries({counts}, mopts);
      p.interval = true;
      p.time_s = static_cast<double>(round.time_ns) / 1e9;
      p.header = printed % 25 == 0;
      previous = &round.counts;
    } else {
      if (!round.final) continue;
      p.report.entries = build_stat_entries({round.counts}, mopts);
      p.report.elapsed_ns = static_cast<double>(round.time_ns);
    }
    out.push_back(std::move(p));
    ++printed;
  }
  return out;
}

}  // namespace perfx
