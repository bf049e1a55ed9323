#include "report/export.hpp"

#include <algorithm>

#include "core/error_format.hpp"
#include "report/firefox.hpp"
#include "report/flamegraph_html.hpp"
#include "report/flamegraph_svg.hpp"
#include "report/folded.hpp"
#include "report/json_profile.hpp"
#include "report/pprof.hpp"
#include "report/speedscope.hpp"

namespace perfx::report {

const std::vector<std::string_view>& export_formats() {
  static const std::vector<std::string_view> kFormats = {"folded",     "html",    "svg", "pprof",
                                                         "speedscope", "firefox", "json"};
  return kFormats;
}

bool is_export_format(std::string_view format) noexcept {
  const auto& f = export_formats();
  return std::find(f.begin(), f.end(), format) != f.end();
}

bool is_binary_format(std::string_view format) noexcept { return format == "pprof"; }

bool format_needs_each_sample(std::string_view format) noexcept {
  return format == "speedscope" || format == "firefox" || format == "json";
}

bool format_merges_runs(std::string_view format) noexcept { return format == "speedscope"; }

bool export_wants_source_lines(std::string_view format) noexcept {
  return format == "pprof" || format == "json";
}

Result<void> export_profile(std::string_view format, const profile::Profile& profile,
                            std::ostream& out, const ExportOptions& options) {
  Result<void> r;
  if (format == "folded") {
    r = write_folded(profile, out, options);
  } else if (format == "html") {
    r = write_flamegraph_html(profile, out, options);
  } else if (format == "svg") {
    r = write_flamegraph_svg(profile, out, options);
  } else if (format == "pprof") {
    r = write_pprof(profile, out, options);
  } else if (format == "speedscope") {
    r = write_speedscope(profile, out, options);
  } else if (format == "firefox") {
    r = write_firefox(profile, out, options);
  } else if (format == "json") {
    r = write_json_profile(profile, out, options);
  } else {
    return fail(Errc::kInvalidArgument,
                "unknown export format '{}': use one of folded, html, svg, pprof, speedscope, "
                "firefox, json",
                format);
  }
  if (!r)
    return tl::unexpected(std::move(r).error().context(fmt::format("exporting as {}", format)));
  out.flush();
  if (!out) return fail(Errc::kIo, "exporting as {}: flushing the output failed", format);
  return {};
}

}  // namespace perfx::report
