#pragma once
/// \file
/// One open perf event: every ioctl(2) of perf_event_open(2) typed, the open flags
/// typed, and read(2) decoded for any read_format.
///
/// `EventHandle` is a borrowed fd (it never closes it) carrying the ioctls; it is what
/// CounterSet::handles() hands out, and `perfx::EventHandle(fd)` wraps any fd a Sampler
/// returns from Sampler::fds(). `EventFd` owns its fd and is an EventHandle too.
///
/// \code
///   auto ev = perfx::EventFd::open(attr, perfx::OpenTarget::self());
///   ev->enable();  work();  ev->disable();
///   auto r = ev->read();                 // decoded with attr.read_format
///   std::uint64_t id = *ev->id();        // PERF_EVENT_IOC_ID
/// \endcode

#include <sys/types.h>

#include <cstddef>
#include <cstdint>
#include <span>
#include <string>
#include <vector>

#include "perfx/counter.hpp"
#include "perfx/error.hpp"
#include "perfx/raw.hpp"

namespace perfx {

/// Whether ENABLE/DISABLE/RESET act on the one event or, with PERF_IOC_FLAG_GROUP, on
/// every event of its group (even when called through a member).
enum class IocScope : std::uint8_t {
  kEvent,  ///< argument 0
  kGroup,  ///< PERF_IOC_FLAG_GROUP
};

/// One value of a decoded read(2): the count and, when read_format asked for them, the
/// event id (PERF_FORMAT_ID) and lost samples (PERF_FORMAT_LOST); 0 otherwise.
struct PERFX_API ReadEntry {
  std::uint64_t value = 0;
  std::uint64_t id = 0;
  std::uint64_t lost = 0;
};

/// A decoded `struct read_format` (the man page's four layouts: single or
/// PERF_FORMAT_GROUP, each with optional TOTAL_TIME_ENABLED/RUNNING, ID and LOST).
struct PERFX_API ReadResult {
  std::uint64_t read_format = 0;   ///< the layout the bytes were decoded with
  std::uint64_t time_enabled = 0;  ///< with PERF_FORMAT_TOTAL_TIME_ENABLED, else 0
  std::uint64_t time_running = 0;  ///< with PERF_FORMAT_TOTAL_TIME_RUNNING, else 0
  /// One entry (single layout) or one per group member, leader first (group layout).
  /// Empty when `pinned_error`.
  std::vector<ReadEntry> values;
  /// read(2) returned 0 bytes (end of file): a pinned event or group that could not be
  /// scheduled on the PMU is put in error state by the kernel and reads nothing until
  /// it is re-enabled. No value exists; `values` is empty.
  bool pinned_error = false;

  /// True when both time fields were read, so count() can scale and tell "never ran".
  [[nodiscard]] bool timed() const noexcept;
  /// Entry `i` as a RawCount (times shared by the group).
  [[nodiscard]] RawCount raw(std::size_t i) const;
  /// Entry `i` scaled (scale_count). Without both time fields the kernel gave no way to
  /// tell multiplexing or "never ran": the value is returned raw as kCounted, so ask for
  /// the time fields when that matters (CounterSet always does).
  [[nodiscard]] Count count(std::size_t i) const;
  /// The entry whose id is `id` (needs PERF_FORMAT_ID), or nullptr.
  [[nodiscard]] const ReadEntry* find_id(std::uint64_t id) const noexcept;
};

/// Bytes read(2) returns for `read_format` with `members` events in the group (1 for a
/// lone event; ignored without PERF_FORMAT_GROUP).
[[nodiscard]] PERFX_API std::size_t read_size(std::uint64_t read_format,
                                              std::size_t members) noexcept;

/// Decodes the bytes read(2) returned for `read_format`. No bytes at all is what read(2)
/// gives for a pinned event in error state: a result with `pinned_error` set and no
/// values. kMalformedData when the bytes are shorter than the layout (or a group's `nr`
/// does not fit them).
[[nodiscard]] PERFX_API Result<ReadResult> parse_read(std::span<const std::byte> bytes,
                                                      std::uint64_t read_format);

/// A borrowed perf event fd with every PERF_EVENT_IOC_* typed. Never closes the fd; the
/// owner (EventFd, CounterSet, Sampler) must outlive it. Errors carry errno and name
/// the ioctl ("ioctl PERF_EVENT_IOC_REFRESH: Invalid argument").
class PERFX_API EventHandle {
 public:
  EventHandle() = default;
  /// Wraps `fd` (a perf event fd; -1 makes an invalid handle).
  explicit EventHandle(int fd) noexcept : fd_(fd) {}

  /// The fd (-1 when invalid).
  [[nodiscard]] int fd() const noexcept { return fd_; }
  /// True when the handle holds an fd.
  [[nodiscard]] bool valid() const noexcept { return fd_ >= 0; }

  /// PERF_EVENT_IOC_ENABLE. Prefer the leader with kEvent to enable a group: members
  /// switched off count nothing until the next context switch on current kernels.
  Result<void> enable(IocScope scope = IocScope::kEvent) const;
  /// PERF_EVENT_IOC_DISABLE.
  Result<void> disable(IocScope scope = IocScope::kEvent) const;
  /// PERF_EVENT_IOC_RESET: zeroes the count (not time_enabled/time_running).
  Result<void> reset(IocScope scope = IocScope::kEvent) const;
  /// PERF_EVENT_IOC_REFRESH: allow `overflows` (> 0) more overflows, then the event
  /// disables itself (POLL_HUP). Sampling events only, not inherited ones (EINVAL).
  Result<void> refresh(int overflows) const;
  /// PERF_EVENT_IOC_PERIOD: a new sample period (or frequency when attr.freq), applied at
  /// the next overflow. EINVAL for 0 or a counting event.
  Result<void> set_period(std::uint64_t period) const;
  /// PERF_EVENT_IOC_SET_OUTPUT: send this event's records to `target`'s ring buffer
  /// (same CPU, same clock; this fd must not have its own mapping).
  Result<void> set_output(EventHandle target) const;
  /// PERF_EVENT_IOC_SET_OUTPUT with (unsigned long)-1: stop redirecting.
  Result<void> detach_output() const;
  /// PERF_EVENT_IOC_SET_FILTER: an ftrace filter on a tracepoint event
  /// ("prev_pid != 0"). EINVAL for a bad expression, EEXIST when set twice on one fd.
  Result<void> set_filter(const std::string& filter) const;
  /// PERF_EVENT_IOC_ID: the kernel id (what PERF_FORMAT_ID / PERF_SAMPLE_ID report).
  [[nodiscard]] Result<std::uint64_t> id() const;
  /// PERF_EVENT_IOC_SET_BPF: attach the BPF program `bpf_prog_fd` (a tracepoint,
  /// kprobe/uprobe or perf_event program) to this event.
  Result<void> set_bpf(int bpf_prog_fd) const;
  /// PERF_EVENT_IOC_QUERY_BPF: ids of the BPF programs attached (tracepoint/probe events;
  /// at most `max_ids` asked first, retried with the count the kernel reports).
  [[nodiscard]] Result<std::vector<std::uint32_t>> query_bpf(std::uint32_t max_ids = 64) const;
  /// PERF_EVENT_IOC_PAUSE_OUTPUT(1): the ring buffer stops taking records (they are
  /// counted as lost).
  Result<void> pause_output() const;
  /// PERF_EVENT_IOC_PAUSE_OUTPUT(0): resume.
  Result<void> resume_output() const;
  /// PERF_EVENT_IOC_MODIFY_ATTRIBUTES: change an open breakpoint in place. `attr` must be
  /// the attr the event was opened with (CounterSnapshot::Event::attr for a CounterSet)
  /// with only bp_addr, bp_type and bp_len changed: the kernel compares the rest (EINVAL
  /// otherwise, and for events other than breakpoints).
  Result<void> modify_attributes(const raw::EventAttr& attr) const;

  /// Overflow notification by signal (man page "Signal overflow"): F_SETOWN_EX to thread
  /// `tid` (0: the calling thread), F_SETSIG `signo` (si_fd then names this fd), O_ASYNC.
  /// Each overflow (or wakeup_events samples) raises `signo`; with refresh() the event
  /// disables itself after N of them.
  Result<void> route_signals(int signo, pid_t tid = 0) const;

  /// read(2) decoded with `read_format` (the attr's) for a group of `members` events.
  [[nodiscard]] Result<ReadResult> read(std::uint64_t read_format, std::size_t members = 1) const;

 protected:
  int fd_ = -1;  ///< borrowed (EventHandle) or owned (EventFd)
};

/// perf_event_open(2) flags, typed (combine with |).
enum class OpenFlags : unsigned long {
  kNone = 0,
  kFdNoGroup = PERF_FLAG_FD_NO_GROUP,  ///< ignore group_fd except for FD_OUTPUT
  kFdOutput = PERF_FLAG_FD_OUTPUT,     ///< redirect output to group_fd (broken since 2.6.35:
                                       ///< use EventHandle::set_output)
  kPidCgroup = PERF_FLAG_PID_CGROUP,   ///< pid is a cgroup2 directory fd (needs a CPU)
  kFdCloexec = PERF_FLAG_FD_CLOEXEC,   ///< close-on-exec (perfx always adds it)
};
/// Union of flags.
constexpr OpenFlags operator|(OpenFlags a, OpenFlags b) noexcept {
  return static_cast<OpenFlags>(static_cast<unsigned long>(a) | static_cast<unsigned long>(b));
}
/// True when every bit of `b` is in `a`.
constexpr bool has_flags(OpenFlags a, OpenFlags b) noexcept {
  return (static_cast<unsigned long>(a) & static_cast<unsigned long>(b)) ==
         static_cast<unsigned long>(b);
}

/// The (pid, cpu, group_fd, flags) of one perf_event_open(2) call.
struct PERFX_API OpenTarget {
  pid_t pid = 0;      ///< 0: the calling thread; -1: every task (needs cpu >= 0); a cgroup fd
  int cpu = -1;       ///< -1: any CPU
  int group_fd = -1;  ///< the leader's fd, -1 to lead
  OpenFlags flags = OpenFlags::kNone;

  /// The calling thread on any CPU.
  static OpenTarget self() noexcept { return OpenTarget{}; }
  /// Thread/process `pid` on any CPU.
  static OpenTarget task(pid_t pid) noexcept { return OpenTarget{pid, -1, -1, OpenFlags::kNone}; }
  /// Every task on `cpu`.
  static OpenTarget cpu_wide(int cpu) noexcept { return OpenTarget{-1, cpu, -1, OpenFlags::kNone}; }
  /// The tasks of the cgroup directory `cgroup_fd` on `cpu` (PERF_FLAG_PID_CGROUP).
  static OpenTarget cgroup(int cgroup_fd, int cpu) noexcept {
    return OpenTarget{static_cast<pid_t>(cgroup_fd), cpu, -1, OpenFlags::kPidCgroup};
  }
  /// This target with `leader` as group leader.
  [[nodiscard]] OpenTarget in_group(const EventHandle& leader) const noexcept {
    OpenTarget t = *this;
    t.group_fd = leader.fd();
    return t;
  }
};

/// An owned perf event fd: closes on destruction. Move-only.
class PERFX_API EventFd : public EventHandle {
 public:
  /// Opens `attr` (size 0 becomes 136) on `target`. FD_CLOEXEC is always added. A PMU
  /// that refuses exclude bits (msr) gets the event without exclude_guest/exclude_host,
  /// as perf retries it (parse_events() sets exclude_guest on plain events). Errors
  /// are explained and name the attr field at fault where one can be named ("attr.clockid
  /// 99 ..."): kInvalidArgument for EINVAL, kNotSupported for a missing PMU,
  /// kPermission naming perf_event_paranoid, ... `name` is used in the message.
  static Result<EventFd> open(const raw::EventAttr& attr, const OpenTarget& target,
                              const std::string& name = {});

  EventFd() = default;
  /// Takes ownership of `fd`.
  explicit EventFd(int fd) noexcept : EventHandle(fd) {}
  EventFd(EventFd&& o) noexcept : EventHandle(o.fd_), read_format_(o.read_format_) { o.fd_ = -1; }
  EventFd& operator=(EventFd&& o) noexcept;
  EventFd(const EventFd&) = delete;
  EventFd& operator=(const EventFd&) = delete;
  ~EventFd();

  /// Gives up ownership and returns the fd.
  [[nodiscard]] int release() noexcept;
  /// The attr's read_format as opened (read() without arguments uses it).
  [[nodiscard]] std::uint64_t read_format() const noexcept { return read_format_; }
  /// read(2) with the read_format it was opened with.
  [[nodiscard]] Result<ReadResult> read(std::size_t members = 1) const {
    return EventHandle::read(read_format_, members);
  }

 private:
  std::uint64_t read_format_ = 0;
};

/// prctl(PR_TASK_PERF_EVENTS_ENABLE): enables every event this process opened on itself.
PERFX_API Result<void> task_events_enable();
/// prctl(PR_TASK_PERF_EVENTS_DISABLE): disables them.
PERFX_API Result<void> task_events_disable();

}  // namespace perfx
