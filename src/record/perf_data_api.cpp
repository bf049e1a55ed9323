// Public perf.data API (include/perfx/perf_data.hpp): thin wrappers over
// record::PerfDataReader.
#include "perfx/perf_data.hpp"

#include "record/perf_data_reader.hpp"

namespace perfx {

namespace {

void fill_events(const record::PerfDataReader& r, PerfDataInfo& info) {
  info.events.clear();
  for (std::size_t i = 0; i < r.attrs().size(); ++i) {
    const auto& e = r.attrs()[i];
    PerfDataEvent ev;
    ev.name = r.event_name(i);
    ev.type = e.attr.type;
    ev.config = e.attr.config;
    ev.sample_type = e.attr.sample_type;
    ev.sample_period = e.attr.sample_period;
    ev.freq = e.attr.freq != 0;
    ev.ids = e.ids;
    info.events.push_back(std::move(ev));
  }
}

PerfDataInfo header_info(const record::PerfDataReader& r) {
  PerfDataInfo info;
  info.pipe = r.is_pipe();
  info.swapped = r.swapped();
  info.file_size = r.file_size();
  info.data_size = r.data_size();
  const auto& f = r.features();
  info.hostname = f.hostname.value_or("");
  info.os_release = f.osrelease.value_or("");
  info.perf_version = f.version.value_or("");
  info.arch = f.arch.value_or("");
  fill_events(r, info);
  return info;
}

Result<PerfDataInfo> walk(record::PerfDataReader& reader,
                          const std::function<void(const PerfDataSample&)>* fn) {
  PerfDataInfo info = header_info(reader);
  record::RawRecord raw;
  std::vector<std::uint64_t> chain;
  while (reader.next(raw)) {
    if (raw.header.type == PERF_RECORD_LOST) {
      auto rec = reader.decode(raw);
      if (rec) {
        if (const auto* l = rec->get<record::Lost>()) info.lost += l->lost;
      }
      continue;
    }
    if (raw.header.type != PERF_RECORD_SAMPLE) continue;
    ++info.samples;
    if (fn == nullptr) continue;
    int index = -1;
    auto s = reader.decode_sample(raw, &index);
    if (!s) continue;
    PerfDataSample out;
    out.event = index < 0 ? 0 : static_cast<std::size_t>(index);
    out.ip = s->ip;
    out.pid = s->pid;
    out.tid = s->tid;
    out.cpu = s->cpu;
    out.time = s->time;
    out.period = s->period;
    out.cpumode = record::cpumode(raw.header.misc);
    chain.assign(s->callchain.begin(), s->callchain.end());
    out.callchain = chain;
    out.raw = s->raw;
    (*fn)(out);
  }
  fill_events(reader, info);  // pipe mode: attrs arrive with the records
  const auto& st = reader.stats();
  info.records = st.records;
  info.malformed = st.malformed_records;
  info.skipped_bytes = st.skipped_bytes;
  if (reader.error() && st.records == 0) return tl::unexpected(*reader.error());
  return info;
}

}  // namespace

Result<PerfDataInfo> read_perf_data_info(const std::string& path, bool count_records) {
  PERFX_TRY(reader, record::PerfDataReader::open(path));
  if (!count_records && !reader.is_pipe()) return header_info(reader);
  return walk(reader, nullptr);
}

Result<PerfDataInfo> for_each_sample(const std::string& path,
                                     const std::function<void(const PerfDataSample&)>& fn) {
  PERFX_TRY(reader, record::PerfDataReader::open(path));
  return walk(reader, &fn);
}

Result<std::string> perf_data_header_text(const std::string& path) {
  PERFX_TRY(reader, record::PerfDataReader::open(path));
  if (reader.is_pipe()) {
    record::RawRecord raw;
    while (reader.next(raw)) {
      if (raw.header.type < raw::PERF_RECORD_HEADER_ATTR &&
          raw.header.type != raw::PERF_RECORD_FINISHED_INIT)
        break;
    }
  }
  return reader.header_text();
}

}  // namespace perfx
