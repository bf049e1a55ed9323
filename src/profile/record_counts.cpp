#include "profile/record_counts.hpp"

#include "profile/replay.hpp"
#include "record/perf_data_reader.hpp"

namespace perfx::profile {

RecordCounts count_records(record::PerfDataReader& reader) {
  // perf's PERF_RECORD_HEADER_MAX: types past the user ones are not counted.
  constexpr std::size_t kTypes = raw::PERF_RECORD_FINISHED_INIT + 1;
  RecordCounts c;
  c.by_type.assign(kTypes, 0);
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
    ++c.by_type[raw.header.type];
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
  c.by_type[raw::PERF_RECORD_COMPRESSED] += reader.stats().compressed_records;
  for (const auto n : c.by_type) c.total += n;
  for (std::size_t t = 0; t < kTypes; ++t)
    c.names.emplace_back(record::record_type_name(static_cast<std::uint32_t>(t)));
  for (std::size_t i = 0; i < reader.attrs().size(); ++i) {
    c.events.push_back(
        {reader.event_name(i), i < samples.size() ? samples[i] : 0, i < lost.size() ? lost[i] : 0});
  }
  Result<void> read{};
  if (reader.error()) read = tl::unexpected(*reader.error());
  c.damage = describe_damage(reader, read);
  return c;
}

}  // namespace perfx::profile
