// sched_latency(): per-task scheduling latency (perf sched latency's model, with prev_state
// read as the kernel reports it and sched_waking taken as the wakeup; docs/sched.md).

#include <algorithm>
#include <map>
#include <unordered_map>

#include "core/error_format.hpp"
#include "perfx/sched.hpp"
#include "profile/sched_cpus.hpp"

namespace perfx {
namespace {

enum class AtomState { kSleeping, kWaitCpu, kSchedIn, kIgnore };

// One task's latency state (perf's work_atoms, keeping only the last atom: the one every
// event updates).
struct TaskAtoms {
  std::int32_t tid = 0;
  bool has_atom = false;
  AtomState state = AtomState::kSleeping;
  std::uint64_t sched_out = 0, wake_up = 0, last_in = 0;
  SchedLatencyRow row;
};

class LatencyModel {
 public:
  explicit LatencyModel(const SchedTrace& trace) : trace_(trace) {}

  void run(SchedLatency& out) {
    const std::size_t ncpu = std::min<std::size_t>(trace_.nr_cpus, kSchedMaxCpus) + 1;
    profile::PerCpu<std::uint64_t> cpu_in(ncpu, 0);    // switch-in time per cpu
    profile::PerCpu<std::int32_t> cpu_curr(ncpu, -1);  // current task per cpu
    for (const SchedEvent& ev : trace_.events) {
      switch (ev.kind) {
        case SchedEventKind::kComm:
          comm_[ev.task] = ev.comm;
          break;
        case SchedEventKind::kSwitch: {
          const std::optional<std::size_t> at = profile::sched_cpu(ev);
          if (!at) break;
          const std::size_t cpu = *at;
          if (cpu_curr[cpu] != -1 && cpu_curr[cpu] != ev.task) ++out.context_switch_bugs;
          note_comm(ev.task, ev.comm);
          note_comm(ev.other, ev.other_comm);
          TaskAtoms& prev = atoms(ev.task);
          if (!trace_.has_runtime && cpu_in[cpu] != 0 && prev.has_atom) {
            prev.row.runtime_ns += ev.time - cpu_in[cpu];
          }
          sched_out(prev, ev.state, ev.time);
          const bool known = atoms_.contains(ev.other);
          TaskAtoms& next = atoms(ev.other);
          if (!known) sched_out(next, 'R', ev.time);  // first sight: runnable (perf)
          sched_in(next, ev.time);
          cpu_in[cpu] = ev.time;
          cpu_curr[cpu] = ev.other;
          break;
        }
        case SchedEventKind::kRuntime: {
          note_comm(ev.task, ev.comm);
          const bool known = atoms_.contains(ev.task);
          TaskAtoms& t = atoms(ev.task);
          if (!known) sched_out(t, 'R', ev.time);
          t.row.runtime_ns += ev.runtime_ns;
          break;
        }
        case SchedEventKind::kWakeup:
          if (trace_.has_waking) break;  // sched_waking is the earlier event of the two
          [[fallthrough]];
        case SchedEventKind::kWaking:
        case SchedEventKind::kWakeupNew:
          note_comm(ev.task, ev.comm);
          wakeup(ev, out);
          break;
        default:
          break;
      }
    }
  }

  std::unordered_map<std::int32_t, TaskAtoms>& tasks() { return atoms_; }
  std::string comm_of(std::int32_t tid) const {
    if (auto it = comm_.find(tid); it != comm_.end()) return it->second;
    if (auto it = seen_comm_.find(tid); it != seen_comm_.end()) return it->second;
    return ":" + std::to_string(tid);
  }

 private:
  TaskAtoms& atoms(std::int32_t tid) {
    auto [it, inserted] = atoms_.try_emplace(tid);
    if (inserted) it->second.tid = tid;
    return it->second;
  }
  void note_comm(std::int32_t tid, const std::string& comm) {
    if (!comm.empty()) seen_comm_[tid] = comm;
  }
  static void sched_out(TaskAtoms& t, char state, std::uint64_t time) {
    t.has_atom = true;
    t.sched_out = time;
    if (state == 'R') {
      t.state = AtomState::kWaitCpu;
      t.wake_up = time;
    } else {
      t.state = AtomState::kSleeping;
    }
  }
  static void sched_in(TaskAtoms& t, std::uint64_t time) {
    if (!t.has_atom || t.state != AtomState::kWaitCpu) return;
    if (time < t.wake_up) {
      t.state = AtomState::kIgnore;
      return;
    }
    t.state = AtomState::kSchedIn;
    const std::uint64_t delta = time - t.wake_up;
    t.row.total_delay_ns += delta;
    if (delta > t.row.max_delay_ns) {
      t.row.max_delay_ns = delta;
      t.row.max_delay_start = t.wake_up;
      t.row.max_delay_end = time;
    }
    ++t.row.switches;
  }
  void wakeup(const SchedEvent& ev, SchedLatency& out) {
    const bool known = atoms_.contains(ev.task);
    TaskAtoms& t = atoms(ev.task);
    if (!known) sched_out(t, 'S', ev.time);
    // A wakeup of a task that is runnable or running changes nothing (perf).
    if (t.state != AtomState::kSleeping) return;
    ++out.timestamps;
    if (t.sched_out > ev.time) {
      ++out.unordered_timestamps;
      return;
    }
    t.state = AtomState::kWaitCpu;
    t.wake_up = ev.time;
  }

  const SchedTrace& trace_;
  std::unordered_map<std::int32_t, TaskAtoms> atoms_;
  std::unordered_map<std::int32_t, std::string> comm_;       // from COMM records
  std::unordered_map<std::int32_t, std::string> seen_comm_;  // from the events' payloads
};

int compare(const SchedLatencyRow& a, const SchedLatencyRow& b, const std::string& key) {
  const auto cmp = [](auto x, auto y) { return x < y ? -1 : (x > y ? 1 : 0); };
  if (key == "pid") return cmp(a.tid, b.tid);
  if (key == "avg") return cmp(a.avg_delay_ns(), b.avg_delay_ns());
  if (key == "max") return cmp(a.max_delay_ns, b.max_delay_ns);
  if (key == "switch") return cmp(a.switches, b.switches);
  if (key == "runtime") return cmp(a.runtime_ns, b.runtime_ns);
  return 0;
}

}  // namespace

Result<void> check_sched_latency_sort(const std::vector<std::string>& keys) {
  for (const auto& k : keys) {
    if (k != "pid" && k != "avg" && k != "max" && k != "switch" && k != "runtime") {
      return fail(Errc::kInvalidArgument,
                  "unknown sort key '{}' (keys: pid, avg, max, switch, runtime)", k);
    }
  }
  return {};
}

SchedLatency sched_latency(const SchedTrace& trace, const SchedLatencyOptions& options) {
  SchedLatency out;
  out.lost_events = trace.lost_events;
  out.lost_chunks = trace.lost_chunks;
  out.events = trace.samples;
  LatencyModel model(trace);
  model.run(out);
  // Threads in descending tid order: the order perf merges and lists equal rows in.
  std::vector<const TaskAtoms*> tasks;
  for (const auto& [tid, t] : model.tasks()) {
    if (tid != 0) tasks.push_back(&t);  // the idle task (swapper) is not listed
  }
  std::sort(tasks.begin(), tasks.end(),
            [](const TaskAtoms* a, const TaskAtoms* b) { return a->tid > b->tid; });
  std::vector<SchedLatencyRow> rows;
  if (options.per_pid) {
    for (const TaskAtoms* t : tasks) {
      SchedLatencyRow r = t->row;
      r.comm = model.comm_of(t->tid);
      r.tid = t->tid;
      rows.push_back(std::move(r));
    }
  } else {
    // Merged by command name, in descending name order (perf's merged tree).
    std::map<std::string, SchedLatencyRow, std::greater<>> merged;
    for (const TaskAtoms* t : tasks) {
      const std::string comm = model.comm_of(t->tid);
      auto [it, inserted] = merged.try_emplace(comm, t->row);
      SchedLatencyRow& r = it->second;
      if (inserted) {
        r.comm = comm;
        r.tid = t->tid;
        r.merged = 1;
        continue;
      }
      ++r.merged;
      r.runtime_ns += t->row.runtime_ns;
      r.switches += t->row.switches;
      r.total_delay_ns += t->row.total_delay_ns;
      if (r.max_delay_ns < t->row.max_delay_ns) {
        r.max_delay_ns = t->row.max_delay_ns;
        r.max_delay_start = t->row.max_delay_start;
        r.max_delay_end = t->row.max_delay_end;
      }
    }
    for (auto& [comm, r] : merged) rows.push_back(std::move(r));
  }
  std::stable_sort(rows.begin(), rows.end(),
                   [&](const SchedLatencyRow& a, const SchedLatencyRow& b) {
                     for (const auto& key : options.sort) {
                       const int c = compare(a, b, key);
                       if (c != 0) return c > 0;
                     }
                     return false;
                   });
  for (auto& r : rows) {
    if (r.switches == 0) continue;
    out.total_runtime_ns += r.runtime_ns;
    out.total_switches += r.switches;
    out.rows.push_back(std::move(r));
  }
  return out;
}

}  // namespace perfx
