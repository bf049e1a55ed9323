#pragma once
/// \file
/// The record plan (perfx/record.hpp's RecordPlan), pure: perf record's and perf top's
/// options -> every perf_event_attr, the tracking event, groups, features and synthesis
/// choices. The system lookups come in through event::Resolver and PlanEnvironment, so
/// the unit tests plan every option without a kernel. sys/record_session.cpp runs a plan.

#include <cstddef>
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "event/event_spec.hpp"
#include "event/resolver.hpp"
#include "perfx/error.hpp"
#include "perfx/record.hpp"

namespace perfx::event {

/// What the plan reads from the running system (sys fills it; tests make it up).
struct PlanEnvironment {
  std::optional<long long> max_sample_rate;  ///< /proc/sys/kernel/perf_event_max_sample_rate
  std::size_t page_size = 4096;
  int self_pid = 0;  ///< this process (--exclude-perf filters it out)
};

/// -g / --call-graph: how samples get their callchains.
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

/// Parses --call-graph ("" = none, "fp", "dwarf[,size]"). kNotSupported for lbr (no
/// PMU), kInvalidArgument naming a bad value.
[[nodiscard]] Result<CallGraph> parse_call_graph(std::string_view mode);

/// -m: a number of pages, or a size with B/K/M/G; rounded up to a power of two
/// (`rounded` says so). "" = 0 (the sampler's default).
[[nodiscard]] Result<std::size_t> parse_mmap_pages(const std::string& text, std::size_t page_size,
                                                   bool& rounded);

/// perf's parse_clockid(): a name (any case, "CLOCK_" prefix allowed; perf's short forms
/// too) or a number below 64.
[[nodiscard]] Result<int> parse_clockid(std::string name);

/// --max-size: bytes, with perf's B/K/M/G suffixes.
[[nodiscard]] Result<std::uint64_t> parse_max_size(const std::string& text);

/// --switch-output: "signal", a size (B/K/M/G) or a time (s/m/h/d), perf's tags.
[[nodiscard]] Result<SwitchOutputPlan> parse_switch_output(const std::string& text);

/// -j/--branch-filter: perf's comma list of branch modes -> branch_sample_type. Only
/// privilege levels (u, k, hv) given: "any" is added, as perf does.
[[nodiscard]] Result<std::uint64_t> parse_branch_filter(std::string_view modes);

/// --mmap-flush: bytes (perf's B/K/M/G tags, or a number), at most a quarter of the ring
/// buffer of `data_pages` pages (0: perf's 128); 0 or "" is 1.
[[nodiscard]] Result<std::uint64_t> parse_mmap_flush(const std::string& text,
                                                     std::size_t data_pages, std::size_t page_size);

/// --control: "fd:ctl[,ack]" or "fifo:ctl[,ack]", perf's syntax.
[[nodiscard]] Result<ControlPlan> parse_control(const std::string& text);

/// The name perf gives an event it renamed (evsel__name() without a name): `base` and
/// the modifiers the attr's exclude bits and precise_ip imply ("cpu-clock:ppp",
/// "cpu-clock:u").
[[nodiscard]] std::string name_with_modifiers(std::string base, const raw::EventAttr& attr);

/// The name of an event after the user-space-only fallback, as perf names it:
/// "cpu-clock" -> "cpu-clock:u", "msr/tsc/" -> "msr/tsc/u"; names with modifiers are kept.
[[nodiscard]] std::string user_only_name(const std::string& name);

/// Parsed -e groups as a plan's requested events (attrs as the specs give them; group
/// leaders counted within the result).
[[nodiscard]] std::vector<PlannedEvent> requested_events(const std::vector<EventGroup>& groups,
                                                         bool is_default);

/// Plans `options`: validates them (perf's messages), parses the events through
/// `resolver`, then applies the policy of options.style. Pure.
[[nodiscard]] Result<RecordPlan> plan_record(const RecordOptions& options, const Resolver& resolver,
                                             const PlanEnvironment& env);

/// Appends `groups` (each leader first, `group_leader` relative to the group: -1 for the
/// leader, else the index of the member's leader within `extra`) to plan.requested and
/// makes plan.events again.
[[nodiscard]] Result<void> add_requested_events(RecordPlan& plan, std::vector<PlannedEvent> extra);

}  // namespace perfx::event
