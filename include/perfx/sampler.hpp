#pragma once
/// \file
/// Sampling with perf_event ring buffers: open a set of sampling events on threads and/or
/// CPUs, map one ring buffer per CPU (events on the same CPU share it through
/// PERF_EVENT_IOC_SET_OUTPUT), wait on all of them with one epoll set, and drain the
/// records in bulk.
///
/// Kernel rules this follows (spec Part B):
///  - an inherited per-task event (cpu = -1, inherit = 1) cannot be mmapped, so a workload
///    is sampled with one event per CPU (pid = workload, cpu = N, inherit = 1);
///  - SET_OUTPUT works only between events on the same CPU, with the same clock and the
///    same ring direction;
///  - wakeup_events = 0 is not 1: leave both wakeup fields 0 to get the kernel's default
///    watermark (half the buffer), or set one explicitly.
///
/// Typical use: typed records (records.hpp), decoded by the library, no byte parsing:
/// \code
///   perfx::SamplerOptions opt;
///   opt.events.push_back({"cpu-clock", attr});   // attr.sample_type etc. already set
///   opt.pids = {child};  opt.cpus = {0, 1};
///   auto s = perfx::Sampler::open(std::move(opt));
///   s->enable();
///   while (running) {
///     s->wait(100);
///     s->for_each_record([&](const perfx::record::Record& rec, int cpu) -> perfx::Result<void> {
///       if (const auto* smp = rec.get<perfx::record::Sample>()) use(smp->ip, smp->tid);
///       return {};
///     });
///   }
/// \endcode
/// drain() hands out the raw bytes instead (a recorder writing them to a file).

#include <sys/types.h>

#include <cstddef>
#include <cstdint>
#include <functional>
#include <memory>
#include <span>
#include <string>
#include <vector>

#include "perfx/error.hpp"
#include "perfx/export.hpp"
#include "perfx/mmap_page.hpp"
#include "perfx/raw.hpp"
#include "perfx/records.hpp"

namespace perfx {

/// One event to sample. The attr is used as given (sample_type, read_format, freq/period,
/// inherit, disabled, enable_on_exec, side-band bits ... are the caller's choice), except
/// that `size` 0 becomes the full 136-byte size.
struct PERFX_API SamplerEvent {
  /// Name for messages ("cpu-clock", "sched:sched_switch").
  std::string name;
  raw::EventAttr attr{};
  /// Index (into SamplerOptions::events) of this event's group leader; -1 (or its own
  /// index) when it leads itself. A leader must come before its members.
  int group_leader = -1;
};

/// What to open and how to map it.
struct PERFX_API SamplerOptions {
  std::vector<SamplerEvent> events;
  /// Tasks to follow (pid or tid values as perf_event_open takes them). {-1}: every task
  /// (CPU-wide, needs `cpus`). With cgroup_fd >= 0 this is ignored.
  std::vector<pid_t> pids{-1};
  /// CPUs to open each event on. Empty: every online CPU. {-1}: any CPU (per-task only,
  /// not with inherit: see the file comment).
  std::vector<int> cpus;
  /// A cgroup directory fd (PERF_FLAG_PID_CGROUP): sample only that cgroup, CPU-wide.
  int cgroup_fd = -1;
  /// Data pages per ring buffer (power of two). 0 picks 128 (512 KiB, like perf as root).
  std::size_t data_pages = 0;
  /// Overwrite mode (flight recorder): events are opened with write_backward and the
  /// buffers mapped read-only; read them with snapshot(). drain() does nothing then.
  bool overwrite = false;
  /// Skip an (event, cpu) pair whose open fails with ENODEV/ENOENT on one CPU only (offline
  /// CPU), instead of failing the whole open. Other errors always fail.
  bool skip_offline_cpus = true;
};

/// Totals across all buffers since open().
struct PERFX_API SamplerStats {
  std::uint64_t records = 0;          ///< records drained
  std::uint64_t samples = 0;          ///< PERF_RECORD_SAMPLE records drained
  std::uint64_t bytes = 0;            ///< bytes drained
  std::uint64_t lost_records = 0;     ///< PERF_RECORD_LOST records seen
  std::uint64_t lost_samples = 0;     ///< sum of their lost fields
  std::uint64_t lost_read = 0;        ///< PERF_FORMAT_LOST summed over fds (if requested)
  std::uint64_t throttle = 0;         ///< PERF_RECORD_THROTTLE records seen
  std::uint64_t unthrottle = 0;       ///< PERF_RECORD_UNTHROTTLE records seen
  std::uint64_t corrupt_events = 0;   ///< times a corrupt record header dropped a buffer
  std::uint64_t dropped_bytes = 0;    ///< bytes dropped for that reason
  std::uint64_t wakeups = 0;          ///< wait() calls that found something readable
  std::uint64_t wrapped_records = 0;  ///< records joined across the end of a buffer
  /// Records with a sane header whose body did not decode (skipped by the typed readers).
  std::uint64_t malformed_records = 0;
  /// Best estimate of samples lost: max(lost_samples, lost_read).
  [[nodiscard]] std::uint64_t lost() const noexcept {
    return lost_samples > lost_read ? lost_samples : lost_read;
  }
};

/// What wait() saw.
struct PERFX_API SamplerWait {
  int readable = 0;          ///< buffers with POLLIN
  int hung_up = 0;           ///< buffers that reported POLLHUP (their task exited) this time
  bool all_hung_up = false;  ///< every buffer has hung up at some point: nothing more will come
  bool extra_ready = false;  ///< one of the add_wait_fd() fds is readable
  bool interrupted = false;  ///< a signal interrupted the wait (EINTR)
};

/// Receives drained bytes: whole records, possibly as two pieces when the range wraps
/// (`second` empty otherwise). `cpu` is the buffer's CPU (-1 for a per-task buffer).
/// Returning an error stops the drain and is passed on.
using SamplerSink = std::function<Result<void>(std::span<const std::byte> first,
                                               std::span<const std::byte> second, int cpu)>;

/// Receives one decoded record (views valid during the call) and its buffer's CPU (-1
/// for a per-task buffer). Returning an error stops the pass and is passed on.
using SamplerRecordFn = std::function<Result<void>(const record::Record& record, int cpu)>;

/// Open sampling events with their ring buffers. Move-only; closes everything on
/// destruction.
class PERFX_API Sampler {
 public:
  /// Opens every event on every (task, cpu) pair, maps one buffer per CPU (or per fd for
  /// cpu = -1) and redirects the other fds of that CPU into it.
  /// Errors carry the event name, pid and cpu ("opening 'cycles' on cpu 1 for pid 42: ...");
  /// the errno is kept (Error::sys_errno) so the CLI can explain it or fall back.
  static Result<Sampler> open(SamplerOptions options);

  Sampler(Sampler&&) noexcept;
  Sampler& operator=(Sampler&&) noexcept;
  ~Sampler();

  /// PERF_EVENT_IOC_ENABLE on every fd (not needed for enable_on_exec workloads).
  Result<void> enable();
  /// PERF_EVENT_IOC_DISABLE on every fd.
  Result<void> disable();

  /// Waits up to `timeout_ms` (-1: forever) for a buffer to pass its wakeup point, a task
  /// to exit, or an extra fd to become readable.
  Result<SamplerWait> wait(int timeout_ms);

  /// Drains every forward buffer once: validates the pending records, hands them to
  /// `sink` as raw bytes, then releases them to the kernel. Returns the bytes drained.
  /// Ends a next_record() sweep in progress first.
  Result<std::uint64_t> drain(const SamplerSink& sink);
  /// How drain() reads (perf record's --mmap-flush and --affinity).
  struct DrainOptions {
    /// Read only the buffers that hold at least this many bytes (the others wait for the
    /// next pass).
    std::uint64_t min_bytes = 1;
    /// Called before a buffer with data is read, with its CPU (-1: a per-task buffer).
    std::function<void(int cpu)> before_buffer;
  };
  /// drain() with `options`.
  Result<std::uint64_t> drain(const SamplerSink& sink, const DrainOptions& options);

  /// The next decoded record of any buffer, or nullptr once every buffer was read to its
  /// head in this sweep (the next call starts a new sweep). The record is a view into the
  /// ring buffer (a record that wraps is joined in a fixed 64 KiB scratch buffer) and is
  /// valid until the next call of next_record(), for_each_record() or drain(): the bytes
  /// are released to the kernel only then. `cpu` receives the buffer's CPU.
  /// Record::attr_index is the index into SamplerOptions::events. Events with different
  /// sample_types sharing a buffer need PERF_SAMPLE_IDENTIFIER (see RecordDecoder).
  /// Malformed records are skipped and counted (stats().malformed_records); a corrupt
  /// header drops the rest of that buffer (stats().corrupt_events). Forward mode only
  /// (overwrite mode: nullptr; use for_each_record()).
  [[nodiscard]] const record::Record* next_record(int* cpu = nullptr);

  /// Calls `fn` for every pending record of every buffer (one sweep of next_record()),
  /// then releases them. In overwrite mode, decodes a snapshot() (oldest first per
  /// buffer). Returns the number of records handed to `fn`.
  Result<std::uint64_t> for_each_record(const SamplerRecordFn& fn);

  /// The decoder the typed readers use (the events' attrs with their ids, in order).
  [[nodiscard]] const RecordDecoder& decoder() const noexcept;

  /// Overwrite mode: pauses each buffer, copies its records (oldest first), resumes.
  /// Returns the records of all buffers, per buffer in order.
  Result<std::vector<std::vector<std::byte>>> snapshot();

  /// Adds a non-perf fd (a signal pipe, a control fd) to the wait set.
  Result<void> add_wait_fd(int fd);
  /// Takes an add_wait_fd() fd out of the wait set again (one that reached end of file).
  Result<void> remove_wait_fd(int fd);

  /// Routes overflow notifications of every buffer-owning fd as signal `signo` to thread
  /// `tid` (F_SETOWN_EX with F_OWNER_TID, F_SETSIG, O_ASYNC). si_fd names the fd.
  Result<void> route_signals(int signo, pid_t tid);

  /// PERF_EVENT_IOC_REFRESH(n) on every fd: each overflow decrements the count; at 0 the
  /// event disables itself (POLL_HUP). Not allowed on inherited events (EINVAL).
  Result<void> refresh(int n);

  /// Samples the kernel dropped on one fd (PERF_FORMAT_LOST), for the
  /// PERF_RECORD_LOST_SAMPLES records perf writes at the end of a recording.
  struct FdLost {
    std::size_t event = 0;  ///< index into SamplerOptions::events
    std::uint64_t id = 0;   ///< the fd's kernel id (PERF_FORMAT_ID or IOC_ID)
    int cpu = -1;
    pid_t pid = -1;
    std::uint64_t lost = 0;
  };

  /// Reads PERF_FORMAT_LOST of every fd whose attr asked for it (without GROUP), once:
  /// the per-fd counts are then lost_by_fd() and their sum stats().lost_read.
  Result<void> update_lost_from_read();

  /// The per-fd counts of the last update_lost_from_read() (empty before it). No I/O.
  [[nodiscard]] const std::vector<FdLost>& lost_by_fd() const noexcept;

  /// Totals across buffers.
  [[nodiscard]] SamplerStats stats() const;

  /// Kernel ids (PERF_EVENT_IOC_ID) of every fd of event `index`, in open order.
  [[nodiscard]] const std::vector<std::uint64_t>& ids(std::size_t index) const;
  /// The fds of event `index` (owned by the sampler).
  [[nodiscard]] std::vector<int> fds(std::size_t index) const;
  /// The CPUs the events were opened on (after skipping offline ones), in open order.
  [[nodiscard]] const std::vector<int>& cpus() const;
  /// Number of ring buffers mapped.
  [[nodiscard]] std::size_t buffer_count() const;
  /// The metadata page of ring buffer `buffer` (< buffer_count()): its seqlock fields
  /// (mmap_page.hpp), the time conversion of time_conv.hpp, the place to put an AUX area
  /// (aux.hpp). Valid while the sampler lives.
  [[nodiscard]] MmapPageView mmap_page(std::size_t buffer) const;
  /// The fd that owns ring buffer `buffer` (the one an AUX area is mapped on).
  [[nodiscard]] int buffer_fd(std::size_t buffer) const;
  /// The options as used (data_pages resolved, cpus expanded).
  [[nodiscard]] const SamplerOptions& options() const;

 private:
  struct Impl;
  explicit Sampler(std::unique_ptr<Impl> impl);
  std::unique_ptr<Impl> impl_;
};

}  // namespace perfx
