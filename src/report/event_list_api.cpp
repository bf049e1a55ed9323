// perfx/events.hpp's list formatters: the public EventListing through the same text and
// JSON layouts `perfx list` prints (event_list_format.cpp).
#include <span>
#include <string>
#include <vector>

#include "event/event_list.hpp"
#include "event/public_kind.hpp"
#include "perfx/events.hpp"
#include "report/event_list_format.hpp"

namespace perfx {

namespace {

// The formatters' input (report/event_list_format.hpp) from the public listing.
std::vector<event::ListEntry> to_entries(std::span<const EventListing> events) {
  std::vector<event::ListEntry> out;
  out.reserve(events.size());
  for (const EventListing& l : events) {
    event::ListEntry e;
    e.name = l.name;
    e.aliases = l.aliases;
    e.kind = event::from_public(l.kind);
    e.description = l.description;
    e.syntax = l.syntax;
    e.attr = l.attr;
    e.supported = l.supported;
    e.probed = l.probed;
    e.status = l.status;
    out.push_back(std::move(e));
  }
  return out;
}

}  // namespace

std::string format_event_list_text(std::span<const EventListing> events,
                                   const EventListTextOptions& options) {
  return report::format_event_list_text(
      to_entries(events), {.descriptions = options.descriptions, .banner = options.banner});
}

std::string format_event_list_json(std::span<const EventListing> events) {
  return report::format_event_list_json(to_entries(events));
}

}  // namespace perfx
