// sched_timehist(): one line per context switch with the switched-out task's wait time,
// scheduling delay and run time (perf sched timehist's model; docs/sched.md).

#include <algorithm>
#include <cmath>
#include <unordered_map>

#include "perfx/sched.hpp"
#include "profile/sched_cpus.hpp"

namespace perfx {
namespace {

// Per-thread state (perf's thread_runtime).
struct Runtime {
  std::uint64_t last_time = 0;     // last switch-out
  char last_state = 0;             // its prev_state letter
  std::uint64_t ready_to_run = 0;  // runnable since (wakeup, or switch-out as R)
  std::uint64_t migrated = 0;
  // run statistics (Welford)
  std::uint64_t n = 0;
  double mean = 0, m2 = 0;
  std::uint64_t min = 0, max = 0;
  SchedTimehistTask totals;
};

struct ThreadInfo {
  std::string comm;  // from COMM records
  std::int32_t pid = -1, ppid = -1;
};

class TimehistModel {
 public:
  TimehistModel(const SchedTrace& trace, const SchedTimehistOptions& options)
      : trace_(trace), options_(options) {}

  SchedTimehist run() {
    SchedTimehist out;
    const std::size_t ncpu = std::min<std::size_t>(trace_.nr_cpus, kSchedMaxCpus) + 1;
    profile::PerCpu<std::uint64_t> cpu_last(ncpu, 0);
    profile::PerCpu<Runtime> idle(ncpu, Runtime{});
    bool first = true;
    for (const SchedEvent& ev : trace_.events) {
      switch (ev.kind) {
        case SchedEventKind::kComm: {
          ThreadInfo& ti = threads_[ev.task];
          ti.comm = ev.comm;
          ti.pid = ev.pid;
          break;
        }
        case SchedEventKind::kFork: {
          ThreadInfo& ti = threads_[ev.task];
          ti.pid = ev.pid;
          ti.ppid = ev.ppid;
          if (ti.comm.empty()) {
            // A new thread inherits its creator's name until it sets its own.
            if (auto it = threads_.find(ev.ppid); it != threads_.end()) ti.comm = it->second.comm;
          }
          break;
        }
        case SchedEventKind::kExit:
          exited_.push_back(ev.task);
          break;
        case SchedEventKind::kMigrate: {
          Runtime& r = runtime_[ev.task];
          ++r.totals.migrations;
          r.migrated = ev.time;
          if (options_.migrations && shown(ev.sample_tid, ev.task, out)) {
            SchedTimehistLine line = event_line(ev);
            line.orig_cpu = ev.orig_cpu;
            line.dest_cpu = ev.dest_cpu;
            out.lines.push_back(std::move(line));
          }
          break;
        }
        case SchedEventKind::kWakeup:
          if (trace_.has_waking) break;
          [[fallthrough]];
        case SchedEventKind::kWaking:
        case SchedEventKind::kWakeupNew: {
          seen_comm(ev.task, ev.comm);
          Runtime& r = runtime_[ev.task];
          if (r.ready_to_run == 0) r.ready_to_run = ev.time;
          if (options_.wakeups && shown(ev.sample_tid, ev.task, out)) {
            SchedTimehistLine line = event_line(ev);
            out.lines.push_back(std::move(line));
          }
          break;
        }
        case SchedEventKind::kSwitch: {
          const std::optional<std::size_t> at = profile::sched_cpu(ev);
          if (!at) break;
          const std::size_t cpu = *at;
          out.max_cpu = std::max(out.max_cpu, static_cast<std::uint32_t>(ev.cpu));
          if (first) out.first_time = ev.time;
          first = false;
          out.last_time = ev.time;
          seen_comm(ev.task, ev.comm);
          seen_comm(ev.other, ev.other_comm);
          if (filtered(ev.task)) {  // perf: no line, no statistics; the cpu's time moves on
            out.skipped = true;
            cpu_last[cpu] = ev.time;
            break;
          }
          const bool is_idle = ev.task == 0;
          Runtime& r = is_idle ? idle[cpu] : runtime_[ev.task];
          const std::uint64_t tprev = cpu_last[cpu];
          SchedTimehistLine line;
          line.time = ev.time;
          line.cpu = ev.cpu;
          line.tid = ev.task;
          line.task = is_idle ? "<idle>" : task_name(ev.task, ev.comm);
          update(r, ev.time, tprev, line);
          if (shown_cpu(ev.cpu)) out.lines.push_back(std::move(line));
          r.last_time = ev.time;
          r.last_state = ev.state;
          r.ready_to_run = ev.state == 'R' ? ev.time : 0;  // preempted: runnable from now
          r.migrated = 0;
          cpu_last[cpu] = ev.time;
          break;
        }
        default:
          break;
      }
    }
    for (auto& [tid, r] : runtime_) {
      if (r.n == 0 || tid == 0) continue;
      SchedTimehistTask t = finish(r);
      t.tid = tid;
      t.task = task_name(tid, {});
      if (auto it = threads_.find(tid); it != threads_.end()) t.ppid = it->second.ppid;
      t.exited = std::find(exited_.begin(), exited_.end(), tid) != exited_.end();
      out.tasks.push_back(std::move(t));
    }
    std::sort(out.tasks.begin(), out.tasks.end(),
              [](const SchedTimehistTask& a, const SchedTimehistTask& b) { return a.tid < b.tid; });
    for (auto& r : idle) {
      out.idle_ns.push_back(r.totals.run_ns);
      out.idle_count.push_back(r.n);
    }
    out.idle_ns.resize(out.max_cpu + 1);
    out.idle_count.resize(out.max_cpu + 1);
    return out;
  }

 private:
  // perf's thread__is_filtered() for -p/-t: the task's process (from COMM/FORK records;
  // itself when unknown, 0 for the idle task) and thread.
  [[nodiscard]] bool filtered(std::int32_t tid) const {
    const auto& o = options_;
    if (o.pids.empty() && o.tids.empty()) return false;
    std::int32_t pid = tid;
    if (auto it = threads_.find(tid); it != threads_.end() && it->second.pid >= 0)
      pid = it->second.pid;
    if (!o.pids.empty() && std::find(o.pids.begin(), o.pids.end(), pid) == o.pids.end())
      return true;
    return !o.tids.empty() && std::find(o.tids.begin(), o.tids.end(), tid) == o.tids.end();
  }
  // A -w/-M line: shown unless both the sample's task and the one it names are filtered.
  bool shown(std::int32_t actor, std::int32_t target, SchedTimehist& out) const {
    if (!filtered(actor)) return true;
    out.skipped = true;
    return !filtered(target);
  }
  [[nodiscard]] bool shown_cpu(int cpu) const {
    const auto& c = options_.cpus;
    return c.empty() || std::find(c.begin(), c.end(), cpu) != c.end();
  }
  void seen_comm(std::int32_t tid, const std::string& comm) {
    if (!comm.empty()) payload_comm_[tid] = comm;
  }
  // A -w/-M line: the event's time and cpu, the task that caused it, the task it names.
  SchedTimehistLine event_line(const SchedEvent& ev) const {
    SchedTimehistLine line;
    line.kind = ev.kind;
    line.time = ev.time;
    line.cpu = ev.cpu;
    line.task = task_name(ev.sample_tid, {});
    line.tid = ev.sample_tid;
    line.target = task_name(ev.task, ev.comm);
    return line;
  }
  std::string task_name(std::int32_t tid, const std::string& fallback) const {
    // perf's timehist_get_commstr: the idle task (pid 0) is its comm alone, "swapper"
    if (tid == 0) return "swapper";
    std::string comm;
    std::int32_t pid = -1;
    if (auto it = threads_.find(tid); it != threads_.end()) {
      comm = it->second.comm;
      pid = it->second.pid;
    }
    if (comm.empty()) {
      if (auto it = payload_comm_.find(tid); it != payload_comm_.end()) comm = it->second;
    }
    if (comm.empty()) comm = fallback.empty() ? ":" + std::to_string(tid) : fallback;
    if (pid <= 0 || pid == tid) return comm + "[" + std::to_string(tid) + "]";
    return comm + "[" + std::to_string(tid) + "/" + std::to_string(pid) + "]";
  }
  static void update(Runtime& r, std::uint64_t t, std::uint64_t tprev, SchedTimehistLine& line) {
    std::uint64_t run = 0, delay = 0, sleep = 0, iowait = 0, preempt = 0;
    if (tprev != 0) {
      run = t - tprev;
      if (r.ready_to_run != 0 && r.ready_to_run <= tprev) delay = tprev - r.ready_to_run;
      if (r.last_time != 0 && r.last_time <= tprev) {
        const std::uint64_t wait = tprev - r.last_time;
        if (r.last_state == 'R') {
          preempt = wait;
        } else if (r.last_state == 'D') {
          iowait = wait;
        } else {
          sleep = wait;
        }
      }
    }
    line.run_ns = run;
    line.delay_ns = delay;
    line.wait_ns = sleep + iowait + preempt;
    ++r.n;
    const double x = static_cast<double>(run);
    const double d = x - r.mean;
    r.mean += d / static_cast<double>(r.n);
    r.m2 += d * (x - r.mean);
    if (r.n == 1 || run < r.min) r.min = run;
    if (run > r.max) r.max = run;
    r.totals.run_ns += run;
    r.totals.delay_ns += delay;
    r.totals.sleep_ns += sleep;
    r.totals.iowait_ns += iowait;
    r.totals.preempt_ns += preempt;
  }
  static SchedTimehistTask finish(const Runtime& r) {
    SchedTimehistTask t = r.totals;
    t.sched_in = r.n;
    t.min_run_ns = r.min;
    t.max_run_ns = r.max;
    t.mean_run_ns = r.mean;
    // perf's rel_stddev_stats(stddev_stats()): the mean's standard error, in % of the mean.
    if (r.n > 1 && r.mean != 0) {
      const double variance = r.m2 / static_cast<double>(r.n - 1);
      t.stddev_pct = 100.0 * std::sqrt(variance / static_cast<double>(r.n)) / r.mean;
    }
    return t;
  }

  const SchedTrace& trace_;
  const SchedTimehistOptions& options_;
  std::unordered_map<std::int32_t, Runtime> runtime_;
  std::unordered_map<std::int32_t, ThreadInfo> threads_;
  std::unordered_map<std::int32_t, std::string> payload_comm_;
  std::vector<std::int32_t> exited_;
};

}  // namespace

SchedTimehist sched_timehist(const SchedTrace& trace, const SchedTimehistOptions& options) {
  return TimehistModel(trace, options).run();
}

}  // namespace perfx
