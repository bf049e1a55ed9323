// The public exporters (include/perfx/exporters.hpp): the report module's export table.
#include "perfx/exporters.hpp"

#include "report/export.hpp"

namespace perfx {

const std::vector<std::string_view>& export_formats() { return report::export_formats(); }
bool is_export_format(std::string_view format) noexcept { return report::is_export_format(format); }
bool is_binary_format(std::string_view format) noexcept { return report::is_binary_format(format); }
bool format_needs_each_sample(std::string_view format) noexcept {
  return report::format_needs_each_sample(format);
}
bool format_merges_runs(std::string_view format) noexcept {
  return report::format_merges_runs(format);
}
bool export_wants_source_lines(std::string_view format) noexcept {
  return report::export_wants_source_lines(format);
}
Result<void> export_profile(std::string_view format, const Profile& profile, std::ostream& out,
                            const ExportOptions& options) {
  return report::export_profile(format, profile, out, options);
}

}  // namespace perfx
