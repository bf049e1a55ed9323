#pragma once
/// \file
/// The `perfx stat` run loop: open counters on the target, launch the workload (perf's
/// fork/handshake/enable_on_exec pattern), wait for it or for SIGINT, read, repeat for
/// -r, and call back every -I interval. Formatting is report/stat_format.hpp's job.

#include <sys/types.h>

#include <chrono>
#include <functional>
#include <optional>
#include <string>
#include <vector>

#include "perfx/counter.hpp"
#include "perfx/error.hpp"
#include "sys/workload.hpp"

namespace perfx::sys {

/// What to count (perf stat's target options).
struct StatTargetOptions {
  bool system_wide = false;  ///< -a
  std::vector<int> cpus;     ///< -C list (empty: all online CPUs when system-wide)
  std::vector<pid_t> pids;   ///< -p: every thread of these processes
  std::vector<pid_t> tids;   ///< -t: these threads
  std::string cgroup;        ///< -G: cgroup2 path (relative to the cgroup2 mount)
  /// Per-event cgroups (-G a,b; --for-each-cgroup): one per event of the groups, in
  /// order ("" = the event counts the whole target); needs -a or -C.
  std::vector<std::string> event_cgroups;
  bool inherit = true;  ///< false with -i/--no-inherit
};

/// One full run.
struct StatRun {
  CounterSnapshot counts;              ///< totals of the run
  std::chrono::nanoseconds elapsed{};  ///< wall time (workload lifetime or until SIGINT)
  std::optional<ExitStatus> exit;      ///< the workload's exit when one ran
  bool timed_out = false;              ///< --timeout ended it (the workload got SIGTERM)
  /// Non-zero when the command could not be executed (ENOENT: not found): the child
  /// exited 127 and nothing was counted. See explain_exec_errno().
  int exec_errno = 0;
};

/// Configuration of a stat session.
struct StatSessionConfig {
  std::vector<CounterGroupSpec> groups;
  StatTargetOptions target;
  std::vector<std::string> command;       ///< the workload (may be empty with -a/-p/-t/-G)
  int runs = 1;                           ///< -r N
  std::chrono::milliseconds interval{0};  ///< -I ms (0: off)
  /// --interval-count N: after N intervals no more are reported; without a workload
  /// counting stops, with one it runs to its end (perf waits for it). 0: no limit.
  int interval_count = 0;
  /// --timeout: counting stops after this long; the workload gets SIGTERM (perf). 0: off.
  std::chrono::milliseconds timeout{0};
  /// -D: the counters are enabled this long after the workload starts (or after they
  /// open, without one); the elapsed time counts from then. 0: at exec, as usual.
  std::chrono::milliseconds delay{0};
  /// Called when -D's counters get enabled (perf prints "Events enabled").
  std::function<void()> on_enabled;
  /// --pre / --post: shell commands run before and after each run; a failing --pre
  /// stops the session with an error naming its status.
  std::string pre_command;
  std::string post_command;
  /// -S/--sync: sync() before each run (after --pre), so that writeback of earlier
  /// work does not land in the counts.
  bool sync_before_run = false;
  /// Called every interval with that interval's counts (delta), the time since start
  /// and the interval's length.
  std::function<void(const CounterSnapshot& delta, double time_s, double interval_ns)> on_interval;
};

/// perf stat's cgroup options on `cfg` (its groups parsed): `g_list` is -G's value, one
/// cgroup for the whole target ("a": cfg.target.cgroup) or one per event in order
/// ("a,,b": event 2 counts everything; events past the list too); `for_each` is
/// --for-each-cgroup's, every event repeated for each cgroup, cgroup-major. Errors name
/// the problem: more -G cgroups than events, both options, an empty --for-each-cgroup
/// name.
Result<void> assign_cgroups(StatSessionConfig& cfg, std::string_view g_list,
                            std::string_view for_each);

/// Threads and their names for --per-thread (resolved from -p/-t).
struct StatThreads {
  std::vector<pid_t> tids;
  std::vector<std::string> comms;
};

/// Resolves -p/-t into thread ids and names. kNotFound for a missing process.
Result<StatThreads> resolve_stat_threads(const StatTargetOptions& target);

/// Runs the session. Errors: explained open errors (permission, fd limit, ...) and
/// kInvalidArgument for an impossible target combination. An exec failure of the command
/// is not an error: the last StatRun has `exec_errno` set and the runs stop.
Result<std::vector<StatRun>> run_stat_session(const StatSessionConfig& config);

}  // namespace perfx::sys
