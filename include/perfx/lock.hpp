#pragma once
/// \file
/// Kernel lock contention from lock:contention_begin/contention_end (what `perf lock record`
/// or `perfx lock record` writes; the only lock events a kernel without lockdep has): the
/// typed events, and perf lock contention's table per caller, per lock address or per
/// thread, with the lock type from the events' flags and the caller from the callchain.
///
/// \code
///   auto events = perfx::load_lock_events("perf.data");
///   auto syms = perfx::LockSymbols::from_kallsyms("/proc/kallsyms");
///   perfx::LockContention c = perfx::lock_contention(*events, *syms);
///   for (const auto& row : c.rows) use(row.type, row.name, row.contended, row.wait_total_ns);
/// \endcode

#include <cstddef>
#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "perfx/error.hpp"
#include "perfx/export.hpp"

namespace perfx {

/// contention_begin's flags (LCB_F_* of include/trace/events/lock.h).
inline constexpr std::uint32_t kLockSpin = 1U << 0, kLockRead = 1U << 1, kLockWrite = 1U << 2,
                               kLockRt = 1U << 3, kLockPercpu = 1U << 4, kLockMutex = 1U << 5;

/// perf's name of a lock type: "spinlock", "rwsem:W", "mutex", ... ("unknown" otherwise).
[[nodiscard]] PERFX_API const char* lock_type_name(std::uint32_t flags) noexcept;

/// One contention_begin or contention_end.
struct PERFX_API LockEvent {
  bool begin = true;       ///< contention_begin (else contention_end)
  std::uint64_t time = 0;  ///< ns
  std::int32_t pid = -1, tid = -1;
  std::int32_t cpu = -1;
  std::uint64_t addr = 0;                ///< lock_addr
  std::uint32_t flags = 0;               ///< begin: LCB_F_* flags; end: 0
  std::int32_t ret = 0;                  ///< end: the ret field (0, or -EINTR ...)
  std::vector<std::uint64_t> callchain;  ///< kernel addresses, innermost first (no markers)
};

/// A recording's lock events in time order, and the names of its threads.
struct PERFX_API LockTrace {
  std::vector<LockEvent> events;
  std::vector<std::pair<std::int32_t, std::string>> comms;  ///< tid -> last COMM name
  std::uint64_t lost_events = 0;                            ///< PERF_RECORD_LOST counts
  std::uint64_t malformed = 0;  ///< records that did not decode (skipped)
  /// What damaged or cut the file short (the events that could be read are here); empty
  /// when the whole file read cleanly.
  std::string damage;
};

/// Reads the lock:contention_begin/end events of `path`, after perf's owner check (a file
/// another user owns: kPermission unless `force`, perf's -f). Errors: the reader's,
/// kNotFound when it has no contention events (or no tracing data to decode them).
[[nodiscard]] PERFX_API Result<LockTrace> load_lock_events(const std::string& path,
                                                           bool force = false);

/// Kernel symbols for naming callers, and the text sections of the lock functions that a
/// caller is looked for past (__sched_text_*, __lock_text_*: mutex/rwsem and spinlock code).
class PERFX_API LockSymbols {
 public:
  /// Reads a kallsyms file ("/proc/kallsyms"). Errors: kNotFound/kIo when unreadable.
  [[nodiscard]] static Result<LockSymbols> from_kallsyms(const std::string& path);
  /// From kallsyms text (tests).
  [[nodiscard]] static LockSymbols from_text(std::string text);

  LockSymbols(LockSymbols&&) noexcept;
  LockSymbols& operator=(LockSymbols&&) noexcept;
  ~LockSymbols();

  /// "func+0x17" ("func" at offset 0), or nullopt when no symbol holds `addr`.
  [[nodiscard]] std::optional<std::string> name(std::uint64_t addr) const;
  /// The symbol exactly at `addr` (for lock addresses of static locks), or nullopt.
  [[nodiscard]] std::optional<std::string> data_name(std::uint64_t addr) const;
  /// Whether `addr` is in the scheduler or lock text (a lock function).
  [[nodiscard]] bool is_lock_function(std::uint64_t addr) const noexcept;

 private:
  struct Impl;
  explicit LockSymbols(std::unique_ptr<Impl> impl);
  std::unique_ptr<Impl> impl_;
};

/// How rows are formed (perf lock contention's aggregation).
enum class LockAggregation {
  kCaller,   ///< one row per caller callchain (default)
  kAddress,  ///< one row per lock address (-l)
  kThread,   ///< one row per thread (-t)
};

/// Options of lock_contention().
struct PERFX_API LockContentionOptions {
  LockAggregation by = LockAggregation::kCaller;
  /// Sort key, largest first: contended, wait_total (default), wait_max, wait_min, avg_wait.
  std::string sort = "wait_total";
  std::size_t entries = 0;  ///< keep the first N rows (-E); 0 = all
  unsigned stack_skip = 3;  ///< callchain entries skipped before the caller (perf's)
  unsigned max_stack = 8;   ///< callchain entries looked at (perf's)
};

/// One row of the table.
struct PERFX_API LockContentionRow {
  std::string name;       ///< caller "func+0x17" / lock symbol or "" / thread comm
  std::uint64_t key = 0;  ///< the lock address (-l) or tid (-t)
  std::uint32_t flags = 0;
  std::string type;  ///< lock_type_name(flags)
  std::uint64_t contended = 0, acquired = 0;
  std::uint64_t wait_total_ns = 0, wait_max_ns = 0, wait_min_ns = 0, wait_avg_ns = 0;
  bool broken = false;                 ///< an end without its begin was seen
  std::vector<std::string> callstack;  ///< the caller's callchain, symbolized
};

/// lock_contention()'s result.
struct PERFX_API LockContention {
  std::vector<LockContentionRow> rows;  ///< sorted
  LockAggregation by = LockAggregation::kCaller;
  std::uint64_t broken_sequences = 0;  ///< ends without a begin, begins nested unexpectedly
};

/// Errors: kInvalidArgument naming an unknown sort key.
[[nodiscard]] PERFX_API Result<void> check_lock_sort_key(const std::string& key);

/// The contention table: per (caller | address | thread) the begins that waited
/// (contended), total/max/min/average wait from each begin to the same thread's end on the
/// same lock. As perf 6.1 does, a caller row is keyed by the callchain past the skipped and
/// lock-function entries and named by its first symbol.
[[nodiscard]] PERFX_API LockContention lock_contention(const LockTrace& trace,
                                                       const LockSymbols& symbols,
                                                       const LockContentionOptions& options = {});

/// perf lock contention's table (with `verbose`, each caller's callstack too).
[[nodiscard]] PERFX_API std::string format_lock_contention(const LockContention& contention,
                                                           bool verbose = false);

}  // namespace perfx
