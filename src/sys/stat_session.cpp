#include "sys/stat_session.hpp"

#include <poll.h>
#include <signal.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <cerrno>
#include <cstdlib>

#include <fmt/format.h>

#include "core/error_format.hpp"
#include "sys/cgroup.hpp"
#include "sys/cpu_list.hpp"
#include "sys/pmu_sysfs.hpp"
#include "sys/process.hpp"
#include "sys/system_info.hpp"
#include "sys/unique_fd.hpp"

namespace perfx::sys {
namespace {

std::atomic<int> g_stop_signal{0};

extern "C" void on_stop_signal(int sig) { g_stop_signal.store(sig); }

/// Installs SIGINT/SIGTERM handlers without SA_RESTART for the session's lifetime
/// (perf stat: Ctrl-C ends counting and still prints). Restores the old ones.
class StopSignals {
 public:
  StopSignals() {
    g_stop_signal.store(0);
    struct sigaction sa {};
    sa.sa_handler = on_stop_signal;
    sigemptyset(&sa.sa_mask);
    sa.sa_flags = 0;
    ::sigaction(SIGINT, &sa, &old_int_);
    ::sigaction(SIGTERM, &sa, &old_term_);
  }
  ~StopSignals() {
    ::sigaction(SIGINT, &old_int_, nullptr);
    ::sigaction(SIGTERM, &old_term_, nullptr);
  }
  StopSignals(const StopSignals&) = delete;
  StopSignals& operator=(const StopSignals&) = delete;

 private:
  struct sigaction old_int_ {};
  struct sigaction old_term_ {};
};

UniqueFd pidfd_open(pid_t pid) {
#ifdef SYS_pidfd_open
  const long fd = ::syscall(SYS_pidfd_open, pid, 0);
  if (fd >= 0) return UniqueFd(static_cast<int>(fd));
#else
  (void)pid;
#endif
  return UniqueFd();
}

/// Waits until `deadline` (monotonic), the workload exits (pidfd readable) or a stop
/// signal. Returns true when the workload may have exited or a signal arrived.
bool wait_until(std::chrono::nanoseconds deadline, int pidfd) {
  for (;;) {
    if (g_stop_signal.load() != 0) return true;
    const auto now = monotonic_now();
    if (now >= deadline) return false;
    const auto left_ms = std::chrono::duration_cast<std::chrono::milliseconds>(deadline - now);
    int timeout = static_cast<int>(left_ms.count()) + 1;
    if (pidfd >= 0) {
      pollfd p{pidfd, POLLIN, 0};
      const int r = ::poll(&p, 1, timeout);
      if (r > 0) return true;
      if (r < 0 && errno != EINTR) return true;
    } else {
      // No pidfd (kernel < 5.3): poll for the exit every 10 ms.
      if (timeout > 10) timeout = 10;
      ::poll(nullptr, 0, timeout);
      if (monotonic_now() < deadline) return true;
    }
  }
}

constexpr std::chrono::milliseconds kTaskPoll{100};

/// True while any of `tids` still runs: /proc/<tid>/stat exists and the task is not a
/// zombie (a -p target another process has not reaped yet is gone for counting).
bool any_task_alive(const std::vector<pid_t>& tids) {
  for (const pid_t tid : tids) {
    auto stat = read_text_file(fmt::format("/proc/{}/stat", tid));
    if (!stat) continue;
    const auto paren = stat->rfind(')');  // comm may contain ") "
    if (paren == std::string::npos || paren + 2 >= stat->size()) continue;
    const char state = (*stat)[paren + 2];
    if (state != 'Z' && state != 'X') return true;
  }
  return false;
}

struct OpenPlan {
  CountTarget target;
  UniqueFd cgroup_fd;
  std::vector<UniqueFd> event_cgroup_dirs;  // each cgroup of event_cgroups, opened once
  std::vector<int> event_cgroup_fd;         // per event of event_cgroups (-1: none)
  bool task_target = false;                 // -p/-t
};

Result<OpenPlan> plan_target(const StatTargetOptions& t, pid_t workload_pid) {
  OpenPlan plan;
  const bool want_cpus = t.system_wide || !t.cpus.empty() || !t.cgroup.empty();
  std::vector<std::string_view> opened;  // the names of event_cgroup_dirs
  for (const std::string& name : t.event_cgroups) {
    if (name.empty()) {
      plan.event_cgroup_fd.push_back(-1);
      continue;
    }
    auto same = std::find(opened.begin(), opened.end(), std::string_view(name));
    if (same == opened.end()) {  // one directory fd per cgroup, borrowed by its events
      PERFX_TRY(fd, open_cgroup(name));
      plan.event_cgroup_dirs.push_back(std::move(fd));
      same = opened.insert(opened.end(), name);
    }
    plan.event_cgroup_fd.push_back(
        plan.event_cgroup_dirs[static_cast<std::size_t>(same - opened.begin())].get());
  }
  std::vector<int> cpus = t.cpus;
  if (want_cpus && cpus.empty()) {
    PERFX_TRY(online, read_online_cpus());
    cpus = std::move(online);
  } else if (!cpus.empty()) {
    auto online = read_online_cpus();
    if (online) PERFX_CHECK(check_cpus_online(cpus, *online));
  }
  if (!t.cgroup.empty()) {
    PERFX_TRY(fd, open_cgroup(t.cgroup));
    plan.cgroup_fd = std::move(fd);
    plan.target = CountTarget::cgroup(plan.cgroup_fd.get(), cpus);
    return plan;
  }
  if (t.system_wide || (!t.cpus.empty() && t.pids.empty() && t.tids.empty())) {
    plan.target = CountTarget::system_wide(cpus);
    plan.target.inherit = t.inherit;  // perf's attrs (no effect on CPU-wide counters)
    if (!t.system_wide) {
      plan.target.description = fmt::format("counting on CPU(s) {} (-C)", format_cpus(cpus));
    }
    return plan;
  }
  if (!t.pids.empty() || !t.tids.empty() || t.every_thread) {
    PERFX_TRY(threads, resolve_stat_threads(t));
    plan.target = CountTarget::tasks(threads.tids);
    plan.target.inherit = t.inherit;
    plan.task_target = true;
    return plan;
  }
  if (workload_pid > 0) {
    plan.target = CountTarget::workload(workload_pid);
    plan.target.inherit = t.inherit;
    return plan;
  }
  return fail(Errc::kInvalidArgument, "nothing to count: give a command, or -a, -C, -p, -t or -G");
}

std::vector<std::string> split_commas(std::string_view list) {
  std::vector<std::string> out;
  while (true) {
    const auto comma = list.find(',');
    out.emplace_back(list.substr(0, comma));
    if (comma == std::string_view::npos) return out;
    list.remove_prefix(comma + 1);
  }
}

// Whether a thread can still get a counter: not gone, not a zombie (its /proc state).
bool thread_alive(pid_t tid) {
  if (::kill(tid, 0) < 0 && errno == ESRCH) return false;
  auto stat = read_text_file("/proc/" + std::to_string(tid) + "/stat");
  if (!stat) return false;
  const auto paren = stat->rfind(')');
  return paren == std::string::npos || paren + 2 >= stat->size() ||
         ((*stat)[paren + 2] != 'Z' && (*stat)[paren + 2] != 'X');
}

Result<StatRun> run_once(const StatSessionConfig& cfg) {
  StatRun run;
  std::optional<Workload> workload;
  if (!cfg.command.empty()) {
    PERFX_TRY(w, Workload::prepare(cfg.command));
    workload.emplace(std::move(w));
  }
  PERFX_TRY(plan, plan_target(cfg.target, workload ? workload->pid() : -1));
  raise_fd_limit();  // one fd per event, CPU and thread: use the hard limit, as perf
  const bool delayed = cfg.delay.count() > 0;
  if (delayed) plan.target.enable_on_exec = false;  // enabled by hand after the delay
  std::vector<CounterGroupSpec> groups = cfg.groups;
  std::size_t nth = 0;
  for (auto& g : groups)
    for (auto& ev : g.events)
      if (nth < plan.event_cgroup_fd.size()) ev.cgroup_fd = plan.event_cgroup_fd[nth++];
  auto opened = CounterSet::open(groups, plan.target);
  // --per-thread -a: a thread that exited since the listing is left out, as perf.
  for (int tries = 0;
       !opened && opened.error().sys_errno() == ESRCH && cfg.target.every_thread && tries < 16;
       ++tries) {
    auto& tids = plan.target.threads;
    tids.erase(
        std::remove_if(tids.begin(), tids.end(), [](pid_t tid) { return !thread_alive(tid); }),
        tids.end());
    opened = CounterSet::open(groups, plan.target);
  }
  if (!opened) return tl::unexpected(opened.error());
  CounterSet set = std::move(*opened);
  const bool on_exec = plan.target.enable_on_exec;

  std::chrono::nanoseconds start{};
  if (!on_exec && !delayed) {
    PERFX_CHECK(set.enable());
  }
  if (workload) {
    auto started = workload->start();
    if (!started) {
      if (started.error().sys_errno() == 0) return tl::unexpected(std::move(started).error());
      run.exec_errno = started.error().sys_errno();
      return run;
    }
    start = workload->started();
  } else {
    start = monotonic_now();
  }
  UniqueFd pidfd = workload ? pidfd_open(workload->pid()) : UniqueFd();
  if (delayed) {
    const auto enable_at = start + std::chrono::nanoseconds(cfg.delay);
    while (monotonic_now() < enable_at && g_stop_signal.load() == 0)
      (void)wait_until(enable_at, -1);
    PERFX_CHECK(set.enable());
    if (cfg.on_enabled) cfg.on_enabled();
    start = monotonic_now();
  }
  const auto deadline = cfg.timeout.count() > 0 ? start + std::chrono::nanoseconds(cfg.timeout)
                                                : std::chrono::nanoseconds::max();
  int intervals = 0;

  CounterSnapshot previous;
  bool have_previous = false;
  auto last_tick = start;
  bool interval = cfg.interval.count() > 0;
  const bool timed = cfg.timeout.count() > 0;
  const auto step = std::chrono::nanoseconds(cfg.interval);
  auto next = interval ? start + step : std::chrono::nanoseconds::max();
  for (;;) {
    bool done = false;
    // -p/-t: the targets are not our children, so no pidfd says when they are gone; look
    // every 100 ms (perf stops when the last one exits, too).
    const auto check_by =
        plan.task_target ? monotonic_now() + kTaskPoll : std::chrono::nanoseconds::max();
    if (interval || timed) {
      // tick, timeout, exit or Ctrl-C
      (void)wait_until(std::min({next, check_by, deadline}), pidfd.get());
    } else if (!workload) {
      (void)wait_until(check_by, -1);  // until Ctrl-C (or the -p/-t targets exit)
    }
    if (plan.task_target && !any_task_alive(plan.target.threads)) done = true;
    if (timed && monotonic_now() >= deadline) {
      done = true;
      run.timed_out = true;
      if (workload) (void)workload->kill(SIGTERM);  // perf's --timeout
    }
    if (workload) {
      if ((!interval && !timed) || done || g_stop_signal.load() != 0) {
        // Ctrl-C reaches the child from the terminal too: wait for it, as perf does.
        PERFX_TRY(st, workload->wait());
        run.exit = st;
        done = true;
      } else {
        ExitStatus st;
        PERFX_TRY(exited, workload->try_wait(st));
        if (exited) {
          run.exit = st;
          done = true;
        }
      }
    } else if (g_stop_signal.load() != 0) {
      done = true;
    }
    const auto now = run.exit ? run.exit->ended : monotonic_now();
    if (interval && (now >= next || done)) {
      PERFX_TRY(snap, set.read());
      if (cfg.on_read) cfg.on_read(snap, std::chrono::duration<double>(now - start).count());
      if (cfg.on_interval) {
        CounterSnapshot d = have_previous ? delta(snap, previous) : snap;
        const double t = std::chrono::duration<double>(now - start).count();
        const double len = static_cast<double>((now - last_tick).count());
        cfg.on_interval(d, t, len);
      }
      previous = std::move(snap);
      have_previous = true;
      last_tick = now;
      while (next <= now) next += step;
      if (cfg.interval_count > 0 && ++intervals >= cfg.interval_count) {
        // perf stops printing; without a workload it stops, with one it waits for it.
        interval = false;
        next = std::chrono::nanoseconds::max();
        if (!workload) done = true;
      }
    }
    if (done) {
      run.elapsed = now - start;
      break;
    }
  }
  if (!on_exec || !workload) (void)set.disable();
  PERFX_TRY(final_counts, set.read());
  run.counts = std::move(final_counts);
  run.stop_signal = g_stop_signal.load();
  return run;
}

}  // namespace

}  // namespace perfx::sys

namespace perfx {

Result<StatThreads> resolve_stat_threads(const StatTargetOptions& target) {
  StatThreads out;
  std::vector<pid_t> pids = target.pids;
  const bool every = pids.empty() && target.tids.empty() && target.every_thread;
  if (every) {
    // --per-thread -a: every process now alive (perf's thread map of /proc).
    PERFX_TRY(all, sys::all_processes());
    pids = std::move(all);
  }
  for (pid_t pid : pids) {
    auto tids = sys::process_threads(pid);
    if (!tids && every) continue;  // gone since the listing
    if (!tids) return tl::unexpected(tids.error());
    for (pid_t t : *tids) out.tids.push_back(t);
  }
  for (pid_t tid : target.tids) {
    if (::kill(tid, 0) < 0 && errno == ESRCH) {
      return fail(Errc::kNotFound, "no thread with tid {}", tid);
    }
    out.tids.push_back(tid);
  }
  for (pid_t t : out.tids) out.comms.push_back(sys::thread_comm(t));
  return out;
}

Result<std::vector<StatRun>> run_stat_session(const StatSessionConfig& cfg) {
  sys::StopSignals signals;
  std::vector<StatRun> runs;
  const int n = cfg.command.empty() ? 1 : std::max(1, cfg.runs);
  for (int i = 0; i < n; ++i) {
    if (!cfg.pre_command.empty()) {
      const int st = std::system(cfg.pre_command.c_str());
      if (st != 0)
        return fail(Errc::kInvalidArgument, "--pre command '{}' failed (status {})",
                    cfg.pre_command, st);
    }
    if (cfg.sync_before_run) ::sync();  // -S: dirty pages written out first, as perf
    PERFX_TRY(run, sys::run_once(cfg));
    const bool failed = run.exec_errno != 0;
    runs.push_back(std::move(run));
    if (!cfg.post_command.empty()) (void)std::system(cfg.post_command.c_str());
    if (failed || sys::g_stop_signal.load() != 0) break;
  }
  return runs;
}

Result<void> assign_cgroups(StatSessionConfig& cfg, std::string_view g_list,
                            std::string_view for_each) {
  if (!g_list.empty() && !for_each.empty())
    return fail(Errc::kInvalidArgument, "--for-each-cgroup cannot be used with -G/--cgroup");
  std::size_t events = 0;
  for (const auto& g : cfg.groups) events += g.events.size();
  if (!for_each.empty()) {
    const auto names = sys::split_commas(for_each);
    std::vector<CounterGroupSpec> expanded;
    for (const auto& name : names) {
      if (name.empty())
        return fail(Errc::kInvalidArgument, "--for-each-cgroup '{}': an empty cgroup name",
                    for_each);
      expanded.insert(expanded.end(), cfg.groups.begin(), cfg.groups.end());
      cfg.target.event_cgroups.insert(cfg.target.event_cgroups.end(), events, name);
    }
    cfg.groups = std::move(expanded);
    return {};
  }
  if (g_list.find(',') == std::string_view::npos) {
    cfg.target.cgroup = std::string(g_list);
    return {};
  }
  auto names = sys::split_commas(g_list);
  if (names.size() > events)
    return fail(Errc::kInvalidArgument,
                "-G '{}' names {} cgroups for {} event{}: one per event, in order", g_list,
                names.size(), events, events == 1 ? "" : "s");
  names.resize(events);
  cfg.target.event_cgroups = std::move(names);
  return {};
}

}  // namespace perfx
