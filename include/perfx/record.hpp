#pragma once
/// \file
/// Recording, as `perf record` does it: options in, a perf.data out. Two steps a program
/// can use separately:
///  - plan_record(): pure policy, options -> every perf_event_attr (sample_type,
///    read_format, period/frequency, side-band bits, the dummy tracking event), the event
///    groups, the perf.data features and what to synthesize. No kernel call but the
///    event-name lookups (sysfs, tracefs) and the kernel's sample-rate cap.
///  - run_record_session(): opens the plan's events (with perf's fallbacks), writes what
///    already runs (tasks, maps, the kernel map), drains the ring buffers into the file
///    (written through every quarter second), switches files (--switch-output), adds the
///    lost-sample records and the build-ids of the DSOs the samples hit. Everything worth
///    telling the user goes to a RecordObserver; the library never prints.
///
/// \code
///   perfx::RecordOptions opt;
///   opt.events = {"cpu-clock"};
///   opt.command = {"sleep", "1"};
///   opt.output = "/tmp/sleep.data";
///   perfx::RecordObserver quiet;              // every callback does nothing by default
///   auto r = perfx::record_perf_data(opt, quiet);
///   if (r) std::printf("%llu samples\n", (unsigned long long)r->samples);
/// \endcode
///
/// run_live_session() runs the same plan without a file: the records go to the observer
/// (what `perfx top` aggregates).

#include <sys/types.h>

#include <cstddef>
#include <cstdint>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "perfx/error.hpp"
#include "perfx/events.hpp"
#include "perfx/export.hpp"
#include "perfx/raw.hpp"

namespace perfx {

/// Whose attrs the plan makes: perf record's, or perf top's (a live view: no tracking
/// event, read_format ID only, the side-band on the first event, inherit only for tasks).
enum class RecordStyle : std::uint8_t { kRecord, kTop };

/// --filter / --exclude-perf: an ftrace filter for the tracepoints of one -e value (perf
/// applies it to every event of the -e it follows; several are joined with "&&").
struct PERFX_API EventFilter {
  std::size_t event = 0;      ///< index into RecordOptions::events: the -e it follows
  std::string filter;         ///< the filter text ("prev_pid > 0"); ignored with exclude_perf
  bool exclude_perf = false;  ///< --exclude-perf: "common_pid != <this process>"
};

/// perf record's options, typed. Strings are parsed by plan_record() with perf's syntax
/// and its error messages.
struct PERFX_API RecordOptions {
  RecordStyle style = RecordStyle::kRecord;
  /// -e values (perf's syntax; groups in braces). Empty: perf's "cycles", which falls
  /// back to cpu-clock on a machine without a PMU.
  std::vector<std::string> events;
  std::optional<std::uint64_t> freq;    ///< -F Hz (default 4000, capped at the kernel's max)
  bool max_freq = false;                ///< -F max: the kernel's perf_event_max_sample_rate
  std::optional<std::uint64_t> period;  ///< -c: a sample every N events
  /// --call-graph: "" (none), "fp" (-g), "dwarf[,stack size]"; "lbr" is refused (no PMU).
  std::string call_graph;

  // ---- target. No command and no target: the whole system (perf's habit).
  bool system_wide = false;          ///< -a
  std::string cpus;                  ///< -C list ("0,2-3")
  std::string pids;                  ///< -p list: every thread of these processes
  std::string tids;                  ///< -t list
  std::string cgroup;                ///< -G: a cgroup v2 path; needs -a or -C
  std::vector<std::string> command;  ///< the workload (argv), started by the session
  bool inherit = true;               ///< false with -i/--no-inherit
  /// --per-thread: events per thread (cpu -1, a ring buffer each), not inherited.
  bool per_thread = false;

  // ---- output
  std::string output = "perf.data";  ///< "-": pipe mode on stdout (stdout becomes stderr)
  int compression_level = 0;         ///< -z (1) / --compression-level (1..22); 0: none
  std::string mmap_pages;            ///< -m: pages (power of two) or a size ("512K")
  std::string max_size;              ///< --max-size ("100M"): stop at this data size
  bool timestamp_filename = false;   ///< --timestamp-filename: rename to <output>.<ts>
  /// --switch-output: "signal" (SIGUSR2), a size ("100M") or a time ("30s"); "": off.
  std::string switch_output;
  unsigned switch_max_files = 0;  ///< --switch-max-files: keep only the newest N files
  bool build_ids = true;          ///< false with -B: no HEADER_BUILD_ID
  /// --overwrite: backward ring buffers (a flight recorder): the newest data that fit,
  /// read when the session ends.
  bool overwrite = false;
  /// --mmap-flush: the least bytes a ring buffer must hold to be read (not at the end);
  /// perf's sizes (B/K/M/G). "": 1.
  std::string mmap_flush;
  /// --aio[=n]: perf's n asynchronous write blocks (1..4), accepted and checked; perfx
  /// writes synchronously (drained and written through every quarter second) either way.
  unsigned aio = 0;
  std::string affinity;  ///< --affinity: "node" or "cpu" (the reader's CPUs); "": sys
  /// --control "fd:ctl[,ack]" or "fifo:ctl[,ack]": commands (enable, disable, ping,
  /// stop, evlist) read from ctl while recording, "ack\n" written to ack.
  std::string control;
  /// HEADER_CMDLINE (argv[0] first). Empty: {"perfx record"}.
  std::vector<std::string> cmdline;
  std::string version = "perfx";  ///< HEADER_VERSION text

  // ---- sample fields and attr switches (perf record's)
  bool sample_cpu = false;               ///< --sample-cpu
  bool data = false;                     ///< -d: data addresses (and data mmaps)
  bool sample_period = false;            ///< -P
  bool weight = false;                   ///< -W
  bool raw_samples = false;              ///< -R
  bool phys_data = false;                ///< --phys-data
  std::optional<std::string> intr_regs;  ///< -I / --intr-regs[=ax,bx]; "": all registers
  std::optional<std::string> user_regs;  ///< --user-regs[=ip,sp]; "": all registers
  bool data_page_size = false;           ///< --data-page-size
  bool code_page_size = false;           ///< --code-page-size
  bool sample_identifier = false;        ///< --sample-identifier
  bool all_kernel = false;               ///< --all-kernel
  bool all_user = false;                 ///< --all-user
  bool namespaces = false;               ///< --namespaces
  bool all_cgroups = false;              ///< --all-cgroups
  bool switch_events = false;            ///< --switch-events
  bool inherit_stat = false;             ///< -s/--stat: per-thread counts (inherit_stat)
  bool no_samples = false;               ///< -n/--no-samples: count, do not sample
  bool sample_time = false;              ///< -T given: PERF_SAMPLE_TIME even with --per-thread
  bool user_callchains = false;          ///< --user-callchains: no kernel part in callchains
  /// -j/--branch-filter (perf's modes, comma list: any, u, k, call, ...); -b is "any".
  std::string branch_filter;
  std::vector<EventFilter> filters;  ///< --filter / --exclude-perf, in command-line order
  std::string clockid;               ///< -k: monotonic, monotonic_raw, realtime, ... or a number
  bool strict_freq = false;          ///< --strict-freq: refuse -F above the kernel's maximum
  unsigned delay_ms = 0;             ///< -D: enable the events this long after the start
  bool start_disabled = false;       ///< -D -1: start disabled (--control enables them)
  /// Signals: the session catches SIGINT/SIGTERM/SIGHUP (and SIGCHLD, SIGUSR2) while it
  /// runs, to finish the file instead of dying. Only one session may run at a time.
  bool handle_signals = true;
};

/// One event of a plan, ready for perf_event_open(2) (after attr_for_open()).
struct PERFX_API PlannedEvent {
  std::string name;       ///< as written ("cpu-clock:u"), "dummy:HG" for the tracking event
  std::string canonical;  ///< perf's spelling ("sched:sched_switch")
  EventKind kind = EventKind::kSoftware;
  raw::EventAttr attr{};    ///< every field set; for probes config1 is 0: use attr_for_open()
  int group_leader = -1;    ///< index of its group's leader, -1 when it leads (or is alone)
  bool is_default = false;  ///< perf's default event (no -e), or the tracking event
  bool explicit_privilege = false;   ///< u/k/h given: never made user-only by the fallback
  bool precise_max = false;          ///< `:P`: precise_ip 3, lowered until it opens
  bool tracking = false;             ///< the dummy event that carries the side-band
  std::uint64_t default_period = 0;  ///< the event's own period without -c/-F (1: every hit)
  bool period_from_term = false;     ///< period=/freq= terms: -c/-F leave it alone
  std::string probe_target;          ///< probes: the string config1 points at when opened
  std::string filter;                ///< tracepoint filter (--filter, --exclude-perf)

  /// `attr`, with config1 pointing at `probe_target` for probes (valid while *this lives).
  [[nodiscard]] raw::EventAttr attr_for_open() const {
    raw::EventAttr a = attr;
    if (kind == EventKind::kUprobe || kind == EventKind::kKprobe)
      a.config1 = reinterpret_cast<std::uintptr_t>(probe_target.c_str());
    return a;
  }
};

/// HEADER_GROUP_DESC entry: a `{a,b}` group by its leader.
struct PERFX_API PlannedGroup {
  std::string name = "{anon_group}";
  std::uint32_t leader = 0;   ///< index into RecordPlan::events
  std::uint32_t members = 0;  ///< leader included
};

/// --switch-output, parsed.
struct PERFX_API SwitchOutputPlan {
  bool on = false;
  bool signal = false;        ///< on SIGUSR2
  std::uint64_t size = 0;     ///< bytes (0: not by size)
  std::uint64_t seconds = 0;  ///< period (0: not by time)
};

/// What the session synthesizes for what runs already.
struct PERFX_API SynthesisPlan {
  bool kernel_map = true;      ///< [kernel.kallsyms]_text MMAP
  bool all_processes = false;  ///< every process in /proc (system-wide)
  bool mmap_data = false;      ///< non-executable mappings too (-d, dwarf call graphs)
  bool namespaces = false;     ///< NAMESPACES records (--namespaces)
  bool cgroups = false;        ///< CGROUP records of the cgroup2 tree (--all-cgroups)
  bool workload_comm = false;  ///< a "perfx-exec" COMM for the not yet exec'd workload
};

/// --control, parsed: file descriptors given by the caller, or FIFOs opened by the session.
struct PERFX_API ControlPlan {
  bool on = false;
  bool fifo = false;     ///< fifo:paths (else fd:numbers)
  int ctl_fd = -1;       ///< fd: the command fd
  int ack_fd = -1;       ///< fd: the ack fd (-1: none)
  std::string ctl_path;  ///< fifo: the command FIFO
  std::string ack_path;  ///< fifo: the ack FIFO ("": none)
};

/// Everything decided before the kernel is asked: attrs, target shape, file choices.
struct PERFX_API RecordPlan {
  RecordOptions options;  ///< what it was planned from (target lists, output)
  /// The events as resolved from their names, before the policy (what add_planned_events()
  /// appends to); `events` is made from them.
  std::vector<PlannedEvent> requested;
  std::vector<PlannedEvent> events;    ///< in open order; the tracking event (if any) last
  std::vector<PlannedGroup> groups;    ///< HEADER_GROUP_DESC
  bool default_event = false;          ///< no -e: perf's cycles (cpu-clock fallback)
  bool implicit_system_wide = false;   ///< no command and no target: -a was assumed
  bool system_wide = false;            ///< -a or -C (CPU-wide events)
  bool task_target = false;            ///< -p or -t
  bool follows_workload_only = false;  ///< a command and no other target
  bool tracking_event = false;         ///< a dummy event carries the side-band
  std::uint64_t freq = 4000;           ///< the frequency used by freq events
  /// -F (or the default) was above perf_event_max_sample_rate: {asked, max}. `freq` is
  /// then the maximum, unless strict_freq refused (run_record_session() fails then).
  std::optional<std::pair<std::uint64_t, std::uint64_t>> freq_capped;
  std::size_t data_pages = 0;       ///< ring buffer pages per CPU (0: the sampler's default)
  bool data_pages_rounded = false;  ///< -m was rounded up to a power of two
  int compression_level = 0;
  std::optional<int> clockid;  ///< -k
  std::uint64_t max_size = 0;  ///< --max-size bytes (0: none)
  SwitchOutputPlan switch_output;
  /// HEADER_TRACING_DATA: the tracepoints (subsys, name) whose formats are stored.
  std::vector<std::pair<std::string, std::string>> tracepoints;
  SynthesisPlan synthesis;
  bool enable_on_start = false;  ///< enabled by the session at once (not by exec / -D)
  /// -F max: the maximum used (perf's "info: Using a maximum frequency rate of N Hz").
  std::optional<std::uint64_t> max_freq_used;
  std::uint64_t mmap_flush = 1;  ///< --mmap-flush, bytes
  unsigned aio_blocks = 0;       ///< --aio
  ControlPlan control;           ///< --control
};

/// Plans `options` on this system (event names through sysfs/tracefs, the sample-rate
/// cap from /proc). Errors name the bad option or event (kInvalidArgument, kNotFound,
/// kNotSupported), with perf's wording.
[[nodiscard]] PERFX_API Result<RecordPlan> plan_record(const RecordOptions& options);

/// Adds events to a plan with the same attr policy as -e events (sample_type, period,
/// inherit, ...); the tracking event stays last. For options that add their own events
/// (an off-CPU profile's sched_switch). `spec` is perf's -e syntax ("sched:sched_switch",
/// "{a,b}"); errors as plan_record()'s.
[[nodiscard]] PERFX_API Result<void> add_planned_events(RecordPlan& plan, std::string_view spec);

/// The same with events made by the caller (a kprobe_event(), ...): each group's leader
/// comes first; `group_leader` counts within `events` (-1: leads itself).
[[nodiscard]] PERFX_API Result<void> add_planned_events(RecordPlan& plan,
                                                        std::vector<PlannedEvent> events);

/// Short text of the fields of an attr that the event model sets, for `-v` output
/// ("type=1 (software) config=0x0 ..."); describe_attr() is the full perf -vv dump.
[[nodiscard]] PERFX_API std::string attr_summary(const raw::EventAttr& attr);

/// What the session tells as it goes. Every callback has an empty default; they run on
/// the session's thread.
class PERFX_API RecordObserver {
 public:
  virtual ~RecordObserver();
  /// The default cycles event has no PMU here: it opens as cpu-clock instead.
  virtual void on_cycles_fallback() {}
  /// perf_event_paranoid (`paranoid`) forbids kernel samples: `events` (comma list, new
  /// names) record user space only.
  virtual void on_user_space_only(long long paranoid, const std::string& events) {
    (void)paranoid;
    (void)events;
  }
  /// The kernel map could not be synthesized (kptr_restrict): kernel samples stay raw.
  virtual void on_no_kernel_map(const Error& why) { (void)why; }
  /// A build-id was stored for `path` (hex digits).
  virtual void on_build_id(const std::string& hex, const std::string& path) {
    (void)hex;
    (void)path;
  }
  /// -D: false when the events wait for the delay, true when they are enabled.
  virtual void on_events_enabled(bool enabled) { (void)enabled; }
  /// --control: a line perf prints for a command ("Event cpu-clock enabled", an event
  /// name of "evlist", "failed: can't find 'x' event").
  virtual void on_control_message(const std::string& line) { (void)line; }
  /// --max-size reached after `bytes`: the session stops (the workload gets SIGTERM).
  virtual void on_size_limit(std::uint64_t bytes) { (void)bytes; }
  /// A finished file was renamed to `path` (--switch-output, --timestamp-filename).
  virtual void on_file_dumped(const std::string& path) { (void)path; }

  // ---- live sessions (run_live_session)
  /// The events are open: `plan` as opened (after fallbacks), `ids[i]` the kernel ids
  /// of event i's fds, `cpus` the number of CPUs they were opened on.
  virtual void on_opened(const RecordPlan& plan, const std::vector<std::vector<std::uint64_t>>& ids,
                         std::size_t cpus) {
    (void)plan;
    (void)ids;
    (void)cpus;
  }
  /// Whole records (synthesized ones first, then the ring buffers'). Valid during the call.
  virtual void on_records(std::span<const std::byte> records) { (void)records; }
  /// The records of one synthesis or drain pass have all been handed over.
  virtual void on_drained() {}
  /// How long the next wait for data may last, in ms.
  virtual int wait_timeout_ms() { return 250; }
  /// After each wait and drain; false stops the session.
  virtual bool on_round() { return true; }
  /// An fd (a terminal) whose input should wake the wait; -1: none.
  virtual int input_fd() { return -1; }
};

/// The end of a recording.
struct PERFX_API RecordResult {
  std::uint64_t samples = 0;  ///< PERF_RECORD_SAMPLE records drained
  std::uint64_t lost = 0;     ///< samples the kernel dropped (best estimate)
  std::uint64_t bytes = 0;    ///< bytes written to the (last) file, compressed when -z
  std::uint64_t throttle = 0;
  std::uint64_t unthrottle = 0;
  std::uint64_t corrupt_events = 0;  ///< ring buffers dropped for a corrupt record header
  std::uint64_t dropped_bytes = 0;   ///< their bytes
  /// The file as perf names it in its summary: the path, "(pipe)", or
  /// "<output>.<timestamp>" when renamed.
  std::string written_name;
  std::vector<std::string> dumped_files;  ///< files renamed with their timestamp, in order
  /// The exit status for a perf-like tool: the workload's (128 + signal when killed; 0
  /// when --max-size stopped it), 0 without one.
  int exit_code = 0;
  /// The workload could not be executed (127; nothing was recorded): why.
  std::optional<Error> exec_error;
};

/// Runs a plan into plan.options.output until the workload ends, SIGINT/SIGTERM/SIGHUP,
/// the buffers hang up (tasks gone) or --max-size. Errors: open failures (explained:
/// permission, no PMU, fd limit), file errors, a refused --strict-freq.
[[nodiscard]] PERFX_API Result<RecordResult> run_record_session(RecordPlan plan,
                                                                RecordObserver& observer);

/// plan_record() then run_record_session().
[[nodiscard]] PERFX_API Result<RecordResult> record_perf_data(const RecordOptions& options,
                                                              RecordObserver& observer);

/// Runs a plan without a file: opens it (fallbacks as above), hands the synthesized and
/// drained records to observer.on_records(), until observer.on_round() returns false or
/// SIGINT/SIGTERM/SIGHUP. Returns the samples drained.
[[nodiscard]] PERFX_API Result<RecordResult> run_live_session(RecordPlan plan,
                                                              RecordObserver& observer);

}  // namespace perfx
