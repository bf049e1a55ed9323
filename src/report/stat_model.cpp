#include "report/stat_model.hpp"

#include <algorithm>
#include <cstddef>

#include <fmt/format.h>

namespace perfx::report {
namespace {

StatEntry make_entry(const std::vector<Count>& per_run, const CounterSnapshot::Event& ev) {
  StatEntry e;
  e.name = ev.name;
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

}  // namespace

std::vector<StatEntry> build_stat_entries(const std::vector<CounterSnapshot>& runs,
                                          const StatModelOptions& opts) {
  std::vector<StatEntry> out;
  if (runs.empty()) return out;
  const CounterSnapshot& first = runs.front();
  for (std::size_t ev = 0; ev < first.events.size(); ++ev) {
    switch (opts.aggr) {
      case StatAggr::kGlobal: {
        std::vector<Count> per_run;
        for (const auto& r : runs) per_run.push_back(r.total(ev));
        out.push_back(make_entry(per_run, first.events[ev]));
        break;
      }
      case StatAggr::kPerCpu:
        for (std::size_t ci = 0; ci < first.cpus.size(); ++ci) {
          std::vector<Count> per_run;
          for (const auto& r : runs) per_run.push_back(r.for_cpu(ev, ci));
          StatEntry e = make_entry(per_run, first.events[ev]);
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
          StatEntry e = make_entry(per_run, first.events[ev]);
          e.tid = first.threads[ti];
          e.comm = ti < opts.thread_comms.size() ? opts.thread_comms[ti] : "?";
          out.push_back(std::move(e));
        }
        std::stable_sort(out.begin() + static_cast<std::ptrdiff_t>(begin), out.end(),
                         [](const StatEntry& a, const StatEntry& b) { return a.value > b.value; });
        break;
      }
    }
  }
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

}  // namespace perfx::report
