#include "report/record_stats.hpp"

#include <fmt/format.h>

#include "core/error_format.hpp"

namespace perfx::report {

Result<void> write_record_stats(std::ostream& out, const profile::RecordCounts& counts,
                                bool skip_empty) {
  const std::uint64_t total = counts.total;
  std::string text = "\nAggregated stats:\n";
  // perf prints the counts with "%10d" (an int).
  text += fmt::format("{:>16} events: {:>10}\n", "TOTAL", static_cast<std::int32_t>(total));
  for (std::size_t t = 1; t < counts.by_type.size(); ++t) {
    const std::string& name = counts.names[t];
    const std::uint64_t n = counts.by_type[t];
    if (name == "UNKNOWN" || (skip_empty && n == 0)) continue;
    text += fmt::format("{:>16} events: {:>10}", name, static_cast<std::int32_t>(n));
    if (total > 0)
      text +=
          fmt::format("  ({:4.1f}%)", 100.0 * static_cast<double>(n) / static_cast<double>(total));
    text += '\n';
  }
  for (const auto& e : counts.events) {
    if (skip_empty && e.samples == 0 && e.lost == 0) continue;
    text += fmt::format("{} stats:\n", e.name);
    if (e.samples > 0)
      text +=
          fmt::format("{:>16} events: {:>10}\n", "SAMPLE", static_cast<std::int32_t>(e.samples));
    if (e.lost > 0)
      text +=
          fmt::format("{:>16} events: {:>10}\n", "LOST_SAMPLES", static_cast<std::int32_t>(e.lost));
  }
  out << text;
  if (!out) return fail(Errc::kIo, "writing the statistics failed");
  if (!counts.damage.empty()) return fail(Errc::kMalformedData, "{}", counts.damage);
  return {};
}

}  // namespace perfx::report
