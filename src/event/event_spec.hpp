#pragma once
/// \file
/// The event model: what one `-e` item resolves to. An event spec string such as
/// `"task-clock,{page-faults:u,sched:sched_switch}:k"` becomes a list of EventGroup,
/// each holding EventSpec values whose `attr` is ready for perf_event_open(2) once the
/// tool has added its own sampling/read_format choices.
///
/// Pure module: no kernel calls. Name lookups that need the running system (PMU types,
/// tracepoint ids, uprobe symbol offsets) go through event::Resolver (resolver.hpp).

#include <cstdint>
#include <string>
#include <vector>

#include "perfx/raw.hpp"

namespace perfx::event {

/// How an event was spelled (and therefore which PMU it goes to).
enum class EventKind : std::uint8_t {
  kHardware,    ///< PERF_TYPE_HARDWARE: cycles, instructions, ...
  kSoftware,    ///< PERF_TYPE_SOFTWARE: task-clock, page-faults, ...
  kHwCache,     ///< PERF_TYPE_HW_CACHE: L1-dcache-load-misses, ...
  kRaw,         ///< PERF_TYPE_RAW: rNNNN
  kPmu,         ///< pmu/term=val,.../ resolved through sysfs (msr/tsc/, software/config=1/ ...)
  kTracepoint,  ///< subsys:name (PERF_TYPE_TRACEPOINT, config = tracefs id)
  kBreakpoint,  ///< mem:ADDR[/LEN][:rwx] (PERF_TYPE_BREAKPOINT)
  kUprobe,      ///< uprobe:/path:sym / uretprobe:/path:sym through the uprobe PMU
};

/// Human name of a kind, as `perfx list` prints it ("Software event", ...).
const char* kind_name(EventKind kind) noexcept;

/// Stable machine name of a kind for JSON: "hardware", "software", "hw_cache", "raw",
/// "pmu", "tracepoint", "breakpoint", "uprobe".
const char* kind_key(EventKind kind) noexcept;

/// The access letters of a breakpoint's bp_type as perf's mem: syntax writes them ("r",
/// "w", "rw", "x"; "" for none).
std::string breakpoint_access_text(std::uint32_t bp_type);

/// One resolved event.
///
/// `attr` holds everything the spec string determines: type, size (136), config,
/// config1..3, bp_type/bp_addr/bp_len, exclude_* bits, precise_ip, pinned, exclusive,
/// and sample_period/freq when a `period=`/`freq=` term was given. The tool adds its own
/// fields (read_format, sample_type, disabled, inherit, ...) on a copy.
///
/// Uprobes: the kernel reads the probed file's path through a user pointer in
/// attr.config1. `uprobe_path` owns that string; because an EventSpec may be copied or
/// moved, never open `attr` directly for a uprobe: call attr_for_open(), which returns a
/// copy with config1 pointing at this object's `uprobe_path` (valid while *this lives and
/// `uprobe_path` is unchanged).
struct EventSpec {
  /// The event as the user wrote it, whitespace trimmed, modifiers included
  /// ("page-faults:u", "cs", "msr/tsc/"), or the `name=` term when one was given.
  /// This is what tools print.
  std::string name;
  /// Canonical spelling without modifiers: "context-switches" for "cs",
  /// "L1-dcache-load-misses" for "l1d-load-miss", "sched:sched_switch", "msr/tsc/",
  /// "mem:0x1000/4:rw", "uprobe:/bin/true:main".
  std::string canonical;
  EventKind kind = EventKind::kSoftware;
  /// Kernel attr (type/config/... filled, size = raw::kAttrSizeVer8). For uprobes
  /// attr.config1 is 0 here; use attr_for_open().
  raw::EventAttr attr{};

  /// Uprobes only: the probed file, as written. attr_for_open() points config1 at it.
  std::string uprobe_path;
  /// Uprobes only: the symbol (empty when an offset was given) and its resolved file
  /// offset (also in attr.config2).
  std::string uprobe_symbol;

  /// PMU events only: the PMU's sysfs name ("msr", "uprobe", ...).
  std::string pmu;

  /// Suggested sampling period when the tool has no -c/-F of its own and the event is
  /// sampled: 1 for tracepoints and breakpoints (every hit, like perf), 0 = tool default.
  std::uint64_t default_period = 0;
  /// True when a `period=` or `freq=` term set attr.sample_period/freq/attr.freq:
  /// the tool must not override them with -c/-F.
  bool period_from_term = false;

  /// `:S` (on the group leader): sample the leader and read the other members with
  /// PERF_SAMPLE_READ (perf's leader sampling). Tools add PERF_SAMPLE_READ and
  /// PERF_FORMAT_GROUP and sample only the leader.
  bool sample_read = false;
  /// `:W`: weak group; if the group cannot be scheduled, the tool may open members alone.
  bool weak_group = false;
  /// True when any of u/k/h modifiers was given (explicitly chosen privilege levels);
  /// tools may add exclude_kernel under perf_event_paranoid >= 2 only when this is false.
  bool explicit_privilege = false;
  /// `:P`: perf's precise_max. A recording sets precise_ip 3 and lowers it until the event
  /// opens; counting leaves precise_ip 0.
  bool precise_max = false;

  /// A copy of `attr` ready for perf_event_open(2): for uprobes config1 is set to
  /// `uprobe_path.c_str()`. The pointer stays valid while *this lives unchanged.
  [[nodiscard]] raw::EventAttr attr_for_open() const;
};

/// A group (`{a,b}`) or a single ungrouped event. events[0] is the leader.
struct EventGroup {
  std::vector<EventSpec> events;
  /// True when written with braces (even `{a}`): the tool opens events[1..] with
  /// group_fd = the leader's fd. False: a lone event (events.size() == 1).
  bool is_group = false;
};

/// Short text describing an attr for messages and `-v` output:
/// "type=1 (software) config=0x2 exclude_kernel=1 precise_ip=2".
/// Only non-default fields that the event model sets are printed.
std::string describe_attr(const raw::EventAttr& attr);

}  // namespace perfx::event
