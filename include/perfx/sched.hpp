#pragma once
/// \file
/// Scheduler analysis of a `sched` recording (what `perf sched record` or `perfx sched
/// record` writes: sched:sched_switch, sched_waking/sched_wakeup/sched_wakeup_new,
/// sched_migrate_task, sched_stat_runtime, sched_process_fork): the typed events, and the
/// models behind `perfx sched latency`, `timehist` and `map`, with their text in perf's
/// layout.
///
/// \code
///   auto trace = perfx::load_sched_trace("perf.data");
///   if (!trace) return fail(trace.error().message());
///   perfx::SchedLatency lat = perfx::sched_latency(*trace);
///   for (const auto& row : lat.rows) use(row.comm, row.runtime_ns, row.switches);
/// \endcode
///
/// The models follow what the records say (docs/sched.md): a task switched out with
/// prev_state R or R+ (preempted) is runnable from that moment, a sleeping one from its
/// sched_waking (or sched_wakeup when no sched_waking was recorded), so every switch-in
/// of a task counts and carries its delay. perf 6.1 differs on kernels >= 4.14 (see there).

#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

#include "perfx/error.hpp"
#include "perfx/export.hpp"

namespace perfx {

/// What a SchedEvent is.
enum class SchedEventKind : std::uint8_t {
  kSwitch,     ///< sched:sched_switch (task = prev, other = next)
  kWaking,     ///< sched:sched_waking (task = the woken task)
  kWakeup,     ///< sched:sched_wakeup
  kWakeupNew,  ///< sched:sched_wakeup_new (a new task's first wakeup)
  kMigrate,    ///< sched:sched_migrate_task (task, orig_cpu -> dest_cpu)
  kRuntime,    ///< sched:sched_stat_runtime (task ran `runtime_ns`)
  kFork,       ///< PERF_RECORD_FORK / sched_process_fork (task = child tid, pid = its process)
  kComm,       ///< PERF_RECORD_COMM (task = tid, pid = its process, comm = the new name)
  kExit,       ///< PERF_RECORD_EXIT (task = tid)
};

/// One scheduler event of a recording. Which fields mean something depends on `kind`.
struct PERFX_API SchedEvent {
  SchedEventKind kind = SchedEventKind::kSwitch;
  std::uint64_t time = 0;        ///< ns, the recording's clock
  std::int32_t cpu = -1;         ///< the cpu that recorded it (-1 for COMM/FORK/EXIT records)
  std::int32_t sample_tid = -1;  ///< the sample's thread (-1 when the kernel gave none)
  std::int32_t task = -1;        ///< switch: prev_pid; wakeups, migrate, runtime: the task (tid)
  std::int32_t other = -1;       ///< switch: next_pid
  std::int32_t pid = -1;         ///< fork/comm: the task's process; others: unused
  std::int32_t ppid = -1;        ///< fork: the parent process
  std::int32_t prio = 0;         ///< switch: prev_prio; wakeups: prio
  std::int32_t other_prio = 0;   ///< switch: next_prio
  std::int64_t prev_state = 0;   ///< switch: prev_state as recorded (TASK_REPORT bits)
  char state = 'R';              ///< switch: prev_state as a letter (R, S, D, T, t, X, Z, P, I)
  std::int32_t orig_cpu = -1, dest_cpu = -1;  ///< migrate; wakeups: dest_cpu = target_cpu
  std::uint64_t runtime_ns = 0;               ///< runtime
  std::string comm;        ///< switch: prev_comm; wakeups, migrate, runtime, comm: the task's
  std::string other_comm;  ///< switch: next_comm
};

/// Highest cpu number the models track (perf's MAX_CPUS); switches on cpus outside
/// [0, kSchedMaxCpus) are skipped (a damaged record) and counted in SchedTrace::malformed.
inline constexpr std::int32_t kSchedMaxCpus = 4096;

/// The scheduler events of a recording, in time order.
struct PERFX_API SchedTrace {
  std::vector<SchedEvent> events;
  std::uint32_t nr_cpus = 0;      ///< online cpus (header), else highest cpu seen + 1
  bool has_waking = false;        ///< sched_waking was recorded (then sched_wakeup is ignored)
  bool has_runtime = false;       ///< sched_stat_runtime was recorded
  std::uint64_t lost_events = 0;  ///< PERF_RECORD_LOST counts
  std::uint64_t lost_chunks = 0;  ///< PERF_RECORD_LOST records
  std::uint64_t samples = 0;      ///< samples read (all events)
  std::uint64_t malformed = 0;    ///< records that did not decode (skipped)
  /// What damaged or cut the file short (the events that could be read are here); empty
  /// when the whole file read cleanly.
  std::string damage;
};

/// The letter of a recorded prev_state, as the kernel's print format spells it: the lowest
/// set bit of S D T t X Z P I; 0 and TASK_REPORT_MAX (0x100, "R+": preempted) are 'R'.
[[nodiscard]] PERFX_API char sched_state_letter(std::int64_t prev_state) noexcept;

/// Reads the scheduler events of `path` (file or pipe mode, perf's or perfx's), after
/// perf's owner check: a file another user owns is refused (kPermission) unless `force`
/// (perf's -f). Errors: kNotFound/kIo/kMalformedData from the reader; kNotFound when it
/// has no sched:sched_switch events or no tracing data to decode them.
[[nodiscard]] PERFX_API Result<SchedTrace> load_sched_trace(const std::string& path,
                                                            bool force = false);

// ------------------------------------------------------------------------ latency

/// Options of sched_latency() (perf sched latency's).
struct PERFX_API SchedLatencyOptions {
  /// Sort keys, most significant first: "pid", "avg", "max", "switch", "runtime"
  /// (perf's default "avg,max,switch,runtime"); larger values first.
  std::vector<std::string> sort = {"avg", "max", "switch", "runtime"};
  bool per_pid = false;  ///< one row per thread (perf's -p/--pids), else per command name
};

/// One row: a thread, or all threads of one command name.
struct PERFX_API SchedLatencyRow {
  std::string comm;
  std::int32_t tid = 0;          ///< the thread (the first one's when merged)
  std::uint32_t merged = 1;      ///< threads in the row
  std::uint64_t runtime_ns = 0;  ///< sched_stat_runtime sum (switch intervals without it)
  std::uint64_t switches = 0;    ///< switch-ins with a measured delay
  std::uint64_t total_delay_ns = 0;
  std::uint64_t max_delay_ns = 0;
  std::uint64_t max_delay_start = 0, max_delay_end = 0;  ///< runnable and switch-in times
  [[nodiscard]] std::uint64_t avg_delay_ns() const noexcept {
    return switches == 0 ? 0 : total_delay_ns / switches;
  }
};

/// sched_latency()'s result.
struct PERFX_API SchedLatency {
  std::vector<SchedLatencyRow> rows;  ///< sorted; rows without switches are left out
  std::uint64_t total_runtime_ns = 0, total_switches = 0;
  /// Wakeups of sleeping tasks, and those timed before the task's switch-out (unordered).
  std::uint64_t timestamps = 0, unordered_timestamps = 0;
  std::uint64_t context_switch_bugs = 0;  ///< switch-outs of a task that was not current
  std::uint64_t lost_events = 0, lost_chunks = 0, events = 0;
};

/// Errors: kInvalidArgument naming an unknown sort key.
[[nodiscard]] PERFX_API Result<void> check_sched_latency_sort(const std::vector<std::string>& keys);

/// Per-task scheduling latency (perf sched latency). Unknown sort keys are ignored
/// (check them first with check_sched_latency_sort()).
[[nodiscard]] PERFX_API SchedLatency sched_latency(const SchedTrace& trace,
                                                   const SchedLatencyOptions& options = {});

/// perf sched latency's table.
[[nodiscard]] PERFX_API std::string format_sched_latency(const SchedLatency& latency);

// ------------------------------------------------------------------------ timehist

/// Options of sched_timehist().
struct PERFX_API SchedTimehistOptions {
  bool wakeups = false;     ///< also lines for wakeup events (-w)
  bool migrations = false;  ///< also lines for migrations (-M)
  /// -p/--pid, -t/--tid: only the switches of these processes / threads (both lists:
  /// both must match; the idle task is process and thread 0). A filtered switch gives no
  /// line and no statistics; a -w/-M line goes when both of its tasks are filtered.
  std::vector<std::int32_t> pids, tids;
  /// -C/--cpu: the switch lines of these cpus only (statistics count every cpu, as perf).
  std::vector<int> cpus;
};

/// One line of the timehist: a switch-out (kind kSwitch), a wakeup or a migration.
struct PERFX_API SchedTimehistLine {
  SchedEventKind kind = SchedEventKind::kSwitch;
  std::uint64_t time = 0;
  std::int32_t cpu = 0;
  std::string task;      ///< "comm[tid/pid]", "comm[tid]" or "<idle>"
  std::int32_t tid = 0;  ///< the switched-out task (0 for idle)
  std::uint64_t wait_ns = 0, delay_ns = 0, run_ns = 0;  ///< switch lines
  std::string target;                         ///< wakeup/migration: the woken/migrated task
  std::int32_t orig_cpu = -1, dest_cpu = -1;  ///< migration
};

/// Per-thread totals of the timehist (the -s summary).
struct PERFX_API SchedTimehistTask {
  std::string task;  ///< as in the lines
  std::int32_t tid = 0, ppid = -1;
  std::uint64_t sched_in = 0;  ///< run intervals measured
  std::uint64_t run_ns = 0, min_run_ns = 0, max_run_ns = 0;
  double mean_run_ns = 0, stddev_pct = 0;  ///< relative stddev of the mean, percent
  std::uint64_t sleep_ns = 0, iowait_ns = 0, preempt_ns = 0, delay_ns = 0;
  std::uint64_t migrations = 0;
  bool exited = false;  ///< a PERF_RECORD_EXIT was seen (perf lists it under "Terminated tasks")
};

/// sched_timehist()'s result.
struct PERFX_API SchedTimehist {
  std::vector<SchedTimehistLine> lines;
  std::vector<SchedTimehistTask> tasks;         ///< by tid; idle excluded
  std::vector<std::uint64_t> idle_ns;           ///< per cpu
  std::vector<std::uint64_t> idle_count;        ///< per cpu: idle intervals measured
  std::uint64_t first_time = 0, last_time = 0;  ///< of the switch events
  std::uint32_t max_cpu = 0;                    ///< highest cpu seen
  /// The pid/tid filter left events out: perf then prints no idle stats and no totals.
  bool skipped = false;
};

/// One line per context switch with the switched-out task's wait time (off-cpu time since
/// its last switch-out), scheduling delay (runnable until switch-in) and run time.
[[nodiscard]] PERFX_API SchedTimehist sched_timehist(const SchedTrace& trace,
                                                     const SchedTimehistOptions& options = {});

/// perf sched timehist's lines (header included), or with `summary_only` its summary.
[[nodiscard]] PERFX_API std::string format_sched_timehist(const SchedTimehist& timehist,
                                                          bool with_summary, bool summary_only);

// ------------------------------------------------------------------------ map

/// perf sched map's text: one line per switch, a column per cpu with a two-character
/// name of its current task ('*' marks the switching cpu; '.' is idle), and the legend
/// "A0 => comm:tid" when a task appears first.
[[nodiscard]] PERFX_API std::string format_sched_map(const SchedTrace& trace);

}  // namespace perfx
