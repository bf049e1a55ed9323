#include "report/event_list_format.hpp"

#include <fmt/format.h>

#include <span>

#include "event/public_kind.hpp"
#include "perfx/events.hpp"
#include "report/export_util.hpp"

namespace perfx::report {
namespace {

// The internal kind of an entry of either list: perfx list's own (event::ListEntry) or
// the public one (perfx::EventListing).
event::EventKind kind_of(const event::ListEntry& e) { return e.kind; }
event::EventKind kind_of(const EventListing& e) { return event::from_public(e.kind); }

template <typename Entry>
std::string list_text(std::span<const Entry> entries, bool descriptions, bool banner) {
  std::string out;
  auto it = std::back_inserter(out);
  if (banner) out += "\nList of pre-defined events (to be used in -e):\n\n";
  for (const auto& e : entries) {
    std::string name = e.name;
    for (const auto& a : e.aliases) name += " OR " + a;
    fmt::format_to(it, "  {:<50} [{}] [{}]\n", name, event::kind_name(kind_of(e)), e.status);
    if (descriptions && !e.description.empty()) {
      fmt::format_to(it, "       {}\n", e.description);
    }
  }
  if (banner) {
    out +=
        "\nModifiers: append :u :k :h :H :G :I :p/:pp/:ppp :S :D :e :W (e.g. page-faults:u);"
        "\ngroups: {a,b} with group modifiers {a,b}:u. See docs/events.md.\n";
  }
  return out;
}

template <typename Entry>
std::string list_json(std::span<const Entry> entries) {
  std::string out = "[";
  auto it = std::back_inserter(out);
  bool first = true;
  for (const auto& e : entries) {
    out += first ? "\n  {\"name\":" : ",\n  {\"name\":";
    first = false;
    detail::append_json_string(out, e.name);
    out += ",\"aliases\":[";
    for (std::size_t i = 0; i < e.aliases.size(); ++i) {
      if (i != 0) out += ',';
      detail::append_json_string(out, e.aliases[i]);
    }
    fmt::format_to(it, "],\"kind\":\"{}\",\"kind_label\":\"{}\",\"syntax\":{},",
                   event::kind_key(kind_of(e)), event::kind_name(kind_of(e)), e.syntax);
    if (e.attr) {
      fmt::format_to(it, "\"type\":{},", e.attr->type);
    } else {
      out += "\"type\":null,";
    }
    if (e.attr && !e.syntax) {
      fmt::format_to(it, "\"config\":\"{:#x}\",", static_cast<std::uint64_t>(e.attr->config));
    } else {
      out += "\"config\":null,";
    }
    out += "\"description\":";
    detail::append_json_string(out, e.description);
    fmt::format_to(it, ",\"supported\":{},\"probed\":{},\"status\":", e.supported, e.probed);
    detail::append_json_string(out, e.status);
    out += '}';
  }
  out += "\n]\n";
  return out;
}

}  // namespace

std::string format_event_list_text(const std::vector<event::ListEntry>& entries,
                                   const EventListTextOptions& options) {
  return list_text(std::span(entries), options.descriptions, options.banner);
}

std::string format_event_list_json(const std::vector<event::ListEntry>& entries) {
  return list_json(std::span(entries));
}

}  // namespace perfx::report

namespace perfx {

// Declared public in perfx/events.hpp.
std::string format_event_list_text(std::span<const EventListing> events,
                                   const EventListTextOptions& options) {
  return report::list_text(events, options.descriptions, options.banner);
}

std::string format_event_list_json(std::span<const EventListing> events) {
  return report::list_json(events);
}

}  // namespace perfx
