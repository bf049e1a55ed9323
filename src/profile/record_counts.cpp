#include "profile/record_counts.hpp"

#include "profile/replay.hpp"
#include "record/perf_data_reader.hpp"

namespace perfx::profile {
namespace {
// perf's PERF_RECORD_HEADER_MAX: types past the user ones are not counted.
constexpr std::size_t kTypes = raw::PERF_RECORD_FINISHED_INIT + 1;
}  // namespace

void RecordCounter::add(std::uint32_t type, int attr_index, std::uint64_t lost_samples) {
  if (type >= kTypes) return;
  if (by_type_.empty()) by_type_.assign(kTypes, 0);
  ++by_type_[type];
  if (attr_index < 0 || (type != PERF_RECORD_SAMPLE && type != PERF_RECORD_LOST_SAMPLES)) return;
  const auto attr = static_cast<std::size_t>(attr_index);
  if (samples_.size() <= attr) {
    samples_.resize(attr + 1);
    lost_.resize(attr + 1);
  }
  if (type == PERF_RECORD_SAMPLE)
    ++samples_[attr];
  else
    lost_[attr] += lost_samples;
}

RecordCounts RecordCounter::finish(const record::PerfDataReader& reader,
                                   const Result<void>& read) const {
  RecordCounts c;
  c.by_type = by_type_;
  c.by_type.resize(kTypes);
  c.by_type[raw::PERF_RECORD_COMPRESSED] += reader.stats().compressed_records;
  for (const auto n : c.by_type) c.total += n;
  for (std::size_t t = 0; t < kTypes; ++t)
    c.names.emplace_back(record::record_type_name(static_cast<std::uint32_t>(t)));
  for (std::size_t i = 0; i < reader.attrs().size(); ++i) {
    c.events.push_back({reader.event_name(i), i < samples_.size() ? samples_[i] : 0,
                        i < lost_.size() ? lost_[i] : 0});
  }
  c.damage = describe_damage(reader, read);
  return c;
}

RecordCounts count_records(record::PerfDataReader& reader) {
  RecordCounter counter;
  record::RawRecord raw;
  record::Record decoded;
  while (reader.next(raw)) {
    int attr = -1;
    std::uint64_t lost = 0;
    if (raw.header.type == PERF_RECORD_SAMPLE) {
      if (!reader.decode_sample(raw, &attr)) attr = -1;
    } else if (raw.header.type == PERF_RECORD_LOST_SAMPLES) {
      if (reader.decode(raw, decoded)) {
        if (const auto* l = decoded.get<record::LostSamples>()) {
          attr = decoded.attr_index;
          lost = l->lost;
        }
      }
    }
    counter.add(raw.header.type, attr, lost);
  }
  Result<void> read{};
  if (reader.error()) read = tl::unexpected(*reader.error());
  return counter.finish(reader, read);
}

}  // namespace perfx::profile
