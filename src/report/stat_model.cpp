#include "report/stat_model.hpp"

#include <algorithm>
#include <cstddef>
#include <iterator>
#include <tuple>
#include <utility>

#include <fmt/format.h>

// Defined in namespace perfx: declared public in perfx/stat.hpp.
namespace perfx {
namespace {

// Event `index` of the snapshots over the runs (its counts `per_run`).
StatEntry make_entry(const std::vector<Count>& per_run, const CounterSnapshot& first,
                     std::size_t index, const StatModelOptions& opts) {
  const CounterSnapshot::Event& ev = first.events[index];
  StatEntry e;
  e.name = ev.name;
  if (index < opts.event_cgroups.size()) e.cgroup = opts.event_cgroups[index];
  e.type = ev.attr.type;
  e.config = ev.attr.config;
  e.supported = ev.supported;
  if (!ev.supported || per_run.empty()) return e;
  std::vector<double> values;
  double ena = 0;
  double run = 0;
  for (const Count& c : per_run) {
    values.push_back(c.value);
    ena += static_cast<double>(c.time_enabled);
    run += static_cast<double>(c.time_running);
  }
  const RunStats s = run_stats(values);
  e.value = s.mean;
  e.noise_pct = s.rel_pct;
  const double n = static_cast<double>(per_run.size());
  e.time_enabled = ena / n;
  e.time_running = run / n;
  // A run where the event never ran makes the whole line "<not counted>" only if no
  // run counted it.
  bool any = false;
  for (const Count& c : per_run) any = any || c.trust != Trust::kNotCounted;
  if (!any) e.time_running = 0;
  return e;
}

// The aggregate a CPU at `p` belongs to in `mode`: the fields the mode keeps, -1 others
// (perf's aggr_cpu_id__socket/die/core/node).
CpuPlace aggregate_of(const CpuPlace& p, StatAggr mode) {
  CpuPlace id;
  if (mode == StatAggr::kPerNode) {
    id.node = p.node;
    return id;
  }
  id.socket = p.socket;
  if (mode == StatAggr::kPerDie || mode == StatAggr::kPerCore) id.die = p.die;
  if (mode == StatAggr::kPerCore) id.core = p.core;
  return id;
}

// Every event of each aggregate of CPUs, aggregates in perf's order (aggr_cpu_id__cmp).
std::vector<StatEntry> build_aggregated(const std::vector<CounterSnapshot>& runs,
                                        const StatModelOptions& opts) {
  const CounterSnapshot& first = runs.front();
  std::vector<std::pair<CpuPlace, std::vector<std::size_t>>> groups;
  for (std::size_t ci = 0; ci < first.cpus.size(); ++ci) {
    const auto cpu = static_cast<std::size_t>(first.cpus[ci]);  // -1: past any end
    const CpuPlace place = cpu < opts.cpu_places.size() ? opts.cpu_places[cpu] : CpuPlace{};
    const CpuPlace id = aggregate_of(place, opts.aggr);
    auto it =
        std::find_if(groups.begin(), groups.end(), [&](const auto& g) { return g.first == id; });
    if (it == groups.end()) {
      groups.emplace_back(id, std::vector<std::size_t>{});
      it = std::prev(groups.end());
    }
    it->second.push_back(ci);
  }
  std::stable_sort(groups.begin(), groups.end(), [](const auto& a, const auto& b) {
    const auto key = [](const CpuPlace& p) { return std::tuple(p.node, p.socket, p.die, p.core); };
    return key(a.first) < key(b.first);
  });
  std::vector<StatEntry> out;
  for (const auto& [id, cpus] : groups) {
    for (std::size_t ev = 0; ev < first.events.size(); ++ev) {
      std::vector<Count> per_run;
      for (const auto& r : runs) per_run.push_back(r.for_cpus(ev, cpus));
      StatEntry e = make_entry(per_run, first, ev, opts);
      e.place = id;
      e.aggr_cpus = static_cast<int>(cpus.size());
      out.push_back(std::move(e));
    }
  }
  return out;
}

// One entry per event (kGlobal), per event and CPU, or per event and thread.
// The comm of snapshot thread row `ti` (thread id `tid`).
std::string thread_comm(const StatModelOptions& opts, std::size_t ti, int tid) {
  if (opts.thread_tids.empty()) return ti < opts.thread_comms.size() ? opts.thread_comms[ti] : "?";
  const auto it = std::find(opts.thread_tids.begin(), opts.thread_tids.end(), tid);
  const auto i = static_cast<std::size_t>(it - opts.thread_tids.begin());
  return i < opts.thread_comms.size() ? opts.thread_comms[i] : "?";
}

std::vector<StatEntry> build_split(const std::vector<CounterSnapshot>& runs,
                                   const StatModelOptions& opts) {
  std::vector<StatEntry> out;
  const CounterSnapshot& first = runs.front();
  for (std::size_t ev = 0; ev < first.events.size(); ++ev) {
    switch (opts.aggr) {
      case StatAggr::kGlobal: {
        std::vector<Count> per_run;
        for (const auto& r : runs) per_run.push_back(r.total(ev));
        out.push_back(make_entry(per_run, first, ev, opts));
        break;
      }
      case StatAggr::kPerCpu:
        for (std::size_t ci = 0; ci < first.cpus.size(); ++ci) {
          std::vector<Count> per_run;
          for (const auto& r : runs) per_run.push_back(r.for_cpu(ev, ci));
          StatEntry e = make_entry(per_run, first, ev, opts);
          e.cpu = first.cpus[ci];
          out.push_back(std::move(e));
        }
        break;
      case StatAggr::kPerThread: {
        // perf sorts each event's threads by value, largest first (sort_aggr_thread).
        const std::size_t begin = out.size();
        for (std::size_t ti = 0; ti < first.threads.size(); ++ti) {
          std::vector<Count> per_run;
          for (const auto& r : runs) per_run.push_back(r.for_thread(ev, ti));
          StatEntry e = make_entry(per_run, first, ev, opts);
          e.tid = first.threads[ti];
          e.comm = thread_comm(opts, ti, e.tid);
          if (opts.skip_zero_threads && e.value == 0) continue;
          out.push_back(std::move(e));
        }
        std::stable_sort(out.begin() + static_cast<std::ptrdiff_t>(begin), out.end(),
                         [](const StatEntry& a, const StatEntry& b) { return a.value > b.value; });
        break;
      }
      case StatAggr::kPerSocket:
      case StatAggr::kPerDie:
      case StatAggr::kPerCore:
      case StatAggr::kPerNode:
        break;  // build_aggregated()
    }
  }
  return out;
}

}  // namespace

std::vector<StatEntry> build_stat_entries(const std::vector<CounterSnapshot>& runs,
                                          const StatModelOptions& opts) {
  if (runs.empty()) return {};
  std::vector<StatEntry> out =
      aggregates_cpus(opts.aggr) ? build_aggregated(runs, opts) : build_split(runs, opts);
  // perf keeps run-to-run statistics of the totals only: a line per CPU, thread or
  // aggregate shows no noise (0.00 in CSV and JSON).
  if (opts.aggr != StatAggr::kGlobal)
    for (StatEntry& e : out) e.noise_pct = 0;
  return out;
}

std::string describe_stat_target(const std::vector<std::string>& command, bool system_wide,
                                 const std::string& cpu_list, const std::string& pids,
                                 const std::string& tids) {
  if (system_wide) return "'system wide'";
  if (!cpu_list.empty()) return fmt::format("'CPU(s) {}'", cpu_list);
  if (!pids.empty()) return fmt::format("process id '{}'", pids);
  if (!tids.empty()) return fmt::format("thread id '{}'", tids);
  std::string s = "'";
  for (std::size_t i = 0; i < command.size(); ++i) {
    if (i) s += ' ';
    s += command[i];
  }
  return s + "'";
}

}  // namespace perfx
