#include "report/event_list_format.hpp"

#include <fmt/format.h>

#include "report/export_util.hpp"

namespace perfx::report {

std::string format_event_list_text(const std::vector<event::ListEntry>& entries,
                                   const EventListTextOptions& options) {
  std::string out;
  auto it = std::back_inserter(out);
  if (options.banner) out += "\nList of pre-defined events (to be used in -e):\n\n";
  for (const auto& e : entries) {
    std::string name = e.name;
    for (const auto& a : e.aliases) name += " OR " + a;
    fmt::format_to(it, "  {:<50} [{}] [{}]\n", name, event::kind_name(e.kind), e.status);
    if (options.descriptions && !e.description.empty()) {
      fmt::format_to(it, "       {}\n", e.description);
    }
  }
  if (options.banner) {
    out +=
        "\nModifiers: append :u :k :h :H :G :I :p/:pp/:ppp :S :D :e :W (e.g. page-faults:u);"
        "\ngroups: {a,b} with group modifiers {a,b}:u. See docs/events.md.\n";
  }
  return out;
}

std::string format_event_list_json(const std::vector<event::ListEntry>& entries) {
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
                   event::kind_key(e.kind), event::kind_name(e.kind), e.syntax);
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

}  // namespace perfx::report
