#pragma once
/// \file
/// System-call tracing without ptrace (what `perfx trace` and `perf trace` do): the
/// `raw_syscalls:sys_enter`/`sys_exit` tracepoints sampled through perf_event_open on
/// every CPU, enter and exit paired per thread, the arguments decoded by name and type
/// from the `syscalls:sys_enter_*` formats in tracefs, plus optional page-fault
/// software events and other tracepoints interleaved in time order.
///
/// The tracepoints carry only pointers for strings: run_trace() reads paths from the
/// traced process's memory (process_vm_readv) when it handles the sys_enter record, a
/// best effort that is racy by nature (the process may have changed or freed the memory
/// in between; see docs/trace.md). When that fails the argument shows the pointer.
///
/// \code
///   perfx::TraceOptions opt;
///   opt.command = {"ls", "/tmp"};
///   perfx::TraceSummary summary;
///   auto catalog = perfx::SyscallCatalog::load();
///   perfx::TraceFormatOptions fmt;
///   fmt.catalog = catalog ? &*catalog : nullptr;
///   auto r = perfx::run_trace(opt, [&](const perfx::TraceEvent& ev) {
///     summary.add(ev);
///     std::fputs(perfx::format_trace_event(ev, fmt).c_str(), stdout);
///   });
///   std::fputs(summary.format().c_str(), stdout);
/// \endcode

#include <sys/types.h>

#include <array>
#include <cstddef>
#include <cstdint>
#include <functional>
#include <map>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "perfx/error.hpp"
#include "perfx/export.hpp"

namespace perfx {

// ------------------------------------------------------------ tracepoint formats

/// One field of a tracefs `format` file ("field:int dfd; offset:16; size:8; signed:0;").
struct PERFX_API TraceField {
  std::string name;             ///< "dfd", "prev_comm", "args"
  std::string type;             ///< the C type as written ("const char *", "char")
  std::uint32_t offset = 0;     ///< byte offset in the RAW payload
  std::uint32_t size = 0;       ///< bytes (the whole array for arrays)
  bool is_signed = false;       ///< signed:1
  std::uint32_t array_len = 0;  ///< N of "name[N]"; 0 for scalars
  bool is_dynamic = false;      ///< __data_loc (offset/length word pointing into the payload)
};

/// A parsed tracefs `format` file.
struct PERFX_API TraceFormat {
  std::string name;                ///< "sys_enter_openat"
  std::uint64_t id = 0;            ///< the tracepoint id (ID:)
  std::vector<TraceField> fields;  ///< every field, common_* ones first, in file order
  /// The field named `name`, or nullptr.
  [[nodiscard]] const TraceField* field(std::string_view name) const noexcept;
};

/// Parses the text of a tracefs `format` file. kMalformedData when a field line does not
/// parse or no field is found.
PERFX_API Result<TraceFormat> parse_trace_format(std::string_view text);

/// The value of scalar field `f` in a RAW payload (sign-extended when signed), or nullopt
/// when the payload is too short or the field is wider than 8 bytes.
PERFX_API std::optional<std::uint64_t> read_trace_field(std::span<const std::byte> raw,
                                                        const TraceField& f) noexcept;

/// Formats every non-common field of a RAW payload as perf trace does for a tracepoint:
/// `prev_comm: "sleep", prev_pid: 42, ...` (char arrays as strings, numbers in decimal).
PERFX_API std::string format_trace_fields(std::span<const std::byte> raw, const TraceFormat& fmt);

// ------------------------------------------------------------ system calls

/// The x86_64 name of syscall `nr`, or "" for a number the table does not have. The table
/// is generated from the kernel's uapi unistd_64.h (scripts/gen_syscall_table.sh).
PERFX_API std::string_view syscall_name(long nr) noexcept;

/// The x86_64 number of syscall `name`, or -1.
PERFX_API long syscall_number(std::string_view name) noexcept;

/// The syscall numbers whose names match `pattern`, a name or a glob ("open*", "*stat*").
/// Empty when nothing matches.
PERFX_API std::vector<long> match_syscalls(std::string_view pattern);

/// One argument of a syscall, from its `syscalls:sys_enter_<name>/format`.
struct PERFX_API SyscallArg {
  std::string name;  ///< "filename"
  std::string type;  ///< "const char *"
};

/// The argument lists of the syscalls, by syscall name.
class PERFX_API SyscallCatalog {
 public:
  /// Reads `<tracefs>/events/syscalls/sys_enter_*/format` (tracefs found in /proc/mounts
  /// when `tracefs` is empty). kNotFound when tracefs or its syscalls directory is missing.
  static Result<SyscallCatalog> load(const std::string& tracefs = {});

  /// Adds (or replaces) syscall `name`'s arguments from its parsed enter format (the
  /// `__syscall_nr` and common fields are dropped).
  void add_format(std::string_view name, const TraceFormat& enter_format);
  /// Adds (or replaces) syscall `name`'s arguments.
  void add(std::string name, std::vector<SyscallArg> args);

  /// The arguments of syscall `name`, or nullptr when unknown.
  [[nodiscard]] const std::vector<SyscallArg>* args(std::string_view name) const;
  /// Number of syscalls known.
  [[nodiscard]] std::size_t size() const noexcept { return args_.size(); }

 private:
  std::map<std::string, std::vector<SyscallArg>, std::less<>> args_;
};

/// The errno's symbolic name ("ENOENT"), or "" for an unknown number.
PERFX_API std::string_view errno_name(int err) noexcept;

/// One decoded argument value as perf trace/strace show it: `dfd` AT_FDCWD as `CWD`, open
/// flags as `RDONLY|CLOEXEC`, mmap prot/flags, access modes, lseek whence, signals, socket
/// families, fds in decimal, pointers in hex, a string read from memory in quotes
/// (`str` when it was read; the pointer otherwise).
PERFX_API std::string format_syscall_arg(std::string_view syscall, const SyscallArg& arg,
                                         std::uint64_t value,
                                         const std::optional<std::string>& str = std::nullopt);

/// A return value: `3`, `0x7f12...` for address-returning calls (mmap, brk ...),
/// `-1 ENOENT (No such file or directory)` for -errno.
PERFX_API std::string format_syscall_return(std::string_view syscall, std::int64_t ret);

/// Whether an argument of this type and name is a C string worth reading from the traced
/// process ("const char * filename": yes; "const char * buf" of write: no).
PERFX_API bool syscall_arg_is_string(const SyscallArg& arg) noexcept;

// ------------------------------------------------------------ events

/// What a TraceEvent is.
enum class TraceEventKind : std::uint8_t {
  kSyscall,     ///< a system call (enter and/or exit)
  kPageFault,   ///< a page fault (major or minor) with ip and address
  kTracepoint,  ///< another tracepoint (sched:sched_switch ...)
};

/// One line of a trace: a paired system call, a page fault or a tracepoint hit.
struct PERFX_API TraceEvent {
  TraceEventKind kind = TraceEventKind::kSyscall;
  std::uint64_t time = 0;  ///< ns (CLOCK_MONOTONIC): the enter time, or the exit time
  pid_t pid = 0;           ///< process id
  pid_t tid = 0;           ///< thread id
  int cpu = -1;            ///< the CPU of the (first) record
  std::string comm;        ///< the thread's name

  // kSyscall
  long nr = -1;                         ///< syscall number
  std::string name;                     ///< syscall name ("openat"; "syscall_N" when unknown)
  bool entered = false;                 ///< the sys_enter record was seen
  bool exited = false;                  ///< the sys_exit record was seen (false: never returns,
                                        ///< e.g. exit_group, or the trace stopped first)
  std::uint64_t exit_time = 0;          ///< ns, when exited
  std::array<std::uint64_t, 6> args{};  ///< raw argument registers
  std::array<std::optional<std::string>, 6> strings;  ///< strings read from memory
  std::int64_t ret = 0;                               ///< return value, when exited

  // kPageFault
  bool major = false;         ///< major fault (else minor)
  std::uint64_t ip = 0;       ///< where the fault happened
  std::uint64_t addr = 0;     ///< the faulting address
  std::string ip_location;    ///< "/usr/lib/libc.so.6@0x2a3f0", or "" when not mapped
  std::string addr_location;  ///< same for addr
  char addr_map_type = '?';   ///< 'x' executable mapping, 'd' data, '?' none found

  // kTracepoint
  std::string event;   ///< "sched:sched_switch"
  std::string fields;  ///< format_trace_fields() of its payload

  /// The syscall's duration in ns, when both enter and exit were seen.
  [[nodiscard]] std::optional<std::uint64_t> duration() const noexcept {
    if (!entered || !exited || exit_time < time) return std::nullopt;
    return exit_time - time;
  }
};

/// How format_trace_event() writes a line.
struct PERFX_API TraceFormatOptions {
  /// Argument names and types (nullptr: arguments shown as arg0..arg5 in hex).
  const SyscallCatalog* catalog = nullptr;
  /// Times are printed relative to this (ns); perf trace -T: 0 and absolute.
  std::uint64_t base_time = 0;
  /// Column the ` = ret` part is aligned to, counted from the syscall name (perf: 70).
  std::size_t args_alignment = 70;
};

/// One perf-trace line, newline included:
/// `     0.123 ( 0.004 ms): cat/1234 openat(dfd: CWD, filename: "/etc/passwd", flags:
/// RDONLY|CLOEXEC) = 3`.
PERFX_API std::string format_trace_event(const TraceEvent& ev, const TraceFormatOptions& opt);

/// Which events a trace prints (the summary counts every event regardless).
struct PERFX_API TracePrintFilter {
  /// --duration: only syscalls that took longer than this (ns); 0 prints all.
  std::uint64_t min_duration_ns = 0;
  /// --failure: only syscalls that returned an error.
  bool failure_only = false;
  /// Whether `ev` passes (page faults and tracepoints pass the duration filter only when
  /// it is 0, as in perf trace).
  [[nodiscard]] PERFX_API bool passes(const TraceEvent& ev) const noexcept;
};

// ------------------------------------------------------------ summary

/// Running statistics of one syscall of one thread (perf's `struct stats`: Welford mean
/// and M2, min, max), durations in ns.
struct PERFX_API SyscallStats {
  std::uint64_t calls = 0;
  std::uint64_t errors = 0;
  double total_ns = 0;
  std::uint64_t min_ns = 0;
  std::uint64_t max_ns = 0;
  double mean_ns = 0;
  double m2 = 0;
  /// Failures per errno (--errno-summary).
  std::map<int, std::uint64_t> errnos;
  /// Adds one call that took `duration_ns` (0 when its enter was not seen); `err` > 0 is
  /// a failure with that errno.
  void add(std::uint64_t duration_ns, int err = 0);
  /// Standard deviation of the mean, in percent of the mean (perf trace's stddev column):
  /// 100 * sqrt(M2 / (n - 1) / n) / mean; 0 with fewer than two calls or a zero mean.
  [[nodiscard]] double stddev_percent() const noexcept;
};

/// The -s/--summary table: per thread, per syscall calls, errors, total/min/avg/max msec
/// and stddev, like perf trace -s. Feed it every event of the trace.
class PERFX_API TraceSummary {
 public:
  /// Counts `ev`: a syscall counts as one call when it exited (as perf, whose counts come
  /// from sys_exit), its enter and exit records as events of the thread.
  void add(const TraceEvent& ev);

  /// Per-thread statistics.
  struct Thread {
    pid_t tid = 0;
    std::string comm;
    std::uint64_t events = 0;  ///< records of this thread (sys_enter, sys_exit, faults ...)
    std::uint64_t majfaults = 0;
    std::uint64_t minfaults = 0;
    std::map<std::string, SyscallStats, std::less<>> syscalls;
  };

  /// The threads, in the order perf prints them (fewest events first).
  [[nodiscard]] std::vector<const Thread*> threads() const;
  /// Records of all threads.
  [[nodiscard]] std::uint64_t total_events() const noexcept { return total_events_; }

  /// The text: "\n Summary of events:\n\n" then one block per thread, syscalls by total
  /// time, descending; `errno_summary` (perf trace --errno-summary) adds a line per errno
  /// under each row with failures ("\t\t\t\tENOENT: 19").
  [[nodiscard]] std::string format(bool errno_summary = false) const;

 private:
  std::map<pid_t, Thread> threads_;
  std::uint64_t total_events_ = 0;
};

// ------------------------------------------------------------ live session

/// Which page faults to trace (perf trace -F).
enum class TracePageFaults : std::uint8_t { kNone, kMajor, kMinor, kAll };

/// What run_trace() traces.
struct PERFX_API TraceOptions {
  /// A command to start and trace (with its children); empty for pids/system-wide.
  std::vector<std::string> command;
  /// Existing processes to trace (every thread of each), perf trace -p.
  std::vector<pid_t> pids;
  /// Existing threads to trace, perf trace -t.
  std::vector<pid_t> tids;
  /// Every task on every CPU (perf trace -a); perfx's own syscalls are filtered out.
  bool system_wide = false;
  /// CPUs to trace (system-wide); empty: every online CPU.
  std::vector<int> cpus;
  /// Trace system calls (false: --no-syscalls, only faults and tracepoints).
  bool syscalls = true;
  /// Only these syscall numbers (empty: all). Set through the kernel's tracepoint filter,
  /// so the others cost nothing.
  std::vector<long> only_syscalls;
  /// Trace every syscall except these.
  std::vector<long> skip_syscalls;
  /// Page faults to trace.
  TracePageFaults page_faults = TracePageFaults::kNone;
  /// Other tracepoints to interleave ("sched:sched_switch").
  std::vector<std::string> tracepoints;
  /// Children inherit the tracing (perf's --no-inherit turns it off).
  bool inherit = true;
  /// Read string arguments from the traced process's memory (best effort).
  bool read_strings = true;
  /// Data pages per ring buffer (power of two); 0 picks 256 (1 MiB).
  std::size_t mmap_pages = 0;
  /// Stop after this many events were handed to the observer (0: no limit).
  std::uint64_t max_events = 0;
  /// Stop on SIGINT/SIGTERM (then deliver what was recorded and return normally).
  bool stop_on_signals = true;
  /// tracefs mount point; empty: found in /proc/mounts.
  std::string tracefs;
  /// Argument types, to know which arguments are strings (read_strings); nullptr: the
  /// session loads them from tracefs. Must outlive run_trace().
  const SyscallCatalog* catalog = nullptr;
};

/// How a trace ended.
struct PERFX_API TraceResult {
  bool workload = false;             ///< a command was run
  int exit_code = 0;                 ///< its exit code (128 + signal when killed)
  bool signaled = false;             ///< it was killed by a signal
  int signal = 0;                    ///< that signal
  std::uint64_t events = 0;          ///< events delivered
  std::uint64_t lost = 0;            ///< records the kernel dropped (ring buffer full)
  std::uint64_t unpaired_exits = 0;  ///< sys_exit records whose enter was never seen
  std::uint64_t strings_read = 0;    ///< string arguments read from memory
  std::uint64_t strings_failed = 0;  ///< string arguments that could not be read
  bool stopped_by_signal = false;    ///< SIGINT/SIGTERM ended a -p/-a trace
  /// The command could not be executed: the reason ("command not found: foo"); exit_code
  /// is then the shell's (127 not found, 126 not executable).
  std::string exec_error;
};

/// Receives each event in time order (valid during the call).
using TraceObserver = std::function<void(const TraceEvent&)>;

/// Opens the events, runs the command (or attaches), delivers events in time order until
/// the command exits, the traced processes are gone, or a stop signal comes.
/// Errors: kInvalidArgument for a bad target or an unknown tracepoint; open errors with
/// their explanation (paranoid level, tracefs not mounted); exec failure of the command
/// with its errno (Error::sys_errno).
PERFX_API Result<TraceResult> run_trace(const TraceOptions& options, const TraceObserver& observer);

}  // namespace perfx
