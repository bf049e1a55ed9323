// perf.data writer: file mode (header + ids + attrs + data + features, header
// rewritten at finalize), pipe mode (HEADER_ATTR / HEADER_FEATURE inline) and
// zstd compression into PERF_RECORD_COMPRESSED records like perf 6.1's
// record__pushfn -> zstd_compress_stream_to_records.
#include "record/perf_data_writer.hpp"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>
#include <zstd.h>

#include <cerrno>
#include <cstring>

#include "core/byte_reader.hpp"
#include "core/error_format.hpp"
#include "core/fd_io.hpp"
#include "perfx/output_file.hpp"
#include "record/decoder.hpp"
#include "record/encoder.hpp"

namespace perfx::record {

namespace {

constexpr std::uint64_t kMagic2 = 0x32454c4946524550ULL;  // "PERFILE2"
constexpr std::uint64_t kFileHeaderSize = 104;
constexpr std::uint64_t kFileAttrSize = raw::kAttrSizeVer7 + 16;  // perf_file_attr
// perf's HEADER_LAST_FEATURE: the pipe-mode "end of features" marker.
constexpr std::uint64_t kHeaderLastFeature = 32;
// Payload limit of one COMPRESSED record (u16 size, header included).
constexpr std::size_t kMaxCompressedPayload = 0xffff - kHeaderSize - 7;

void put64(std::vector<std::byte>& v, std::uint64_t x) {
  const auto* b = reinterpret_cast<const std::byte*>(&x);
  v.insert(v.end(), b, b + 8);
}

}  // namespace

struct PerfDataWriter::Impl {
  std::string name;
  int fd = -1;
  bool owned = false;
  WriterOptions options;
  bool pipe = false;
  bool finalized = false;
  bool failed = false;
  AttrTable attrs;
  std::vector<WriterAttr> wattrs;
  Features features;
  bool features_set = false;
  bool pipe_features_sent = false;
  WriterStats stats;

  std::uint64_t pos = 0;  // file offset of the end of what went to the kernel + wbuf
  std::uint64_t data_offset = 0;
  std::vector<std::byte> wbuf;
  std::vector<std::byte> scratch;
  std::vector<std::byte> encode_buf;

  // Compression.
  ZSTD_CCtx* cctx = nullptr;
  std::vector<std::byte> cbuf;  // uncompressed records waiting to be compressed
  std::vector<std::byte> cout;  // one compressed record payload

  std::uint64_t first_time = UINT64_MAX, last_time = 0;

  ~Impl() {
    if (cctx != nullptr) ZSTD_freeCCtx(cctx);
    if (owned && fd >= 0) ::close(fd);
  }

  // Writes n bytes; `done` counts the bytes that reached the file, even on failure.
  Result<void> write_all(const std::byte* p, std::size_t n, std::size_t& done) {
    if (core::write_fully(fd, p, n, &done)) return {};
    failed = true;
    return fail_errno(errno, fmt::format("writing '{}'", name));
  }
  Result<void> write_all(const std::byte* p, std::size_t n) {
    std::size_t done = 0;
    return write_all(p, n, done);
  }
  // A write failed part-way (disk full): keep the whole records of wbuf that reached the
  // file, cut the torn one off and make the header's data.size cover exactly those, so
  // the file holds everything recorded up to the fault. Needs no new disk space.
  void salvage_after_failed_flush(std::size_t written) {
    std::size_t keep = 0;
    while (keep + 8 <= written) {
      std::uint16_t size = 0;
      std::memcpy(&size, wbuf.data() + keep + 6, 2);
      if (size < 8 || keep + size > written) break;
      keep += size;
    }
    const std::uint64_t end = pos - wbuf.size() + keep;
    pos = end;
    if (::ftruncate(fd, static_cast<off_t>(end)) != 0) return;  // best effort
    const std::uint64_t size = end - data_offset;
    (void)::pwrite(fd, &size, 8, 48);
  }
  Result<void> flush() {
    if (wbuf.empty()) return {};
    std::size_t written = 0;
    auto r = write_all(wbuf.data(), wbuf.size(), written);
    if (!r && !pipe && data_offset != 0 && !finalized) salvage_after_failed_flush(written);
    wbuf.clear();
    if (r && !pipe && data_offset != 0 && !finalized) {
      // Crash safety: after every flush the header's data.size covers the whole
      // records written so far, so a recording killed before finalize() is still a
      // valid file (without feature sections) for perf and perfx.
      const std::uint64_t size = pos - data_offset;
      if (::pwrite(fd, &size, 8, 48) != 8) {
        failed = true;
        return fail_errno(errno, fmt::format("updating the header of '{}'", name));
      }
    }
    return r;
  }
  Result<void> emit(std::span<const std::byte> bytes) {
    wbuf.insert(wbuf.end(), bytes.begin(), bytes.end());
    pos += bytes.size();
    if (wbuf.size() >= options.buffer_size) return flush();
    return {};
  }
  Result<void> emit_record(const Record& r) {
    scratch.clear();
    PERFX_CHECK(encode_record(r, SampleLayout{}, scratch));
    return emit(scratch);
  }

  Result<void> begin() {
    for (auto& a : wattrs) {
      attrs.add(a.attr, a.ids, a.name);
    }
    if (pipe) {
      std::vector<std::byte> h;
      put64(h, kMagic2);
      put64(h, 16);
      PERFX_CHECK(emit(h));
      for (const auto& a : wattrs) {
        Record r;
        r.header.type = raw::PERF_RECORD_HEADER_ATTR;
        HeaderAttr ha;
        ha.attr = a.attr;
        ha.ids = U64Array::of(a.ids);
        r.body = ha;
        PERFX_CHECK(emit_record(r));
      }
      return flush();
    }
    // File mode: placeholder header, ids, attrs; the data follows.
    std::vector<std::byte> out(kFileHeaderSize, std::byte{0});
    std::vector<std::uint64_t> id_offsets;
    for (const auto& a : wattrs) {
      id_offsets.push_back(out.size());
      for (std::uint64_t id : a.ids) put64(out, id);
    }
    const std::uint64_t attrs_offset = out.size();
    for (std::size_t i = 0; i < wattrs.size(); ++i) {
      raw::EventAttr a = wattrs[i].attr;
      a.size = raw::kAttrSizeVer7;
      const auto* b = reinterpret_cast<const std::byte*>(&a);
      out.insert(out.end(), b, b + raw::kAttrSizeVer7);
      put64(out, id_offsets[i]);
      put64(out, wattrs[i].ids.size() * 8);
    }
    data_offset = out.size();
    attrs_offset_ = attrs_offset;
    write_header(out, 0, {});
    PERFX_CHECK(emit(out));
    return flush();
  }
  std::uint64_t attrs_offset_ = 0;

  void write_header(std::vector<std::byte>& out, std::uint64_t data_size,
                    const std::array<std::uint64_t, 4>& bitmap) {
    std::vector<std::byte> h;
    put64(h, kMagic2);
    put64(h, kFileHeaderSize);
    put64(h, kFileAttrSize);
    put64(h, attrs_offset_);
    put64(h, wattrs.size() * kFileAttrSize);
    put64(h, data_offset);
    put64(h, data_size);
    put64(h, 0);
    put64(h, 0);
    for (auto w : bitmap) put64(h, w);
    std::memcpy(out.data(), h.data(), kFileHeaderSize);
  }

  void track(std::span<const std::byte> rec) {
    ++stats.records;
    core::ByteReader r(rec);
    if (r.u32() != PERF_RECORD_SAMPLE) return;
    ++stats.samples;
    if (!options.track_sample_time) return;
    const int idx = attrs.index_of_record(rec, false);
    if (idx < 0) return;
    const auto& l = attrs[static_cast<std::size_t>(idx)].layout;
    if (l.time_offset < 0 || static_cast<std::size_t>(l.time_offset) + 8 > rec.size()) return;
    std::uint64_t t;
    std::memcpy(&t, rec.data() + l.time_offset, 8);
    first_time = std::min(first_time, t);
    last_time = std::max(last_time, t);
  }

  Result<void> ensure_pipe_compression_feature() {
    if (!pipe || pipe_features_sent || options.compress_level == 0) return {};
    Features f;
    f.compressed = compressed_info();
    return send_pipe_features(f);
  }

  CompressedInfo compressed_info() const {
    CompressedInfo c;
    c.version = 0;
    c.type = 1;
    c.level = static_cast<std::uint32_t>(options.compress_level);
    c.mmap_len = options.compress_mmap_len;
    c.ratio = stats.compressed_bytes == 0
                  ? 0
                  : static_cast<std::uint32_t>(stats.data_bytes / stats.compressed_bytes);
    return c;
  }

  Result<void> compress_pending() {
    if (cbuf.empty()) return {};
    if (cctx == nullptr) {
      cctx = ZSTD_createCCtx();
      if (cctx == nullptr) return fail(Errc::kSystem, "zstd: cannot create a compression context");
      ZSTD_CCtx_setParameter(cctx, ZSTD_c_compressionLevel, options.compress_level);
    }
    ZSTD_inBuffer in{cbuf.data(), cbuf.size(), 0};
    cout.resize(kMaxCompressedPayload + kHeaderSize);
    while (true) {
      ZSTD_outBuffer out{cout.data() + kHeaderSize, kMaxCompressedPayload, 0};
      const std::size_t rc = ZSTD_compressStream2(cctx, &out, &in, ZSTD_e_end);
      if (ZSTD_isError(rc)) {
        return fail(Errc::kSystem, "zstd compression failed: {}", ZSTD_getErrorName(rc));
      }
      if (out.pos > 0) {
        const std::uint32_t type = raw::PERF_RECORD_COMPRESSED;
        const std::uint16_t misc = 0;
        const auto size = static_cast<std::uint16_t>(kHeaderSize + out.pos);
        std::memcpy(cout.data(), &type, 4);
        std::memcpy(cout.data() + 4, &misc, 2);
        std::memcpy(cout.data() + 6, &size, 2);
        PERFX_CHECK(emit(std::span<const std::byte>(cout.data(), size)));
        stats.compressed_bytes += size;
      }
      if (rc == 0) break;
    }
    cbuf.clear();
    return {};
  }

  Result<void> append(std::span<const std::byte> records) {
    if (finalized) return fail(Errc::kInvalidArgument, "{}: write after finalize()", name);
    if (failed) return fail(Errc::kIo, "{}: an earlier write failed", name);
    // Validate headers first: all or nothing.
    std::size_t off = 0;
    while (off < records.size()) {
      auto h = peek_header(records.subspan(off));
      if (!h || h->size < kHeaderSize || h->size > records.size() - off) {
        return fail(Errc::kInvalidArgument,
                    "{}: malformed record at byte {} of the buffer (size {})", name, off,
                    h ? h->size : 0);
      }
      track(records.subspan(off, h->size));
      off += h->size;
    }
    stats.data_bytes += records.size();
    if (options.compress_level == 0) return emit(records);
    PERFX_CHECK(ensure_pipe_compression_feature());
    off = 0;
    while (off < records.size()) {
      auto h = peek_header(records.subspan(off));
      if (cbuf.size() + h->size > options.compress_mmap_len) PERFX_CHECK(compress_pending());
      cbuf.insert(cbuf.end(), records.begin() + static_cast<std::ptrdiff_t>(off),
                  records.begin() + static_cast<std::ptrdiff_t>(off + h->size));
      off += h->size;
    }
    return {};
  }

  Result<void> send_pipe_features(const Features& given) {
    // As perf's pipe mode: the feature sections as HEADER_FEATURE records (EVENT_DESC names
    // the events), the end marker, then the tracepoint formats as a HEADER_TRACING_DATA
    // record followed by the raw data padded to 8 bytes (perf rejects them as a feature).
    Features f = given;
    fill_event_desc(f);
    for (int bit = 1; bit < static_cast<int>(kHeaderLastFeature); ++bit) {
      if (bit == static_cast<int>(Feature::kTracingData)) continue;
      auto sec = encode_feature(bit, f);
      if (!sec) continue;
      if (sec->size() + 16 > 0xffff) continue;  // does not fit a record; perf skips too
      Record r;
      r.header.type = raw::PERF_RECORD_HEADER_FEATURE;
      HeaderFeature hf;
      hf.feat_id = static_cast<std::uint64_t>(bit);
      hf.data = *sec;
      r.body = hf;
      PERFX_CHECK(emit_record(r));
    }
    Record end;
    end.header.type = raw::PERF_RECORD_HEADER_FEATURE;
    end.body = HeaderFeature{kHeaderLastFeature, {}};
    PERFX_CHECK(emit_record(end));
    if (!f.tracing_data.empty() && f.tracing_data.size() <= UINT32_MAX - 8) {
      const std::size_t padded = (f.tracing_data.size() + 7) & ~std::size_t{7};
      Record td;
      td.header.type = raw::PERF_RECORD_HEADER_TRACING_DATA;
      td.body = HeaderTracingData{static_cast<std::uint32_t>(padded), {}};
      PERFX_CHECK(emit_record(td));
      PERFX_CHECK(emit(f.tracing_data));
      const std::byte zeros[8]{};
      PERFX_CHECK(emit(std::span<const std::byte>(zeros, padded - f.tracing_data.size())));
    }
    pipe_features_sent = true;
    return flush();
  }

  // EVENT_DESC names the events (perf report shows them); the writer's attrs unless the
  // caller gave its own.
  void fill_event_desc(Features& f) const {
    if (!f.event_desc.empty()) return;
    for (const auto& a : wattrs) f.event_desc.push_back(EventDesc{a.attr, a.name, a.ids});
  }

  Features file_features() const {
    Features f = features;
    fill_event_desc(f);
    if (!f.sample_time && options.track_sample_time && first_time <= last_time) {
      f.sample_time = SampleTime{first_time, last_time};
    }
    if (options.compress_level > 0) f.compressed = compressed_info();
    return f;
  }

  Result<void> finalize() {
    if (finalized) return {};
    if (options.compress_level > 0) PERFX_CHECK(compress_pending());
    if (pipe) {
      if (!pipe_features_sent && features_set) PERFX_CHECK(send_pipe_features(features));
      PERFX_CHECK(flush());
      finalized = true;
      return {};
    }
    const std::uint64_t data_size = pos - data_offset;
    const Features f = file_features();
    std::vector<std::vector<std::byte>> sections;
    std::array<std::uint64_t, 4> bitmap{};
    std::vector<int> bits;
    for (int bit = 1; bit < static_cast<int>(kHeaderLastFeature); ++bit) {
      auto sec = encode_feature(bit, f);
      if (!sec) continue;
      bitmap[static_cast<std::size_t>(bit / 64)] |= std::uint64_t{1} << (bit % 64);
      sections.push_back(std::move(*sec));
      bits.push_back(bit);
    }
    std::vector<std::byte> out;
    std::uint64_t at = pos + sections.size() * 16;
    for (const auto& s : sections) {
      put64(out, at);
      put64(out, s.size());
      at += s.size();
    }
    for (const auto& s : sections) out.insert(out.end(), s.begin(), s.end());
    PERFX_CHECK(emit(out));
    PERFX_CHECK(flush());
    std::vector<std::byte> header(kFileHeaderSize);
    write_header(header, data_size, bitmap);
    std::size_t done = 0;
    while (done < header.size()) {
      const ssize_t w =
          ::pwrite(fd, header.data() + done, header.size() - done, static_cast<off_t>(done));
      if (w < 0) {
        if (errno == EINTR) continue;
        return fail_errno(errno, fmt::format("writing the header of '{}'", name));
      }
      done += static_cast<std::size_t>(w);
    }
    finalized = true;
    return {};
  }
};

PerfDataWriter::PerfDataWriter(std::unique_ptr<Impl> impl) : impl_(std::move(impl)) {}
PerfDataWriter::PerfDataWriter(PerfDataWriter&&) noexcept = default;
PerfDataWriter& PerfDataWriter::operator=(PerfDataWriter&&) noexcept = default;
PerfDataWriter::~PerfDataWriter() {
  if (impl_ && !impl_->finalized) (void)impl_->flush();
}

Result<PerfDataWriter> PerfDataWriter::create(const std::string& path,
                                              std::vector<WriterAttr> attrs,
                                              const WriterOptions& options) {
  if (path == "-") {
    WriterOptions o = options;
    o.pipe = true;
    return create_fd(STDOUT_FILENO, false, "<stdout>", std::move(attrs), o);
  }
  PERFX_TRY(file, OutputFile::create(path, CreateMode::kNewKeepOld, 0600));
  return create_fd(file.release(), true, path, std::move(attrs), options);
}

Result<PerfDataWriter> PerfDataWriter::create_fd(int fd, bool owned, std::string name,
                                                 std::vector<WriterAttr> attrs,
                                                 const WriterOptions& options) {
  auto impl = std::make_unique<Impl>();
  impl->fd = fd;
  impl->owned = owned;
  impl->name = std::move(name);
  impl->options = options;
  if (impl->options.buffer_size == 0) impl->options.buffer_size = 1 << 20;
  if (attrs.empty()) return fail(Errc::kInvalidArgument, "{}: no events to write", impl->name);
  if (options.compress_level < 0 || options.compress_level > ZSTD_maxCLevel()) {
    return fail(Errc::kInvalidArgument, "compression level {} is outside 0..{}",
                options.compress_level, ZSTD_maxCLevel());
  }
  if (options.compress_mmap_len < 4096) {
    return fail(Errc::kInvalidArgument, "compress_mmap_len {} is below 4096",
                options.compress_mmap_len);
  }
  struct stat st {};
  if (::fstat(fd, &st) == 0 && (S_ISFIFO(st.st_mode) || S_ISSOCK(st.st_mode))) {
    impl->options.pipe = true;
  }
  impl->pipe = impl->options.pipe;
  impl->wattrs = std::move(attrs);
  for (auto& a : impl->wattrs) {
    if (a.attr.size == 0) a.attr.size = raw::kAttrSizeVer7;
  }
  PERFX_CHECK(impl->begin());
  return PerfDataWriter(std::move(impl));
}

Result<void> PerfDataWriter::write_bytes(std::span<const std::byte> records) {
  return impl_->append(records);
}

Result<void> PerfDataWriter::write(const Record& record) {
  const std::size_t idx = record.attr_index < 0 ? 0 : static_cast<std::size_t>(record.attr_index);
  if (idx >= impl_->attrs.size()) {
    return fail(Errc::kInvalidArgument, "record for attr {} but only {} attrs", idx,
                impl_->attrs.size());
  }
  auto& buf = impl_->encode_buf;  // reused: no allocation per record once warm
  buf.clear();
  PERFX_CHECK(encode_record(record, impl_->attrs[idx].layout, buf));
  return impl_->append(buf);
}

Result<void> PerfDataWriter::finish_round() {
  const std::byte rec[8] = {std::byte{raw::PERF_RECORD_FINISHED_ROUND},
                            std::byte{0},
                            std::byte{0},
                            std::byte{0},
                            std::byte{0},
                            std::byte{0},
                            std::byte{8},
                            std::byte{0}};
  return impl_->append(rec);
}

Result<void> PerfDataWriter::set_features(const Features& features) {
  impl_->features = features;
  impl_->features_set = true;
  if (impl_->pipe && !impl_->pipe_features_sent) {
    Features f = features;
    if (impl_->options.compress_level > 0) f.compressed = impl_->compressed_info();
    return impl_->send_pipe_features(f);
  }
  return {};
}

Result<void> PerfDataWriter::flush() {
  if (impl_->finalized) return {};
  if (impl_->failed) return fail(Errc::kIo, "{}: an earlier write failed", impl_->name);
  if (impl_->options.compress_level > 0) {
    PERFX_CHECK(impl_->ensure_pipe_compression_feature());
    PERFX_CHECK(impl_->compress_pending());
  }
  return impl_->flush();
}

Result<void> PerfDataWriter::finalize() { return impl_->finalize(); }
const AttrTable& PerfDataWriter::attrs() const noexcept { return impl_->attrs; }
const WriterStats& PerfDataWriter::stats() const noexcept { return impl_->stats; }
bool PerfDataWriter::is_pipe() const noexcept { return impl_->pipe; }

}  // namespace perfx::record
