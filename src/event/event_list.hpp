#pragma once
/// \file
/// Every event usable on this system, grouped by kind in perf list's order, for
/// `perfx list`. Pure: names come from the shared tables (event_names.hpp) and the
/// Resolver; probing whether each one opens is the caller's job.

#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "event/event_spec.hpp"
#include "event/resolver.hpp"

namespace perfx::event {

/// One line of `perfx list`.
struct ListEntry {
  std::string name;                  ///< "cpu-cycles", "msr/tsc/", "sched:sched_switch", "rNNN"
  std::vector<std::string> aliases;  ///< other accepted spellings ("cycles")
  EventKind kind = EventKind::kSoftware;
  std::string description;  ///< one line; for syntax entries, how to write them
  /// True for syntax templates ("rNNN", "mem:<addr>[/len][:access]", "uprobe:...") rather
  /// than one concrete event; `attr` then holds a representative attr to probe with
  /// (a breakpoint/uprobe needs the caller to fill an address/path, see `probe_hint`).
  bool syntax = false;
  /// The attr to probe with; empty when the event could not be resolved (`unavailable`).
  std::optional<raw::EventAttr> attr;
  /// Why the event could not even be resolved (e.g. unreadable tracepoint id).
  std::string unavailable;

  // Filled by sys::probe_event_list() (the only code that opens events):
  bool supported = false;  ///< the probe opened it (or, unprobed, it is known usable)
  bool probed = false;     ///< a perf_event_open was really attempted
  std::string status;      ///< "supported", "not supported: no hardware PMU", ...
};

/// Options for list_events().
struct ListOptions {
  /// perf-like filter: a glob ("sched:*", "*fault*"), a plain word matched as a substring,
  /// or a class: hw|hardware, sw|software, cache|hwcache, pmu, tracepoint, breakpoint,
  /// raw, uprobe. Empty: everything.
  std::string filter;
  /// Resolve tracepoint ids (reads one tracefs file per tracepoint; tracepoints without
  /// an id file are left out, like perf). When false the tracepoint entries carry no attr.
  bool resolve_tracepoints = true;
};

/// Builds the list. Fails only if listing tracepoints fails for a reason other than
/// tracefs being absent (then the tracepoint section is just empty).
Result<std::vector<ListEntry>> list_events(const Resolver& resolver, const ListOptions& options);

/// True when `entry` passes `filter` (see ListOptions::filter).
bool matches_filter(const ListEntry& entry, std::string_view filter);

}  // namespace perfx::event
