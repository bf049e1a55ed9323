// perf.data tracepoint walk (see tracepoint_walk.hpp).

#include "profile/tracepoint_walk.hpp"

#include <linux/perf_event.h>

#include <unordered_map>

#include <fmt/format.h>

#include "core/error_format.hpp"
#include "record/ownership_check.hpp"
#include "record/perf_data_reader.hpp"

namespace perfx::profile {

Result<TracepointWalkStats> walk_tracepoint_recording(
    const std::string& path, bool force,
    const std::function<void(const record::Record&, const event::TracepointFormat*)>& fn) {
  PERFX_CHECK(record::check_input_owner(path, force));
  auto reader = record::PerfDataReader::open(path);
  if (!reader) return tl::unexpected(std::move(reader).error());
  TracepointWalkStats stats;
  std::vector<event::TracepointFormat> formats;
  std::vector<const event::TracepointFormat*> by_attr;  // attr index -> format
  bool have_formats = false;
  const auto load_formats = [&](std::span<const std::byte> data) -> Result<void> {
    auto parsed = event::parse_tracing_data(data);
    if (!parsed) return tl::unexpected(std::move(parsed).error());
    formats = std::move(*parsed);
    have_formats = true;
    by_attr.clear();
    return {};
  };
  if (!reader->features().tracing_data.empty()) {
    if (auto ok = load_formats(reader->features().tracing_data); !ok) {
      return tl::unexpected(std::move(ok).error().context(path));
    }
  }
  if (reader->features().nrcpus) stats.nr_cpus = reader->features().nrcpus->online;
  // The format of an attr, looked up once (pipe mode adds attrs as they come).
  const auto format_of = [&](int attr_index) -> const event::TracepointFormat* {
    if (attr_index < 0) return nullptr;
    const auto& attrs = reader->attrs();
    while (by_attr.size() < attrs.size()) {
      const auto& a = attrs[by_attr.size()].attr;
      const event::TracepointFormat* found = nullptr;
      if (a.type == PERF_TYPE_TRACEPOINT) {
        for (const auto& f : formats) {
          if (f.id == a.config) found = &f;
        }
      }
      by_attr.push_back(found);
    }
    return static_cast<std::size_t>(attr_index) < by_attr.size()
               ? by_attr[static_cast<std::size_t>(attr_index)]
               : nullptr;
  };
  record::RawRecord raw;
  record::Record rec;
  bool warned_no_formats = false;
  while (reader->next(raw)) {
    ++stats.records;
    if (raw.header.type == raw::PERF_RECORD_HEADER_TRACING_DATA && !raw.tail.empty()) {
      if (auto ok = load_formats(raw.tail); !ok) {
        return tl::unexpected(std::move(ok).error().context(path));
      }
      continue;
    }
    if (!reader->decode(raw, rec)) {
      ++stats.malformed;
      continue;
    }
    if (const auto* lost = rec.get<record::Lost>()) {
      stats.lost += lost->lost;
      ++stats.lost_records;
    }
    const event::TracepointFormat* format = nullptr;
    if (rec.type() == PERF_RECORD_SAMPLE) {
      ++stats.samples;
      format = format_of(rec.attr_index);
      if (format == nullptr && !have_formats && rec.attr_index >= 0 &&
          reader->attrs()[static_cast<std::size_t>(rec.attr_index)].attr.type ==
              PERF_TYPE_TRACEPOINT) {
        warned_no_formats = true;
      }
    }
    fn(rec, format);
  }
  stats.skipped_bytes = reader->stats().skipped_bytes;
  if (reader->error()) {
    if (stats.samples == 0) return tl::unexpected(*reader->error());
    stats.damage = reader->error()->message();
  } else if (stats.skipped_bytes != 0) {
    stats.damage = fmt::format("{}: {} damaged bytes skipped", path, stats.skipped_bytes);
  }
  if (warned_no_formats) {
    return fail(Errc::kNotFound,
                "{}: the recording has no tracing data, so its tracepoint samples cannot be "
                "decoded",
                path);
  }
  return stats;
}

}  // namespace perfx::profile
