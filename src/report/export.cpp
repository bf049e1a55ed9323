#include "report/export.hpp"

#include <algorithm>
#include <array>

#include "core/error_format.hpp"
#include "report/firefox.hpp"
#include "report/flamegraph_html.hpp"
#include "report/flamegraph_svg.hpp"
#include "report/folded.hpp"
#include "report/json_profile.hpp"
#include "report/pprof.hpp"
#include "report/speedscope.hpp"

namespace perfx::report {

namespace {

// One row per format, in documentation order (docs/exports.md). Every predicate below and
// export_profile()'s dispatch read this table: a new format is one row.
constexpr std::array<ExportFormat, 7> kExportFormats = {{
    {.name = "folded", .write = &write_folded},
    {.name = "html", .write = &write_flamegraph_html},
    {.name = "svg", .write = &write_flamegraph_svg},
    {.name = "pprof", .write = &write_pprof, .binary = true, .wants_source_lines = true},
    {.name = "speedscope",
     .write = &write_speedscope,
     .needs_each_sample = true,
     .merges_runs = true},
    {.name = "firefox", .write = &write_firefox, .needs_each_sample = true},
    {.name = "json",
     .write = &write_json_profile,
     .needs_each_sample = true,
     .wants_source_lines = true},
}};

}  // namespace

std::span<const ExportFormat> export_format_table() noexcept { return kExportFormats; }

const ExportFormat* find_export_format(std::string_view name) noexcept {
  const auto* it = std::find_if(kExportFormats.begin(), kExportFormats.end(),
                                [&](const ExportFormat& f) { return f.name == name; });
  return it == kExportFormats.end() ? nullptr : it;
}

const std::vector<std::string_view>& export_formats() {
  static const std::vector<std::string_view> kNames = [] {
    std::vector<std::string_view> names;
    for (const auto& f : kExportFormats) names.push_back(f.name);
    return names;
  }();
  return kNames;
}

bool is_export_format(std::string_view format) noexcept {
  return find_export_format(format) != nullptr;
}

namespace {

// A column of `format`'s row; false for a name no row has.
bool column(std::string_view format, bool ExportFormat::*flag) noexcept {
  const auto* f = find_export_format(format);
  return f != nullptr && f->*flag;
}

}  // namespace

bool is_binary_format(std::string_view format) noexcept {
  return column(format, &ExportFormat::binary);
}

bool format_needs_each_sample(std::string_view format) noexcept {
  return column(format, &ExportFormat::needs_each_sample);
}

bool format_merges_runs(std::string_view format) noexcept {
  return column(format, &ExportFormat::merges_runs);
}

bool export_wants_source_lines(std::string_view format) noexcept {
  return column(format, &ExportFormat::wants_source_lines);
}

Result<void> export_profile(std::string_view format, const profile::Profile& profile,
                            std::ostream& out, const ExportOptions& options) {
  const auto* f = find_export_format(format);
  if (f == nullptr) {
    std::string names;
    for (const auto& row : kExportFormats)
      names += (names.empty() ? "" : ", ") + std::string(row.name);
    return fail(Errc::kInvalidArgument, "unknown export format '{}': use one of {}", format, names);
  }
  if (auto r = f->write(profile, out, options); !r)
    return tl::unexpected(std::move(r).error().context(fmt::format("exporting as {}", format)));
  out.flush();
  if (!out) return fail(Errc::kIo, "exporting as {}: flushing the output failed", format);
  return {};
}

}  // namespace perfx::report
