// format_sched_map(): perf sched map's per-cpu picture of the running tasks
// (include/perfx/sched.hpp).

#include <fmt/format.h>

#include <algorithm>
#include <unordered_map>

#include "perfx/sched.hpp"
#include "profile/sched_cpus.hpp"

namespace perfx {

std::string format_sched_map(const SchedTrace& trace) {
  struct Task {
    std::string shortname;  // "A0"; ". " for idle
    bool comm_changed = false;
  };
  std::unordered_map<std::int32_t, Task> tasks;
  std::unordered_map<std::int32_t, std::string> comm;  // current names (COMM records)
  std::unordered_map<std::int32_t, std::string> payload_comm;
  profile::PerCpu<std::int32_t> current(std::min<std::size_t>(trace.nr_cpus, kSchedMaxCpus), -1);
  char next1 = 'A', next2 = '0';
  std::string out;
  auto it = std::back_inserter(out);
  for (const SchedEvent& ev : trace.events) {
    if (ev.kind == SchedEventKind::kComm) {
      comm[ev.task] = ev.comm;
      tasks[ev.task].comm_changed = true;
      continue;
    }
    if (ev.kind == SchedEventKind::kFork) {
      if (!comm.contains(ev.task)) {
        if (auto p = comm.find(ev.ppid); p != comm.end()) comm[ev.task] = p->second;
      }
      continue;
    }
    if (ev.kind != SchedEventKind::kSwitch) continue;
    if (!ev.other_comm.empty()) payload_comm[ev.other] = ev.other_comm;
    const std::optional<std::size_t> at = profile::sched_cpu(ev);
    if (!at) continue;
    const std::size_t cpu = *at;
    current[cpu] = ev.other;
    Task& in = tasks[ev.other];
    bool show_name = false;
    if (in.shortname.empty()) {
      if (ev.other == 0) {
        in.shortname = ". ";
      } else {
        in.shortname = {next1, next2};
        if (next1 < 'Z') {
          ++next1;
        } else {
          next1 = 'A';
          next2 = next2 < '9' ? static_cast<char>(next2 + 1) : '0';
        }
      }
      show_name = true;
    }
    out += "  ";
    for (std::size_t c = 0; c < current.size(); ++c) {
      out += c == cpu ? '*' : ' ';
      if (current[c] >= 0) {
        fmt::format_to(it, "{:>2} ", tasks[current[c]].shortname);
      } else {
        out += "   ";
      }
    }
    fmt::format_to(it, "  {:>12} secs ",
                   fmt::format("{}.{:06}", ev.time / 1000000000, (ev.time % 1000000000) / 1000));
    if (show_name || in.comm_changed) {
      std::string name;
      if (auto c = comm.find(ev.other); c != comm.end()) {
        name = c->second;
      } else if (ev.other == 0) {
        name = "swapper";
      } else if (auto p = payload_comm.find(ev.other); p != payload_comm.end()) {
        name = p->second;
      } else {
        name = ":" + std::to_string(ev.other);
      }
      fmt::format_to(it, "{} => {}:{}", in.shortname, name, ev.other);
      in.comm_changed = false;
    }
    out += "\n";
  }
  return out;
}

}  // namespace perfx
