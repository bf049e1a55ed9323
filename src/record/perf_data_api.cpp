// Public perf.data API (include/perfx/perf_data.hpp): thin wrappers over
// record::PerfDataReader.
#include "core/error_format.hpp"
#include "perfx/perf_data.hpp"

#include <fcntl.h>

#include <fmt/format.h>

#include <cerrno>

#include "record/perf_data_info.hpp"
#include "record/perf_data_reader.hpp"
#include "record/perf_data_writer.hpp"

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
    ev.attr = e.attr;
    info.events.push_back(std::move(ev));
  }
}

}  // namespace

PerfDataInfo record::header_info(const record::PerfDataReader& r) {
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

namespace {
using record::header_info;

void fill_counters(const record::PerfDataReader& r, PerfDataInfo& info) {
  const auto& st = r.stats();
  info.records = st.records;
  info.malformed = st.malformed_records;
  info.skipped_bytes = st.skipped_bytes;
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
  fill_counters(reader, info);
  if (reader.error() && info.records == 0) return tl::unexpected(*reader.error());
  return info;
}

}  // namespace

struct PerfDataRecords::Impl {
  explicit Impl(record::PerfDataReader r) : reader(std::move(r)) {}
  record::PerfDataReader reader;
  record::RawRecord raw;
  record::Record rec;
  std::uint64_t samples = 0;
  std::uint64_t lost = 0;
};

PerfDataRecords::PerfDataRecords(std::unique_ptr<Impl> impl) : impl_(std::move(impl)) {}
PerfDataRecords::PerfDataRecords(PerfDataRecords&&) noexcept = default;
PerfDataRecords& PerfDataRecords::operator=(PerfDataRecords&&) noexcept = default;
PerfDataRecords::~PerfDataRecords() = default;

Result<PerfDataRecords> PerfDataRecords::open(const std::string& path) {
  PERFX_TRY(reader, record::PerfDataReader::open(path));
  return PerfDataRecords(std::make_unique<Impl>(std::move(reader)));
}

const record::Record* PerfDataRecords::next() {
  Impl& m = *impl_;
  while (m.reader.next(m.raw)) {
    if (!m.reader.decode(m.raw, m.rec)) continue;  // counted in stats().malformed_records
    if (m.rec.type() == PERF_RECORD_SAMPLE) {
      ++m.samples;
    } else if (const auto* l = m.rec.get<record::Lost>()) {
      m.lost += l->lost;
    }
    return &m.rec;
  }
  m.raw.bytes = {};
  return nullptr;
}

std::span<const std::byte> PerfDataRecords::bytes() const noexcept { return impl_->raw.bytes; }

const Error* PerfDataRecords::error() const noexcept {
  const auto& e = impl_->reader.error();
  return e ? &*e : nullptr;
}

PerfDataInfo PerfDataRecords::info() const {
  PerfDataInfo info = header_info(impl_->reader);
  fill_counters(impl_->reader, info);
  info.samples = impl_->samples;
  info.lost = impl_->lost;
  return info;
}

const raw::EventAttr& PerfDataRecords::attr(std::size_t index) const noexcept {
  return impl_->reader.attrs()[index].attr;
}

bool PerfDataRecords::swapped() const noexcept { return impl_->reader.swapped(); }

struct PerfDataWriter::Impl {
  explicit Impl(record::PerfDataWriter w) : writer(std::move(w)) {}
  record::PerfDataWriter writer;
};

PerfDataWriter::PerfDataWriter(std::unique_ptr<Impl> impl) : impl_(std::move(impl)) {}
PerfDataWriter::PerfDataWriter(PerfDataWriter&&) noexcept = default;
PerfDataWriter& PerfDataWriter::operator=(PerfDataWriter&&) noexcept = default;
PerfDataWriter::~PerfDataWriter() = default;

Result<PerfDataWriter> PerfDataWriter::create(const std::string& path,
                                              std::vector<PerfDataWriterEvent> events,
                                              const PerfDataWriterOptions& options) {
  if (events.empty()) return fail(Errc::kInvalidArgument, "{}: no events to write", path);
  std::vector<record::WriterAttr> attrs;
  for (auto& e : events) attrs.push_back({e.attr, std::move(e.name), std::move(e.ids)});
  record::WriterOptions wo;
  wo.pipe = options.pipe;
  wo.compress_level = options.compress_level;
  // Through the one file-creation helper (perfx/output_file.hpp): an existing file moves
  // to PATH.old as perf does, a symlink is never followed.
  PERFX_TRY(w, record::PerfDataWriter::create(path, std::move(attrs), wo));
  return PerfDataWriter(std::make_unique<Impl>(std::move(w)));
}

Result<void> PerfDataWriter::write_bytes(std::span<const std::byte> records) {
  return impl_->writer.write_bytes(records);
}

Result<void> PerfDataWriter::write(const record::Record& record) {
  return impl_->writer.write(record);
}

Result<void> PerfDataWriter::finalize() { return impl_->writer.finalize(); }

Result<PerfDataInfo> for_each_record(const std::string& path,
                                     const std::function<Result<void>(const record::Record&)>& fn) {
  PERFX_TRY(file, PerfDataRecords::open(path));
  while (const record::Record* rec = file.next()) PERFX_CHECK(fn(*rec));
  PerfDataInfo info = file.info();
  if (file.error() != nullptr && info.records == 0) return tl::unexpected(*file.error());
  return info;
}

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
