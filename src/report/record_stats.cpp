#include "report/record_stats.hpp"

#include <fmt/format.h>

#include <array>
#include <vector>

#include "core/error_format.hpp"
#include "profile/replay.hpp"
#include "record/perf_data_reader.hpp"

namespace perfx::report {

Result<void> write_record_stats(std::ostream& out, const std::string& path, bool skip_empty) {
  PERFX_TRY(reader, record::PerfDataReader::open(path));
  // perf's PERF_RECORD_HEADER_MAX: types past the user ones are not counted.
  constexpr std::size_t kTypes = raw::PERF_RECORD_FINISHED_INIT + 1;
  std::array<std::uint64_t, kTypes> by_type{};
  std::vector<std::uint64_t> samples, lost;
  auto grow = [&](std::size_t attr) {
    if (samples.size() <= attr) {
      samples.resize(attr + 1);
      lost.resize(attr + 1);
    }
  };
  record::RawRecord raw;
  record::Record decoded;
  while (reader.next(raw)) {
    if (raw.header.type >= kTypes) continue;
    ++by_type[raw.header.type];
    int attr = -1;
    if (raw.header.type == PERF_RECORD_SAMPLE) {
      if (reader.decode_sample(raw, &attr) && attr >= 0) {
        grow(static_cast<std::size_t>(attr));
        ++samples[static_cast<std::size_t>(attr)];
      }
    } else if (raw.header.type == PERF_RECORD_LOST_SAMPLES) {
      if (reader.decode(raw, decoded) && decoded.attr_index >= 0) {
        if (const auto* l = decoded.get<record::LostSamples>()) {
          grow(static_cast<std::size_t>(decoded.attr_index));
          lost[static_cast<std::size_t>(decoded.attr_index)] += l->lost;
        }
      }
    }
  }
  by_type[raw::PERF_RECORD_COMPRESSED] += reader.stats().compressed_records;
  std::uint64_t total = 0;
  for (const auto n : by_type) total += n;

  std::string text = "\nAggregated stats:\n";
  // perf prints the counts with "%10d" (an int).
  text += fmt::format("{:>16} events: {:>10}\n", "TOTAL", static_cast<std::int32_t>(total));
  for (std::size_t t = 1; t < kTypes; ++t) {
    const auto name = record::record_type_name(static_cast<std::uint32_t>(t));
    if (name == "UNKNOWN" || (skip_empty && by_type[t] == 0)) continue;
    text += fmt::format("{:>16} events: {:>10}", name, static_cast<std::int32_t>(by_type[t]));
    if (total > 0)
      text += fmt::format("  ({:4.1f}%)",
                          100.0 * static_cast<double>(by_type[t]) / static_cast<double>(total));
    text += '\n';
  }
  for (std::size_t i = 0; i < reader.attrs().size(); ++i) {
    const std::uint64_t s = i < samples.size() ? samples[i] : 0;
    const std::uint64_t l = i < lost.size() ? lost[i] : 0;
    if (skip_empty && s == 0 && l == 0) continue;
    text += fmt::format("{} stats:\n", reader.event_name(i));
    if (s > 0)
      text += fmt::format("{:>16} events: {:>10}\n", "SAMPLE", static_cast<std::int32_t>(s));
    if (l > 0)
      text += fmt::format("{:>16} events: {:>10}\n", "LOST_SAMPLES", static_cast<std::int32_t>(l));
  }
  out << text;
  if (!out) return fail(Errc::kIo, "writing the statistics failed");
  Result<void> read{};
  if (reader.error()) read = tl::unexpected(*reader.error());
  if (auto damage = profile::describe_damage(reader, read); !damage.empty())
    return fail(Errc::kMalformedData, "{}", damage);
  return {};
}

}  // namespace perfx::report
