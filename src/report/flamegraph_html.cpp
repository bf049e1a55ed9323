#include "report/flamegraph_html.hpp"

#include <fmt/format.h>

#include "core/error_format.hpp"
#include "report/assets.hpp"
#include "report/export_util.hpp"

namespace perfx::report {
namespace {

// Replaces every occurrence of `marker` in `text`.
void replace_all(std::string& text, std::string_view marker, std::string_view value) {
  std::size_t pos = 0;
  while ((pos = text.find(marker, pos)) != std::string::npos) {
    text.replace(pos, marker.size(), value);
    pos += value.size();
  }
}

}  // namespace

void append_folded_names_json(std::string& out, const FoldedProfile& folded) {
  out += "\"names\":[";
  for (std::size_t i = 0; i < folded.names.size(); ++i) {
    if (i) out.push_back(',');
    detail::append_json_string(out, folded.names[i]);
  }
  out += "],\"kinds\":[";
  for (std::size_t i = 0; i < folded.kinds.size(); ++i) {
    if (i) out.push_back(',');
    out += std::to_string(static_cast<int>(folded.kinds[i]));
  }
  out += "]";
}

Result<void> write_flamegraph_page(std::string_view title, std::string_view data_json,
                                   std::ostream& out) {
  const std::string_view page = assets::find("flamegraph.html");
  const std::string_view css = assets::find("flamegraph.css");
  const std::string_view js = assets::find("flamegraph.js");
  if (page.empty() || js.empty()) {
    return fail(Errc::kNotFound, "the flame graph template is missing from this build");
  }
  std::string escaped_title;
  detail::append_xml_escaped(escaped_title, title);
  const std::string_view data_marker = "<!--PERFX_DATA-->";
  const std::size_t data_pos = page.find(data_marker);
  if (data_pos == std::string_view::npos) {
    return fail(Errc::kNotFound, "the flame graph template has no data marker");
  }
  // The data can be large: write it between the two template halves, never copying it.
  std::string head(page.substr(0, data_pos));
  std::string tail(page.substr(data_pos + data_marker.size()));
  for (std::string* part : {&head, &tail}) {
    replace_all(*part, "<!--PERFX_TITLE-->", escaped_title);
    replace_all(*part, "<!--PERFX_CSS-->", css);
    replace_all(*part, "<!--PERFX_JS-->", js);
  }
  PERFX_CHECK(detail::write_all(out, head));
  PERFX_CHECK(detail::write_all(out, data_json));
  return detail::write_all(out, tail);
}

Result<void> write_flamegraph_html(const profile::Profile& profile, std::ostream& out,
                                   const ExportOptions& options) {
  ExportOptions fold_options = options;
  fold_options.annotate_kernel = false;  // the page colours kernel frames instead
  PERFX_TRY(folded, fold(profile, fold_options));
  const std::string title = detail::display_title(profile, options);
  const std::string event_name =
      folded.event < profile.events.size() ? profile.events[folded.event].name : "samples";

  std::string data = "{";
  data += "\"title\":";
  detail::append_json_string(data, title);
  data += ",\"subtitle\":";
  detail::append_json_string(
      data,
      fmt::format(
          "event {}: {}, {} threads{}", event_name,
          folded.weighted ? fmt::format("{:.3f} s on and off CPU (off-CPU in blue)",
                                        static_cast<double>(folded.total_weight) / 1e9)
                          : fmt::format("{} samples", folded.total_samples),
          profile.threads.size(),
          profile.lost_samples ? fmt::format(", {} lost", profile.lost_samples) : std::string()));
  data += folded.weighted ? ",\"unit\":\"ns\"" : ",\"unit\":\"samples\"";
  data += ",\"diff\":false,\"icicle\":";
  data += options.inverted ? "true," : "false,";
  append_folded_names_json(data, folded);
  data += ",\"stacks\":[";
  bool first = true;
  for (const auto& s : folded.stacks) {
    if (!first) data.push_back(',');
    first = false;
    data.push_back('[');
    data += std::to_string(s.value(folded.weighted));
    for (std::uint32_t n : s.names) {
      data.push_back(',');
      data += std::to_string(n);
    }
    data.push_back(']');
  }
  data += "]}";
  return write_flamegraph_page(title, data, out);
}

}  // namespace perfx::report
