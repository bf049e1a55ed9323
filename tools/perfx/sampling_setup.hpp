#pragma once
// What `perfx record` and `perfx top` set up alike before sampling: the events of -e
// (perf's default "cycles", and its fallback to cpu-clock on a machine without a PMU),
// the tasks of -p/-t, the -m ring size and the kernel's sample-rate cap.

#include <sys/types.h>

#include <cstdint>
#include <functional>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "event/event_spec.hpp"
#include "perfx/error.hpp"
#include "perfx/raw.hpp"
#include "perfx/sampler.hpp"

namespace perfx::cli {

/// One event to sample, from -e (or the default).
struct EventChoice {
  std::string name;
  std::string canonical;
  raw::EventAttr attr{};
  event::EventKind kind = event::EventKind::kSoftware;
  std::uint64_t default_period = 0;
  bool period_from_term = false;
  bool is_default = false;
  int group_leader = -1;
  bool explicit_privilege = false;  ///< u/k/h modifiers given: never add ':u' to it
};

/// The parsed -e list. Uprobe attrs point at strings of `specs`: keep them together
/// (moving the struct keeps those addresses).
struct EventChoices {
  std::vector<EventChoice> events;
  std::vector<event::EventGroup> specs;
  bool default_event = false;  ///< no -e: perf's "cycles"
};

/// Parses the -e values (perf's syntax, several per value, groups in braces); none =
/// "cycles". Errors name the bad token.
[[nodiscard]] Result<EventChoices> parse_event_choices(const std::vector<std::string>& specs);

/// Sampler::open() with perf's fallbacks: when the default cycles event has no PMU
/// (ENOENT, EOPNOTSUPP, ENODEV), the first event becomes cpu-clock and it opens again;
/// when the kernel refuses (EACCES/EPERM) under perf_event_paranoid >= 2, the events
/// without explicit u/k/h modifiers become user-space only (exclude_kernel, exclude_hv,
/// named "<event>:u") and it opens again, saying so on stderr unless `quiet`.
/// `options_for` builds the options from the (possibly changed) events.
[[nodiscard]] Result<Sampler> open_with_fallback(EventChoices& choices,
                                                 const std::function<SamplerOptions()>& options_for,
                                                 bool verbose, bool quiet = false);

/// The name of an event after the user-space-only fallback, as perf names it:
/// "cpu-clock" -> "cpu-clock:u", "msr/tsc/" -> "msr/tsc/u"; names with modifiers are kept.
[[nodiscard]] std::string user_only_name(const std::string& name);

/// -g / --call-graph: how samples get their callchains (perf record's and perf top's).
struct CallGraph {
  static constexpr std::uint32_t kDwarfStackSize = 8192;  ///< perf's default dump size
  enum Mode { kNone, kFp, kDwarf } mode = kNone;
  std::uint32_t stack_size = kDwarfStackSize;  ///< dwarf: user stack bytes per sample

  /// The sample_type bits perf adds: CALLCHAIN; with dwarf also REGS_USER, STACK_USER and
  /// the data address (ADDR, DATA_SRC: perf's sample_address for unwinding).
  [[nodiscard]] std::uint64_t sample_type() const noexcept;
  /// The per-event attr fields: dwarf asks for the user registers and `stack_size` bytes
  /// of stack, no user callchain from the kernel, and data mmaps.
  void configure(raw::EventAttr& attr) const noexcept;
};

/// Parses -g (`fp_flag`) and --call-graph (`mode`: "fp", "dwarf[,size]"; "" = none); the
/// latter wins. kNotSupported for lbr (no PMU), kInvalidArgument naming a bad value.
[[nodiscard]] Result<CallGraph> parse_call_graph(bool fp_flag, std::string_view mode);

/// The tasks of -p (processes: all their threads) and -t (threads).
struct TaskTarget {
  std::vector<pid_t> tasks;       ///< what perf_event_open follows
  std::vector<pid_t> synth_pids;  ///< the processes whose maps are synthesized
};
[[nodiscard]] Result<TaskTarget> resolve_task_target(const std::string& pids,
                                                     const std::string& tids);

/// -m: a number of pages, or a size with B/K/M/G; rounded up to a power of two
/// (`rounded` says so). "" = 0 (the sampler's default).
[[nodiscard]] Result<std::size_t> parse_mmap_pages(const std::string& text, bool& rounded);

/// /proc/sys/kernel/perf_event_max_sample_rate, when readable.
[[nodiscard]] std::optional<long long> max_sample_rate();

/// A drained range as one span: `first` itself, or both pieces copied into `scratch`
/// when the range wrapped around the ring buffer's end.
[[nodiscard]] inline std::span<const std::byte> contiguous(std::span<const std::byte> first,
                                                           std::span<const std::byte> second,
                                                           std::vector<std::byte>& scratch) {
  if (second.empty()) return first;
  scratch.assign(first.begin(), first.end());
  scratch.insert(scratch.end(), second.begin(), second.end());
  return scratch;
}

/// Calls `fn` with each whole record of contiguous ring-buffer bytes.
template <typename Fn>
void for_each_record(std::span<const std::byte> bytes, Fn&& fn) {
  std::size_t off = 0;
  while (off + 8 <= bytes.size()) {
    std::uint16_t size = 0;
    __builtin_memcpy(&size, bytes.data() + off + 6, 2);
    if (size < 8 || size > bytes.size() - off) break;
    fn(bytes.subspan(off, size));
    off += size;
  }
}

}  // namespace perfx::cli
