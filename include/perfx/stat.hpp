#pragma once
/// \file
/// `perf stat` as a library: count events over a workload or a target (session), turn
/// the counts of one or more runs into report lines (model), and print them the way
/// perf stat 6.1 does in its text, CSV (-x) and JSON (-j) layouts (formatter).
///
/// \code
///   auto groups = perfx::parse_events("task-clock,page-faults");
///   perfx::StatSessionConfig cfg;
///   cfg.groups = perfx::counter_groups(*groups);     // `groups` must outlive the session
///   cfg.command = {"sleep", "1"};
///   auto runs = perfx::run_stat_session(cfg);
///   perfx::StatReport report;
///   report.target = perfx::describe_stat_target(cfg.command, false, "", "", "");
///   report.entries = perfx::build_stat_entries({runs->front().counts}, {});
///   report.elapsed_ns = static_cast<double>(runs->front().elapsed.count());
///   std::fputs(perfx::format_stat(report, {}).c_str(), stderr);
/// \endcode
///
/// The session is the only part that touches the kernel; the model and the formatter
/// are pure functions of the counts, so they can be tested on made-up snapshots.

#include <sys/types.h>

#include <chrono>
#include <cstdint>
#include <ctime>
#include <functional>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "perfx/counter.hpp"
#include "perfx/error.hpp"
#include "perfx/events.hpp"
#include "perfx/export.hpp"
#include "perfx/workload.hpp"

namespace perfx {

// ------------------------------------------------------------------ session

/// What to count (perf stat's target options).
struct PERFX_API StatTargetOptions {
  bool system_wide = false;  ///< -a
  std::vector<int> cpus;     ///< -C list (empty: all online CPUs when system-wide)
  std::vector<pid_t> pids;   ///< -p: every thread of these processes
  std::vector<pid_t> tids;   ///< -t: these threads
  std::string cgroup;        ///< -G: cgroup2 path (relative to the cgroup2 mount)
  /// Per-event cgroups (-G a,b; --for-each-cgroup): one per event of the groups, in
  /// order ("" = the event counts the whole target); needs -a or -C.
  std::vector<std::string> event_cgroups;
  bool inherit = true;  ///< false with -i/--no-inherit
  /// --per-thread -a: a counter on every thread alive when counting starts (perf's
  /// thread map of /proc); a thread that exits before its counter opens is skipped.
  bool every_thread = false;
};

/// One full run.
struct PERFX_API StatRun {
  CounterSnapshot counts;              ///< totals of the run
  std::chrono::nanoseconds elapsed{};  ///< wall time (workload lifetime or until SIGINT)
  std::optional<ExitStatus> exit;      ///< the workload's exit when one ran
  bool timed_out = false;              ///< --timeout ended it (the workload got SIGTERM)
  /// Non-zero when the command could not be executed (ENOENT: not found): the child
  /// exited 127 and nothing was counted. See explain_exec_errno().
  int exec_errno = 0;
  /// SIGINT/SIGTERM that ended counting (Ctrl-C), 0 otherwise: perf then dies by it.
  int stop_signal = 0;
};

/// perf stat's exit status after `runs`: 128+N when a signal N stopped perf itself (perf
/// re-raises it), else the last workload's exit code, 0 when the workload was killed by
/// a signal (perf prints its name and exits 0) or --timeout ended it; 0 without one.
[[nodiscard]] PERFX_API int stat_exit_code(const std::vector<StatRun>& runs);

// ------------------------------------------------------------------ event list

/// perf stat's default events: task-clock (cpu-clock when counting CPUs, -a/-C, as perf
/// 6.1), context-switches, cpu-migrations, page-faults, cycles, instructions, branches,
/// branch-misses.
[[nodiscard]] PERFX_API std::string default_stat_events(bool cpu_target);

/// The cache events -d, -dd, -ddd add (`level` 1-3, more is 3) after the -e events or
/// the defaults: perf's detailed_attrs, very_detailed_attrs, very_very_detailed_attrs.
[[nodiscard]] PERFX_API std::string detailed_stat_events(int level);

/// perf's tool events, counted in user space: `duration_time` (wall time of the run),
/// `user_time` and `system_time` (the workload's rusage), all in ns.
enum class StatToolEvent : std::uint8_t { kDurationTime, kUserTime, kSystemTime };

/// A tool event of an -e list and where it goes among the kernel's events.
struct PERFX_API StatToolSlot {
  StatToolEvent event = StatToolEvent::kDurationTime;
  std::string name;               ///< as written (perf prints it)
  std::size_t events_before = 0;  ///< kernel events listed before it
};

/// An -e list split into the kernel's events and perf's tool events.
struct PERFX_API StatEventPlan {
  std::vector<EventGroup> groups;  ///< parse_events() of the rest (may be empty)
  std::vector<StatToolSlot> tools;
};

/// Parses a stat -e list: `duration_time`, `user_time` and `system_time` terms (outside
/// groups) become tool slots; the other terms go through parse_events() (its errors).
[[nodiscard]] PERFX_API Result<StatEventPlan> plan_stat_events(std::string_view spec);

/// perf's "Cannot find metric or group `X'" for the first name of -M's list (perf stops
/// there), empty for an empty list: perfx has no metric tables (perf's per-CPU-model
/// JSON), so like perf for an unknown name, the message is printed and the other events
/// are counted.
[[nodiscard]] PERFX_API std::string stat_metric_notice(std::string_view list);

/// --topdown / --td-level: perf 6.1's refusal on a machine without topdown events
/// ("top down event configuration requires system-wide mode (-a)", then "System does
/// not support topdown"); kNotSupported with that text. perfx has no topdown tables, so
/// it always refuses, as perf does on every PMU-less machine.
[[nodiscard]] PERFX_API Result<void> check_stat_topdown(bool system_wide);

/// Configuration of a stat session.
struct PERFX_API StatSessionConfig {
  /// The events (counter_groups() of parse_events()); a probe's attr points into the
  /// parsed EventGroups, which must outlive the session.
  std::vector<CounterGroupSpec> groups;
  StatTargetOptions target;               ///< what to count
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
  std::string pre_command;   ///< --pre (empty: none)
  std::string post_command;  ///< --post (empty: none)
  /// -S/--sync: sync() before each run (after --pre), so that writeback of earlier
  /// work does not land in the counts.
  bool sync_before_run = false;
  /// Called every interval with that interval's counts (delta), the time since start
  /// and the interval's length.
  std::function<void(const CounterSnapshot& delta, double time_s, double interval_ns)> on_interval;
  /// Called every interval, before on_interval, with the cumulative counts since the
  /// start (what `perf stat record` writes) and the time since start.
  std::function<void(const CounterSnapshot& counts, double time_s)> on_read;
};

/// perf stat's cgroup options on `cfg` (its groups parsed): `g_list` is -G's value, one
/// cgroup for the whole target ("a": cfg.target.cgroup) or one per event in order
/// ("a,,b": event 2 counts everything; events past the list too); `for_each` is
/// --for-each-cgroup's, every event repeated for each cgroup, cgroup-major. Errors name
/// the problem: more -G cgroups than events, both options, an empty --for-each-cgroup
/// name.
[[nodiscard]] PERFX_API Result<void> assign_cgroups(StatSessionConfig& cfg, std::string_view g_list,
                                                    std::string_view for_each);

/// Threads and their names for --per-thread (resolved from -p/-t).
struct PERFX_API StatThreads {
  std::vector<pid_t> tids;         ///< every thread of -p's processes, then -t's threads
  std::vector<std::string> comms;  ///< their command names, in the same order
};

/// Resolves -p/-t into thread ids and names. kNotFound for a missing process. With
/// neither, but `every_thread` (--per-thread -a): every thread of every process now alive.
[[nodiscard]] PERFX_API Result<StatThreads> resolve_stat_threads(const StatTargetOptions& target);

/// Runs the session. Errors: explained open errors (permission, fd limit, ...) and
/// kInvalidArgument for an impossible target combination. An exec failure of the command
/// is not an error: the last StatRun has `exec_errno` set and the runs stop.
[[nodiscard]] PERFX_API Result<std::vector<StatRun>> run_stat_session(
    const StatSessionConfig& config);

// ------------------------------------------------------------------ model and formatter

/// How counts are split into lines.
enum class StatAggr : std::uint8_t {
  kGlobal,     ///< one line per event
  kPerCpu,     ///< -A/--no-aggr: one line per event and CPU, prefixed "CPU<n>"
  kPerThread,  ///< --per-thread: one line per event and thread, prefixed "comm-tid"
  kPerSocket,  ///< --per-socket: one line per socket and event, prefixed "S0" and its CPUs
  kPerDie,     ///< --per-die: "S0-D0"
  kPerCore,    ///< --per-core: "S0-D0-C0"
  kPerNode,    ///< --per-node: "N0"
};

/// The modes that sum CPUs by where they sit (socket, die, core, node).
[[nodiscard]] constexpr bool aggregates_cpus(StatAggr a) noexcept {
  return a == StatAggr::kPerSocket || a == StatAggr::kPerDie || a == StatAggr::kPerCore ||
         a == StatAggr::kPerNode;
}

/// Output layout.
enum class StatLayout : std::uint8_t { kText, kCsv, kJson };

/// One line's worth of counts (one event, or one event on one CPU/thread).
struct PERFX_API StatEntry {
  std::string name;          ///< event name as printed
  std::uint32_t type = 0;    ///< attr.type (picks the unit and the derived metric)
  std::uint64_t config = 0;  ///< attr.config
  bool supported = true;     ///< false: "<not supported>"
  double value = 0;          ///< scaled count (mean over runs); ns for task-clock/cpu-clock
  double time_enabled = 0;   ///< ns (mean over runs)
  double time_running = 0;   ///< ns (mean over runs); 0 means "<not counted>"
  double noise_pct = 0;      ///< relative standard error of the mean over runs, percent
  int cpu = -1;              ///< kPerCpu: the CPU number
  std::string comm;          ///< kPerThread: the thread's command name
  int tid = -1;              ///< kPerThread: the thread id
  /// aggregates_cpus(): the socket/die/core/node of the line (the fields of the mode; the
  /// others -1) and how many CPUs it sums.
  CpuPlace place;
  int aggr_cpus = 0;
  /// The event's own cgroup (-G a,b; --for-each-cgroup), printed after its name; empty:
  /// StatReport::cgroup.
  std::string cgroup;
};

/// Everything a stat printout shows.
struct PERFX_API StatReport {
  /// What was counted, as perf words it after "for ": "'true 1'", "'system wide'",
  /// "'CPU(s) 0-1'", "process id '42'", "thread id '42'".
  std::string target;
  int runs = 1;  ///< -r N
  StatAggr aggr = StatAggr::kGlobal;
  std::string cgroup;              ///< -G with one cgroup: printed after each event name
  std::vector<StatEntry> entries;  ///< print order (event-major)
  double elapsed_ns = 0;           ///< wall time (mean over runs)
  double elapsed_stddev_ns = 0;    ///< standard error of the mean over runs
  bool show_rusage = false;        ///< print "seconds user/sys" (a workload was run once)
  double user_s = 0;               ///< workload user time
  double sys_s = 0;                ///< workload system time
  /// --table (with -r): perf's table of each run's wall time before the final result.
  bool table = false;
  std::vector<double> run_elapsed_ns;  ///< each run's wall time, for the table
};

/// Layout options.
struct PERFX_API StatFormatOptions {
  StatLayout layout = StatLayout::kText;
  std::string csv_sep = ",";  ///< -x SEP
  /// perf's big_num (-B, on unless --no-big-num): text counts grouped by thousands with
  /// the locale's separator ("%'18.0f"); empty = not grouped (the C locale's).
  std::string thousands_sep;
  /// --metric-only (text layout): instead of the counts, a line of the metrics' units and
  /// a line of their values, 21 columns each (perf's METRIC_ONLY_LEN + 1); an event not
  /// counted leaves an empty cell, a rate metric ("/sec", "CPUs utilized") none, as perf.
  bool metric_only = false;
};

/// The derived metric of an entry (empty unit = none), as perf computes it from the
/// other entries of the same CPU/thread: value and unit ("CPUs utilized", "K/sec",
/// "insn per cycle", "of all branches", "GHz"...), plus the printf format perf uses.
struct PERFX_API StatMetric {
  bool present = false;  ///< false: no metric at all (no inputs)
  bool blank = false;    ///< metric known but its inputs are missing: printed empty
  double value = 0;
  std::string unit;
  std::string format;  ///< "%8.3f", "%7.2f ", "%7.2f%%"
};

/// Computes entry `index`'s metric from `report` (wall time `wall_ns` for "CPUs utilized").
[[nodiscard]] PERFX_API StatMetric compute_metric(const StatReport& report, std::size_t index,
                                                  double wall_ns);

/// The unit and scale perf shows for an event: task-clock/cpu-clock -> "msec", 1e-6.
struct PERFX_API StatUnit {
  std::string unit;    ///< "msec", or "" for a plain count
  double scale = 1.0;  ///< multiplies the count into `unit`
};
/// StatUnit of the event with this attr type and config.
[[nodiscard]] PERFX_API StatUnit stat_unit(std::uint32_t type, std::uint64_t config);

/// The full non-interval output: header, one line per entry, footer (text); the lines
/// only (CSV, JSON).
[[nodiscard]] PERFX_API std::string format_stat(const StatReport& report,
                                                const StatFormatOptions& opts);

/// format_stat() after an interval run (--summary): the same, but with `csv_summary`
/// each CSV line is prefixed with "summary" in the interval column (`%16s`), as perf
/// does unless --no-csv-summary.
[[nodiscard]] PERFX_API std::string format_stat_summary(const StatReport& report,
                                                        const StatFormatOptions& opts,
                                                        bool csv_summary);

/// One interval (-I): lines prefixed with the timestamp `time_s` (seconds since start).
/// `column_header` prints perf's "#           time             counts unit events"
/// line first (text only; perf repeats it every 25 intervals).
[[nodiscard]] PERFX_API std::string format_stat_interval(const StatReport& report,
                                                         const StatFormatOptions& opts,
                                                         double time_s, bool column_header);

/// The attr type of a tool event's entry (StatEntry::config is its StatToolEvent): its
/// unit is "ns", and it gets the generic "/sec" metric next to a clock, as in perf.
inline constexpr std::uint32_t kStatToolType = 0xfffffff0u;

/// Adds the tool events' entries to `report` (after build_stat_entries() of
/// `kernel_events` events, global or event-major aggregation), each after the entries of
/// the kernel events listed before it: `duration_ns` for duration_time, the workload's
/// user and system time for the others. A value of 0 prints "<not counted>", as perf.
PERFX_API void add_stat_tool_entries(StatReport& report, const std::vector<StatToolSlot>& tools,
                                     std::size_t kernel_events, double duration_ns, double user_ns,
                                     double system_ns);

/// "# started on Sun Nov 22 21:54:57 2026\n\n", written first when output goes to a file.
[[nodiscard]] PERFX_API std::string format_stat_started_on(std::time_t when);

/// Mean and the standard error of the mean over runs (perf's stddev_stats), and the
/// relative value in percent (perf's rel_stddev_stats).
struct PERFX_API RunStats {
  double mean = 0;            ///< arithmetic mean
  double stddev_of_mean = 0;  ///< standard error of the mean
  double rel_pct = 0;         ///< stddev_of_mean / mean, percent
};
/// RunStats of one value per run (any count; one value gives no noise).
[[nodiscard]] PERFX_API RunStats run_stats(const std::vector<double>& samples);

/// Inputs besides the counts.
struct PERFX_API StatModelOptions {
  StatAggr aggr = StatAggr::kGlobal;      ///< how the entries split the counts
  std::vector<std::string> thread_comms;  ///< kPerThread: comm of each snapshot thread row
  /// kPerThread: when set, thread_comms[i] is the comm of thread_tids[i] (looked up by
  /// tid, "?" for another thread), for a thread list the session may have shortened.
  std::vector<pid_t> thread_tids;
  /// kPerThread of the whole system (--per-thread -a): threads that counted 0 make no
  /// line (perf's sort_aggr_thread() skips them then).
  bool skip_zero_threads = false;
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
[[nodiscard]] PERFX_API std::vector<StatEntry> build_stat_entries(
    const std::vector<CounterSnapshot>& runs, const StatModelOptions& opts);

/// perf's header wording of the target: "'cmd args'", "'system wide'", "'CPU(s) 0-1'",
/// "process id '42'", "thread id '42'".
[[nodiscard]] PERFX_API std::string describe_stat_target(const std::vector<std::string>& command,
                                                         bool system_wide,
                                                         const std::string& cpu_list,
                                                         const std::string& pids,
                                                         const std::string& tids);

}  // namespace perfx
