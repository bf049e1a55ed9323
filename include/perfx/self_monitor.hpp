#pragma once
/// \file
/// Self-monitoring: reading a counter of the calling thread without a system call, with the
/// x86 `rdpmc` instruction and the metadata page (man perf_event_open(2),
/// "cap_user_rdpmc"), and falling back to read(2) with a stated reason whenever that fast
/// path is unavailable: no rdpmc in this build (not x86), a software event (no hardware
/// counter), no hardware PMU, an event of another task or CPU-wide, cap_user_rdpmc = 0,
/// or index = 0 at the moment of the read (the event is off its counter).
///
/// \code
///   raw::EventAttr attr{};  attr.type = PERF_TYPE_HARDWARE;  attr.config = ...;
///   auto mon = perfx::SelfMonitor::open(attr);
///   mon->enable();  work();
///   auto r = mon->read();            // r->fast_path, r->reason, r->scaled.value
/// \endcode
///
/// The sequence itself (read_page_count) is pure and takes its counter reads as injectable
/// functions, so the seqlock retry, pmc_width sign extension and enabled/running scaling
/// run in unit tests on simulated pages.

#include <sys/types.h>

#include <cstdint>
#include <memory>
#include <string>

#include "perfx/counter.hpp"
#include "perfx/error.hpp"
#include "perfx/export.hpp"
#include "perfx/mmap_page.hpp"
#include "perfx/raw.hpp"

namespace perfx {

/// Why the rdpmc fast path is not used (kNone: it is).
enum class RdpmcUnavailable : std::uint8_t {
  kNone,           ///< the fast path is used
  kNotX86,         ///< this build has no rdpmc instruction (not x86)
  kSoftwareEvent,  ///< software/tracepoint/breakpoint event: counted by the kernel, no PMC
  kNoPmu,          ///< the machine has no hardware PMU for this event (common in VMs)
  kOtherTask,      ///< the event counts another task, or every task on a CPU
  kNoCapability,   ///< cap_user_rdpmc is 0 in the metadata page
  kIndexZero,      ///< index is 0 right now: the event is not on a hardware counter
  kNotMapped,      ///< the metadata page could not be mapped (e.g. an inherited event)
};

/// Short name: "none", "not x86", "software event", "no PMU", "other task",
/// "cap_user_rdpmc=0", "index=0", "not mapped".
[[nodiscard]] PERFX_API const char* rdpmc_unavailable_name(RdpmcUnavailable why) noexcept;

/// The counter-read instructions, injectable: `read_pmc(counter)` is rdpmc(counter) and
/// `read_tsc()` is rdtsc on x86. Tests pass fakes that also play the kernel (bump the
/// seqlock between reads) to drive the retry path.
struct PERFX_API CounterReaders {
  std::uint64_t (*read_pmc)(std::uint32_t counter) = nullptr;
  std::uint64_t (*read_tsc)() = nullptr;

  /// The real instructions (both nullptr on a non-x86 build).
  [[nodiscard]] static CounterReaders hardware() noexcept;
};

/// What the man page's self-monitoring loop produced from one consistent page reading.
struct PERFX_API PageCount {
  std::uint64_t count = 0;    ///< offset (+ sign-extended rdpmc value when used), unscaled
  std::uint64_t enabled = 0;  ///< time_enabled (+ the TSC delta when cap_user_time)
  std::uint64_t running = 0;  ///< time_running (+ the TSC delta when index != 0)
  std::uint32_t index = 0;    ///< the page's index (hardware counter + 1)
  bool used_rdpmc = false;    ///< cap_user_rdpmc && index && read_pmc: count is current
  bool used_tsc = false;      ///< cap_user_time && enabled != running && read_tsc
  std::uint32_t retries = 0;  ///< times the seqlock read started over
  /// count scaled as the man page does it: `count * enabled / running` in integer
  /// arithmetic (`quot * enabled + rem * enabled / running`); count when running is 0.
  [[nodiscard]] std::uint64_t scaled() const noexcept;
};

/// Sign-extends a `width`-bit counter value to 64 bits (`pmc <<= 64 - width; pmc >>= 64 -
/// width` with an arithmetic shift). width 0 or >= 64 returns pmc unchanged.
[[nodiscard]] PERFX_API std::int64_t sign_extend_pmc(std::uint64_t pmc,
                                                     std::uint16_t width) noexcept;

/// The man page loop on `page`: under the seqlock, read time_enabled/running (and the TSC
/// delta from time_offset/mult/shift when cap_user_time and enabled != running), index,
/// offset and, when cap_user_rdpmc and index != 0, readers.read_pmc(index - 1) sign-extended
/// from pmc_width. Only meaningful for an event of the calling thread (rdpmc reads the
/// counter of whoever executes it). Errors: kInvalidArgument for an empty view,
/// kMalformedData when the count never settles (kMaxSeqlockRetries).
[[nodiscard]] PERFX_API Result<PageCount> read_page_count(const MmapPageView& page,
                                                          const CounterReaders& readers);

/// One self-monitoring read.
struct PERFX_API SelfRead {
  RawCount raw;            ///< count, time_enabled, time_running (page + rdpmc, or read(2))
  Count scaled;            ///< scale_count(raw): the value with its trust state
  bool fast_path = false;  ///< true: rdpmc, no system call
  RdpmcUnavailable why = RdpmcUnavailable::kNone;  ///< when !fast_path
  std::string reason;  ///< a sentence saying why the fast path was not used (empty if it was)
  std::uint32_t retries = 0;  ///< seqlock restarts (fast path)
};

/// A counter of the calling thread with its metadata page mapped: reads go through rdpmc
/// when the page allows, read(2) otherwise. Move-only; unmaps (and closes an owned fd) on
/// destruction.
class PERFX_API SelfMonitor {
 public:
  /// Opens `attr` on the calling thread (pid 0, any CPU), disabled, not inherited, with
  /// read_format TOTAL_TIME_ENABLED | TOTAL_TIME_RUNNING, and maps its metadata page (one
  /// page, no data area). The other attr fields are the caller's (exclude_kernel ...).
  /// Errors: the open error, explained; on a machine without a PMU for a hardware event,
  /// kNotSupported (ENOENT) saying so, so the caller can pick a software event.
  static Result<SelfMonitor> open(raw::EventAttr attr);

  /// Maps the metadata page of an event some other code opened (a CounterSet or Sampler
  /// fd; borrowed: it must stay open while this lives). `attr` is the attr it was opened
  /// with, `pid`/`cpu` its perf_event_open arguments (0 = calling thread). When the page
  /// cannot be mapped (an inherited per-task event: EINVAL) the monitor still works through
  /// read(2) with kNotMapped and the mapping error as its reason. A group read format needs
  /// PERF_FORMAT_ID (the fallback read finds this event's value by id): kInvalidArgument
  /// otherwise.
  static Result<SelfMonitor> attach(int fd, const raw::EventAttr& attr, pid_t pid, int cpu);

  SelfMonitor(SelfMonitor&&) noexcept;
  SelfMonitor& operator=(SelfMonitor&&) noexcept;
  SelfMonitor(const SelfMonitor&) = delete;
  SelfMonitor& operator=(const SelfMonitor&) = delete;
  ~SelfMonitor();

  /// PERF_EVENT_IOC_ENABLE / DISABLE / RESET on the event.
  Result<void> enable();
  Result<void> disable();
  Result<void> reset();

  /// Reads the counter: rdpmc when available (see fast_path_reason()), else read(2).
  [[nodiscard]] Result<SelfRead> read() const;
  /// Always read(2) (for comparison with the fast path).
  [[nodiscard]] Result<RawCount> read_syscall() const;

  /// The standing reason the fast path cannot be used (kNone when it may be: whether it is
  /// then depends on index at each read).
  [[nodiscard]] RdpmcUnavailable fast_path_unavailable() const noexcept;
  /// That reason as a sentence (empty for kNone).
  [[nodiscard]] const std::string& fast_path_reason() const noexcept;

  /// The mapped metadata page (an empty view with kNotMapped).
  [[nodiscard]] MmapPageView page() const noexcept;
  /// The event fd.
  [[nodiscard]] int fd() const noexcept;

  /// Replaces the counter-read instructions (tests; the default is
  /// CounterReaders::hardware()).
  void set_readers(const CounterReaders& readers) noexcept;

 private:
  struct Impl;
  explicit SelfMonitor(std::unique_ptr<Impl> impl) noexcept;
  std::unique_ptr<Impl> impl_;
};

}  // namespace perfx
