#include "report/evlist_text.hpp"

#include <fmt/format.h>
#include <linux/perf_event.h>

#include "profile/trace_formats.hpp"

namespace perfx::report {

std::string evlist_text(const std::vector<EvlistEvent>& entries,
                        const std::vector<EvlistGroup>& groups, const EvlistOptions& options) {
  std::string out;
  // -g: each group (HEADER_GROUP_DESC) on its leader's line; events outside one alone.
  std::vector<const EvlistGroup*> group_at(entries.size(), nullptr);
  std::vector<bool> member(entries.size(), false);
  if (options.group) {
    for (const auto& g : groups) {
      if (g.leader >= entries.size()) continue;
      group_at[g.leader] = &g;
      for (std::uint32_t m = 1; m < g.members && g.leader + m < entries.size(); ++m)
        member[g.leader + m] = true;
    }
  }
  bool tracepoints = false;
  profile::TraceFormats formats;
  for (std::size_t i = 0; i < entries.size(); ++i) {
    const auto& e = entries[i];
    tracepoints |= e.attr.type == PERF_TYPE_TRACEPOINT;
    if (options.group) {
      if (member[i]) continue;
      const EvlistGroup* g = group_at[i];
      if (g != nullptr && g->members > 1) {
        // perf names anonymous groups by their members only.
        out += g->name == "{anon_group}" ? "{" : g->name + "{";
        for (std::uint32_t m = 0; m < g->members && i + m < entries.size(); ++m)
          out += (m ? "," : "") + entries[i + m].name;
        out += "}\n";
      } else {
        out += e.name + "\n";
      }
      continue;
    }
    out += e.name;
    // perf's comma_fprintf(): ':' before the first item of the line, ',' before the rest.
    bool first = true;
    auto item = [&](std::string_view text) {
      out += first ? ':' : ',';
      out += text;
      first = false;
    };
    if (options.verbose) {
      std::string fields = e.attr_fields;
      if (!fields.empty()) {
        fields[0] = ':';  // attr_fields() puts ", " before each
        out += fields;
        first = false;
      }
    } else if (options.freq) {
      item(fmt::format(" {}={}", e.attr.freq ? "sample_freq" : "sample_period",
                       e.attr.sample_period));
    }
    if (options.trace_fields) {
      if (e.attr.type != PERF_TYPE_TRACEPOINT) {
        item(" (not a tracepoint)");
      } else if (auto names = formats.fields(options.tracefs, e.name); !names || names->empty()) {
        item(" (no trace field)");
      } else {
        item(" trace_fields: " + names->front());
        for (std::size_t k = 1; k < names->size(); ++k) item((*names)[k]);
      }
    }
    out += "\n";
  }
  if (tracepoints && !options.trace_fields)
    out += "# Tip: use 'perf evlist --trace-fields' to show fields for tracepoint events\n";
  return out;
}

}  // namespace perfx::report
