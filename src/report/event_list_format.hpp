#pragma once
/// \file
/// `perfx list` output: perf list's text layout and a JSON array (docs/events.md).
/// Pure: formats entries that sys::probe_event_list() already filled.

#include <string>
#include <vector>

#include "event/event_list.hpp"

namespace perfx::report {

/// Text options for format_event_list_text().
struct EventListTextOptions {
  bool descriptions = false;  ///< -d: a description line under each event
  bool banner = true;         ///< the heading and the modifier summary (no filter given)
};

/// perf list's layout: "  name OR alias    [Kind] [status]", one event a line.
[[nodiscard]] std::string format_event_list_text(const std::vector<event::ListEntry>& entries,
                                                 const EventListTextOptions& options);

/// A JSON array with one object per entry: name, aliases, kind, kind_label, syntax, type,
/// config (hex string or null), description, supported, probed, status.
[[nodiscard]] std::string format_event_list_json(const std::vector<event::ListEntry>& entries);

}  // namespace perfx::report
