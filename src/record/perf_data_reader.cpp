// perf.data reader (file and pipe mode, zstd COMPRESSED records). Layout per
// perf 6.1 tools/perf/util/header.c: perf_file_header { magic, size, attr_size,
// attrs, data, event_types, adds_features[4] }, perf_file_attr { attr, ids },
// feature section table right after the data section.
//
// Memory stays bounded: file mode maps the file read-only and walks it in
// place; pipe mode keeps one chunk (plus one record) in a buffer; decompressed
// data lives in one buffer that is compacted before each COMPRESSED record.
#include "record/perf_data_reader.hpp"

#include <fcntl.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>
#include <zstd.h>

#include <cerrno>
#include <cstring>
#include <ctime>

#include "core/byte_reader.hpp"
#include "core/error_format.hpp"
#include "record/decoder.hpp"

namespace perfx::record {

namespace {

using core::ByteReader;

constexpr std::uint64_t kMagic2 = 0x32454c4946524550ULL;  // "PERFILE2" little endian
constexpr std::uint64_t kFileHeaderSize = 104;
constexpr std::uint64_t kPipeHeaderSize = 16;
constexpr std::size_t kMaxWarnings = 16;

struct Section {
  std::uint64_t offset = 0, size = 0;
};

std::string software_name(std::uint64_t config) {
  static constexpr const char* kNames[] = {
      "cpu-clock",        "task-clock",   "page-faults",  "context-switches",
      "cpu-migrations",   "minor-faults", "major-faults", "alignment-faults",
      "emulation-faults", "dummy",        "bpf-output",   "cgroup-switches"};
  if (config < std::size(kNames)) return kNames[config];
  return fmt::format("software:{:#x}", config);
}

std::string hardware_name(std::uint64_t config) {
  static constexpr const char* kNames[] = {"cycles",
                                           "instructions",
                                           "cache-references",
                                           "cache-misses",
                                           "branches",
                                           "branch-misses",
                                           "bus-cycles",
                                           "stalled-cycles-frontend",
                                           "stalled-cycles-backend",
                                           "ref-cycles"};
  if (config < std::size(kNames)) return kNames[config];
  return fmt::format("hardware:{:#x}", config);
}

}  // namespace

struct PerfDataReader::Impl {
  std::string name;
  ReaderOptions options;
  int fd = -1;
  bool owned = false;
  // File mapping (file mode) or caller memory.
  const std::byte* map = nullptr;
  std::size_t map_size = 0;
  bool mapped = false;
  std::uint64_t released = 0;  // mapped pages before this offset were given back
  std::uint64_t file_size = 0;
  std::time_t mtime = 0;

  bool pipe = false;
  bool swap = false;
  Section data;
  bool unfinished = false;  // the header was never finalized (a killed recorder)
  // End of the data the header vouches for: past it, an unfinished file's records are
  // ones flushed after its last header update (whole records until the kill tore one).
  std::uint64_t header_data_end = 0;
  std::uint64_t feat_offset = 0;
  AttrTable attrs;
  Features features;
  ReadStats stats;
  std::optional<Error> error;

  // Input: either memory [mem_begin, mem_end) of `map` or the fd buffer.
  bool from_fd = false;
  std::uint64_t mem_pos = 0, mem_end = 0;
  std::vector<std::byte> buf;  // fd input buffer
  std::size_t buf_pos = 0;
  std::uint64_t stream_pos = 0;  // offset of buf[buf_pos] in the stream
  bool eof = false;

  // Decompression.
  ZSTD_DStream* dstream = nullptr;
  std::vector<std::byte> dbuf;
  std::size_t dpos = 0;
  std::uint64_t dorigin = 0;  // offset of the COMPRESSED record the data came from

  ~Impl() {
    if (dstream != nullptr) ZSTD_freeDStream(dstream);
    if (mapped && map != nullptr) munmap(const_cast<std::byte*>(map), map_size);
    if (owned && fd >= 0) ::close(fd);
  }

  void count_malformed(const Error& e) {
    if (stats.malformed_records++ == 0) stats.first_malformed = e.message();
  }

  // The data is corrupt from here: the error "<file>: <why>", and `left` bytes skipped.
  bool stop_corrupt(std::uint64_t left, std::string_view why) {
    error = Error(Errc::kMalformedData, fmt::format("{}: {}", name, why));
    stats.skipped_bytes += left;
    return false;
  }

  void warn(std::string w) {
    if (stats.warnings.size() < kMaxWarnings) stats.warnings.push_back(std::move(w));
  }

  // ---------------------------------------------------------------- input
  // Makes n bytes available at the current position; returns them (empty if fewer).
  std::span<const std::byte> peek(std::size_t n) {
    if (!from_fd) {
      if (mem_end - mem_pos < n) return {};
      return {map + mem_pos, n};
    }
    while (buf.size() - buf_pos < n && !eof) {
      if (buf_pos > 0) {
        buf.erase(buf.begin(), buf.begin() + static_cast<std::ptrdiff_t>(buf_pos));
        buf_pos = 0;
      }
      const std::size_t want = std::max(options.pipe_chunk, n - buf.size());
      const std::size_t old = buf.size();
      buf.resize(old + want);
      ssize_t got;
      do {
        got = ::read(fd, buf.data() + old, want);
      } while (got < 0 && errno == EINTR);
      if (got < 0) {
        const int err = errno;
        buf.resize(old);
        error = Error(errc_from_errno(err),
                      fmt::format("{}: read failed at offset {:#x}: {}", name,
                                  stream_pos + buf.size(), std::strerror(err)),
                      err);
        eof = true;
        break;
      }
      buf.resize(old + static_cast<std::size_t>(got));
      if (got == 0) eof = true;
    }
    if (buf.size() - buf_pos < n) return {};
    return {buf.data() + buf_pos, n};
  }
  std::uint64_t position() const { return from_fd ? stream_pos : mem_pos; }
  std::uint64_t available_hint() const {
    return from_fd ? buf.size() - buf_pos : mem_end - mem_pos;
  }
  void advance(std::size_t n) {
    if (from_fd) {
      buf_pos += n;
      stream_pos += n;
    } else {
      mem_pos += n;
    }
  }

  // ---------------------------------------------------------------- header
  Result<void> read_file_header() {
    const std::span<const std::byte> all(map, map_size);
    if (file_size < kPipeHeaderSize) {
      return fail(Errc::kMalformedData, "{}: not a perf.data file ({} bytes, header needs 16)",
                  name, file_size);
    }
    ByteReader r(all.first(16));
    const std::uint64_t magic = r.u64();
    if (magic == kMagic2) {
      swap = false;
    } else if (magic == ByteReader::byteswap(kMagic2)) {
      swap = true;
    } else if (std::memcmp(all.data(), "PERFFILE", 8) == 0) {
      return fail(Errc::kNotSupported, "{}: old perf.data format (PERFFILE v1) is not supported",
                  name);
    } else {
      return fail(Errc::kMalformedData, "{}: bad magic at offset 0x0 (not a perf.data file)", name);
    }
    ByteReader h(all, swap);
    h.skip(8);
    const std::uint64_t hsize = h.u64();
    if (hsize == kPipeHeaderSize) {
      pipe = true;
      mem_pos = kPipeHeaderSize;
      mem_end = file_size;
      return {};
    }
    if (hsize < kFileHeaderSize || file_size < kFileHeaderSize) {
      return fail(Errc::kMalformedData, "{}: file header size {} at offset 0x8 is invalid", name,
                  hsize);
    }
    const std::uint64_t attr_size = h.u64();
    Section attrs_sec{h.u64(), h.u64()};
    data = {h.u64(), h.u64()};
    Section event_types{h.u64(), h.u64()};
    (void)event_types;
    std::uint64_t bitmap[4];
    for (auto& w : bitmap) w = h.u64();

    auto check = [&](const char* what, Section s) -> Result<void> {
      if (s.offset > file_size || s.size > file_size - s.offset) {
        return fail(Errc::kMalformedData,
                    "{}: {} section at offset {:#x} (size {:#x}) extends past end of file "
                    "(size {:#x})",
                    name, what, s.offset, s.size, file_size);
      }
      return {};
    };
    PERFX_CHECK(check("attrs", attrs_sec));
    // An attr_size beyond the attrs section (2^32 and more included) leaves no attr to
    // read: every record of the data would be dropped, so it is an error, not an empty
    // report.
    if (attrs_sec.size != 0 && attr_size > attrs_sec.size) {
      return fail(Errc::kMalformedData,
                  "{}: attr size {} at offset 0x10 is larger than the attrs section ({} bytes "
                  "at offset {:#x}): no event can be read",
                  name, attr_size, attrs_sec.size, attrs_sec.offset);
    }
    const bool no_features = (bitmap[0] | bitmap[1] | bitmap[2] | bitmap[3]) == 0;
    header_data_end =
        data.offset + std::min(data.size, file_size - std::min(data.offset, file_size));
    if (data.size == 0 && data.offset > 0 && data.offset <= file_size) {
      // perf's in-progress header: the recorder died before its first header update.
      data.size = file_size - data.offset;
      unfinished = true;
      warn(
          fmt::format("{}: the data size field is 0: the recording was not properly terminated "
                      "(not finalized: killed?) and may be cut short; reading the {} bytes to "
                      "the end of the file",
                      name, data.size));
      bitmap[0] = bitmap[1] = bitmap[2] = bitmap[3] = 0;
    } else if (no_features && data.offset > 0 && data.offset <= file_size &&
               data.size <= file_size - data.offset) {
      // Every recorder writes feature sections when it finishes (perfx's writer updates
      // the data size at each flush before that): none means the recorder was killed.
      // What it flushed after its last header update runs to the end of the file.
      const std::uint64_t to_end = file_size - data.offset;
      unfinished = true;
      warn(fmt::format(
          "{}: the header was never finalized (no feature sections: the recorder was killed?): "
          "the recording was cut short; reading the {} bytes of data to the end of the file{}",
          name, to_end,
          to_end > data.size ? fmt::format(" ({} past the header's data size)", to_end - data.size)
                             : std::string()));
      data.size = to_end;
    }
    bool truncated = false;
    if (data.offset <= file_size && data.size > file_size - data.offset) {
      // A truncated file (a recording cut short, a partial copy): read the records that
      // are there; the bytes that are not count as skipped, so callers report the damage.
      const std::uint64_t have = file_size - data.offset;
      warn(fmt::format(
          "{}: data section at offset {:#x} (size {:#x}) extends past end of file (size "
          "{:#x}): the file is truncated; reading the {} bytes that are there",
          name, data.offset, data.size, file_size, have));
      stats.skipped_bytes += data.size - have;
      data.size = have;
      truncated = true;
    }
    PERFX_CHECK(check("data", data));

    // Attrs.
    if (attr_size < 16 + PERF_ATTR_SIZE_VER0 && attrs_sec.size != 0) {
      return fail(Errc::kMalformedData, "{}: attr size {} at offset 0x10 is too small", name,
                  attr_size);
    }
    const std::uint64_t nattrs = attrs_sec.size == 0 ? 0 : attrs_sec.size / attr_size;
    if (nattrs != 0 && attrs_sec.size % attr_size != 0) {
      warn(
          fmt::format("{}: the attrs section ({} bytes) is not a multiple of the attr size {}: "
                      "its last {} bytes are ignored",
                      name, attrs_sec.size, attr_size, attrs_sec.size % attr_size));
    }
    for (std::uint64_t i = 0; i < nattrs; ++i) {
      const std::uint64_t at = attrs_sec.offset + i * attr_size;
      auto entry = all.subspan(at, attr_size);
      raw::EventAttr attr = attr_from_bytes(entry.first(attr_size - 16), swap);
      ByteReader ir(entry.subspan(attr_size - 16), swap);
      Section ids{ir.u64(), ir.u64()};
      PERFX_CHECK(check("attr ids", ids));
      std::vector<std::uint64_t> idv;
      U64Array a(all.subspan(ids.offset, ids.size / 8 * 8), swap);
      idv.assign(a.begin(), a.end());
      attrs.add(attr, idv);
    }

    // Feature sections: a table of {offset, size} per set bit, after the data.
    feat_offset = data.offset + data.size;
    std::uint64_t nfeat = 0;
    for (auto w : bitmap) nfeat += static_cast<std::uint64_t>(__builtin_popcountll(w));
    if (nfeat != 0 && truncated) {
      warn(fmt::format("{}: the {} feature sections after the data are missing", name, nfeat));
    } else if (nfeat != 0) {
      Section table{feat_offset, nfeat * 16};
      if (auto c = check("feature table", table); !c) {
        warn(c.error().message());
      } else {
        ByteReader tr(all.subspan(table.offset, table.size), swap);
        for (int bit = 0; bit < kFeatureBits; ++bit) {
          if (!((bitmap[bit / 64] >> (bit % 64)) & 1u)) continue;
          Section s{tr.u64(), tr.u64()};
          if (auto c2 = check(fmt::format("feature '{}'", feature_name(bit)).c_str(), s); !c2) {
            warn(c2.error().message());
            continue;
          }
          auto d = decode_feature(bit, all.subspan(s.offset, s.size), swap, s.offset, features);
          if (!d) warn(d.error().message());
        }
      }
    }
    apply_event_desc();
    mem_pos = data.offset;
    mem_end = data.offset + data.size;
    return {};
  }

  void apply_event_desc() {
    for (std::size_t i = 0; i < features.event_desc.size(); ++i) {
      const auto& d = features.event_desc[i];
      int index = -1;
      for (std::uint64_t id : d.ids) {
        index = attrs.index_of_id(id);
        if (index >= 0) break;
      }
      if (index < 0 && i < attrs.size()) index = static_cast<int>(i);
      if (index >= 0 && !d.name.empty()) attrs.set_name(index, d.name);
    }
  }

  Result<void> read_pipe_header() {
    auto h = peek(kPipeHeaderSize);
    if (h.empty()) {
      if (error) return tl::unexpected(*error);
      return fail(Errc::kMalformedData, "{}: not a perf.data stream (fewer than 16 bytes)", name);
    }
    ByteReader r(h);
    const std::uint64_t magic = r.u64();
    if (magic == kMagic2) {
      swap = false;
    } else if (magic == ByteReader::byteswap(kMagic2)) {
      swap = true;
    } else {
      return fail(Errc::kMalformedData, "{}: bad magic at offset 0x0 (not a perf.data stream)",
                  name);
    }
    ByteReader r2(h, swap);
    r2.skip(8);
    const std::uint64_t size = r2.u64();
    if (size != kPipeHeaderSize) {
      return fail(Errc::kMalformedData,
                  "{}: file-mode perf.data cannot be read from a pipe (header size {}); pass "
                  "the file name instead",
                  name, size);
    }
    pipe = true;
    advance(kPipeHeaderSize);
    return {};
  }

  // ---------------------------------------------------------------- records
  void apply_user_record(const RawRecord& raw) {
    const auto t = raw.header.type;
    if (t != raw::PERF_RECORD_HEADER_ATTR && t != raw::PERF_RECORD_HEADER_FEATURE &&
        t != raw::PERF_RECORD_HEADER_EVENT_TYPE && t != raw::PERF_RECORD_HEADER_BUILD_ID &&
        t != raw::PERF_RECORD_EVENT_UPDATE) {
      return;
    }
    auto rec = decode_record(raw.bytes, AttrTable{}, {.swap = swap, .offset = raw.offset});
    if (!rec) {
      count_malformed(rec.error());
      warn(rec.error().message());
      return;
    }
    if (const auto* u = rec->get<EventUpdate>()) {
      // PERF_EVENT_UPDATE__NAME names events in pipe mode.
      const int index = attrs.index_of_id(u->id);
      if (u->type == static_cast<std::uint64_t>(EventUpdateType::kName) && index >= 0 &&
          !u->text().empty()) {
        attrs.set_name(index, std::string(u->text()));
      }
    } else if (const auto* a = rec->get<HeaderAttr>()) {
      std::vector<std::uint64_t> ids(a->ids.begin(), a->ids.end());
      attrs.add(a->attr, ids);
      apply_event_desc();
    } else if (const auto* f = rec->get<HeaderFeature>()) {
      if (f->feat_id < static_cast<std::uint64_t>(kFeatureBits)) {
        auto d =
            decode_feature(static_cast<int>(f->feat_id), f->data, swap, raw.offset + 16, features);
        if (!d) warn(d.error().message());
        if (f->feat_id == static_cast<std::uint64_t>(Feature::kEventDesc)) apply_event_desc();
      }
    } else if (const auto* b = rec->get<HeaderBuildId>()) {
      // Pipe mode's build-ids (perf inject -b, perf record's pipe output).
      BuildIdEntry e;
      e.pid = b->pid;
      e.misc = raw.header.misc & PERF_RECORD_MISC_CPUMODE_MASK;
      e.build_id.assign(b->build_id.begin(),
                        b->build_id.begin() + std::min<std::size_t>(b->build_id_size, 20));
      e.filename = std::string(b->filename);
      features.build_ids.push_back(std::move(e));
    } else if (const auto* e = rec->get<HeaderEventType>()) {
      for (std::size_t i = 0; i < attrs.size(); ++i) {
        if (attrs[i].attr.config == e->event_id && attrs[i].name.empty()) {
          attrs.set_name(static_cast<int>(i), std::string(e->name));
        }
      }
    }
  }

  bool decompress(std::span<const std::byte> payload, std::uint64_t offset) {
    if (dstream == nullptr) {
      dstream = ZSTD_createDStream();
      if (dstream == nullptr || ZSTD_isError(ZSTD_initDStream(dstream))) {
        error = Error(Errc::kSystem, "zstd: cannot create a decompression stream");
        return false;
      }
    }
    if (dpos > 0) {
      dbuf.erase(dbuf.begin(), dbuf.begin() + static_cast<std::ptrdiff_t>(dpos));
      dpos = 0;
    }
    ZSTD_inBuffer in{payload.data(), payload.size(), 0};
    const std::size_t chunk = ZSTD_DStreamOutSize();
    while (true) {
      const std::size_t old = dbuf.size();
      dbuf.resize(old + chunk);
      ZSTD_outBuffer out{dbuf.data() + old, chunk, 0};
      const std::size_t rc = ZSTD_decompressStream(dstream, &out, &in);
      dbuf.resize(old + out.pos);
      if (ZSTD_isError(rc)) {
        warn(fmt::format("COMPRESSED record at offset {:#x}: zstd: {}", offset,
                         ZSTD_getErrorName(rc)));
        stats.skipped_bytes += payload.size();
        ++stats.malformed_records;
        ZSTD_initDStream(dstream);
        dbuf.clear();
        return true;
      }
      stats.decompressed_bytes += out.pos;
      if (in.pos == in.size && out.pos < chunk) break;
    }
    dorigin = offset;
    ++stats.compressed_records;
    return true;
  }

  bool count(RawRecord& out) {
    ++stats.records;
    stats.bytes += out.header.size;
    if (out.header.type < stats.by_type.size()) ++stats.by_type[out.header.type];
    const bool known = (out.header.type >= 1 && out.header.type < PERF_RECORD_MAX) ||
                       (out.header.type >= raw::PERF_RECORD_HEADER_ATTR &&
                        out.header.type <= raw::PERF_RECORD_FINISHED_INIT);
    if (!known) ++stats.unknown_records;
    if (out.header.type >= raw::PERF_RECORD_HEADER_ATTR) apply_user_record(out);
    return true;
  }

  bool next(RawRecord& out) {
    while (true) {
      // 1. Records from the decompressed buffer.
      if (dpos < dbuf.size()) {
        const std::size_t left = dbuf.size() - dpos;
        auto h = peek_header(std::span(dbuf).subspan(dpos), swap);
        if (h && h->size >= kHeaderSize && h->size <= left) {
          out.header = *h;
          out.offset = dorigin;
          out.from_compressed = true;
          out.bytes = std::span<const std::byte>(dbuf).subspan(dpos, h->size);
          out.tail = {};
          dpos += h->size;
          return count(out);
        }
        if (h && h->size < kHeaderSize) {
          warn(
              fmt::format("corrupt record (size {}) inside the COMPRESSED data at offset {:#x}; "
                          "dropping {} decompressed bytes",
                          h->size, dorigin, left));
          stats.skipped_bytes += left;
          dbuf.clear();
          dpos = 0;
        }
        // else: a record continues in the next COMPRESSED record.
      }
      // 2. Next record of the input.
      const std::uint64_t at = position();
      auto hb = peek(kHeaderSize);
      if (hb.empty()) {
        const std::uint64_t left = from_fd ? buf.size() - buf_pos : mem_end - mem_pos;
        if (left != 0 && !error && cut_short(at, left)) {
          // counted and warned: the torn end of an unfinished recording
        } else if (left != 0 && !error) {
          error = Error(Errc::kMalformedData,
                        fmt::format("{}: truncated record header at offset {:#x} ({} bytes left)",
                                    name, at, left));
          stats.skipped_bytes += left;
        }
        if (dpos < dbuf.size()) {
          warn(fmt::format("{} decompressed bytes at the end form no whole record",
                           dbuf.size() - dpos));
          stats.skipped_bytes += dbuf.size() - dpos;
          dbuf.clear();
          dpos = 0;
        }
        return false;
      }
      auto h = *peek_header(hb, swap);
      // (The torn last record of an unfinished recording is its end, not a corrupt header.)
      const bool torn_end = unfinished && h.size >= kHeaderSize && at >= header_data_end;
      if ((h.size < kHeaderSize || h.size > mem_end - mem_pos) && !from_fd && options.resync &&
          !torn_end && resync(at, h)) {
        continue;
      }
      if (h.size < kHeaderSize) {
        const std::uint64_t left = from_fd ? 0 : mem_end - mem_pos;
        return stop_corrupt(left, fmt::format("corrupt record at offset {:#x}: size {} (type {}) "
                                              "is below 8; {} bytes skipped",
                                              at, h.size, h.type, left));
      }
      auto rec = peek(h.size);
      if (rec.empty()) {
        const std::uint64_t left = available_hint();
        if (cut_short(at, left)) return false;
        return stop_corrupt(left, fmt::format("record at offset {:#x} (type {}, size {}) extends "
                                              "past the end of the data ({} bytes left)",
                                              at, h.type, h.size, left));
      }
      std::uint64_t tail = trailing_payload_size(h, rec, swap);
      std::span<const std::byte> all = rec;
      if (tail != 0) {
        all = peek(h.size + tail);
        if (all.empty()) {
          return stop_corrupt(available_hint(),
                              fmt::format("{} record at offset {:#x}: its {} payload bytes "
                                          "extend past the end of the data",
                                          record_type_name(h.type), at, tail));
        }
      }
      advance(h.size + tail);
      if (h.type == raw::PERF_RECORD_COMPRESSED) {
        if (!decompress(all.subspan(kHeaderSize, h.size - kHeaderSize), at)) return false;
        continue;
      }
      out.header = h;
      out.offset = at;
      out.from_compressed = false;
      out.bytes = all.first(h.size);
      out.tail = all.subspan(h.size);
      return count(out);
    }
  }

  // The last record of an unfinished recording (file mode) torn by the kill: the end of
  // the data, not damage in it. Counted in cut_short_bytes and warned; false otherwise.
  bool cut_short(std::uint64_t at, std::uint64_t left) {
    if (!unfinished || from_fd || mem_end != file_size || at < header_data_end) return false;
    stats.cut_short_bytes += left;
    warn(
        fmt::format("{}: the last {} bytes (from offset {:#x}) are a record cut short by the "
                    "end of the unfinished recording; ignored",
                    name, left, at));
    mem_pos = mem_end;
    return true;
  }

  // A header is plausible when its type is one we know, its size fits, and (kernel
  // records) is a multiple of 8.
  bool plausible(std::uint64_t pos) const {
    if (mem_end - pos < kHeaderSize) return false;
    auto h = peek_header(std::span<const std::byte>(map + pos, kHeaderSize), swap);
    const bool kernel = h->type >= 1 && h->type < PERF_RECORD_MAX;
    const bool user =
        h->type >= raw::PERF_RECORD_HEADER_ATTR && h->type <= raw::PERF_RECORD_FINISHED_INIT;
    if (!kernel && !user) return false;
    if (h->size < kHeaderSize || h->size > mem_end - pos) return false;
    return !kernel || h->size % 8 == 0;
  }

  // File mode, corrupt header at `at`: look for the next 8-aligned position where two
  // consecutive headers are plausible (or one that ends exactly at the end of the
  // data), skip to it and count the bytes in between. perf.data has no sync marker,
  // so this is a heuristic; it never goes backwards and never loops.
  bool resync(std::uint64_t at, const Header& bad) {
    for (std::uint64_t p = at + 8; p + kHeaderSize <= mem_end; p += 8) {
      if (!plausible(p)) continue;
      auto h = peek_header(std::span<const std::byte>(map + p, kHeaderSize), swap);
      const std::uint64_t next = p + h->size;
      if (next != mem_end && !plausible(next)) continue;
      ++stats.malformed_records;
      stats.skipped_bytes += p - at;
      warn(
          fmt::format("{}: corrupt record at offset {:#x} (type {}, size {}); skipped {} bytes "
                      "to the next plausible record at offset {:#x}",
                      name, at, bad.type, bad.size, p - at, p));
      mem_pos = p;
      return true;
    }
    return false;
  }

  std::string event_name(std::size_t i) const {
    if (i >= attrs.size()) return {};
    const auto& e = attrs[i];
    if (!e.name.empty()) return e.name;
    switch (e.attr.type) {
      case PERF_TYPE_SOFTWARE:
        return software_name(e.attr.config);
      case PERF_TYPE_HARDWARE:
        return hardware_name(e.attr.config);
      case PERF_TYPE_TRACEPOINT:
        return fmt::format("tracepoint:{}", e.attr.config);
      case PERF_TYPE_BREAKPOINT:
        return fmt::format("mem:{:#x}", e.attr.bp_addr);
      default:
        return fmt::format("raw {:#x}:{:#x}", e.attr.type, e.attr.config);
    }
  }
};

PerfDataReader::PerfDataReader(std::unique_ptr<Impl> impl) : impl_(std::move(impl)) {}
PerfDataReader::PerfDataReader(PerfDataReader&&) noexcept = default;
PerfDataReader& PerfDataReader::operator=(PerfDataReader&&) noexcept = default;
PerfDataReader::~PerfDataReader() = default;

Result<PerfDataReader> PerfDataReader::open(const std::string& path, const ReaderOptions& options) {
  if (path == "-") return open_fd(STDIN_FILENO, false, "<stdin>", options);
  const int fd = ::open(path.c_str(), O_RDONLY | O_CLOEXEC);
  if (fd < 0) return fail_errno(errno, fmt::format("opening '{}'", path));
  return open_fd(fd, true, path, options);
}

Result<PerfDataReader> PerfDataReader::open_fd(int fd, bool owned, std::string name,
                                               const ReaderOptions& options) {
  auto impl = std::make_unique<Impl>();
  impl->fd = fd;
  impl->owned = owned;
  impl->name = std::move(name);
  impl->options = options;
  if (impl->options.pipe_chunk == 0) impl->options.pipe_chunk = 1 << 20;
  struct stat st {};
  if (::fstat(fd, &st) != 0) return fail_errno(errno, fmt::format("stat '{}'", impl->name));
  impl->mtime = st.st_mtime;
  if (S_ISDIR(st.st_mode)) {
    return fail(Errc::kNotSupported,
                "{}: is a directory; perf's directory format (perf record --threads) is not "
                "supported",
                impl->name);
  }
  if (S_ISREG(st.st_mode) && st.st_size > 0) {
    impl->file_size = static_cast<std::uint64_t>(st.st_size);
    void* p = ::mmap(nullptr, impl->file_size, PROT_READ, MAP_PRIVATE, fd, 0);
    if (p == MAP_FAILED) return fail_errno(errno, fmt::format("mapping '{}'", impl->name));
    (void)::madvise(p, impl->file_size, MADV_SEQUENTIAL);
    impl->map = static_cast<const std::byte*>(p);
    impl->map_size = impl->file_size;
    impl->mapped = true;
    PERFX_CHECK(impl->read_file_header());
  } else if (S_ISREG(st.st_mode)) {
    return fail(Errc::kMalformedData, "{}: empty file (0 bytes), not a perf.data file", impl->name);
  } else {
    impl->from_fd = true;
    PERFX_CHECK(impl->read_pipe_header());
  }
  return PerfDataReader(std::move(impl));
}

Result<PerfDataReader> PerfDataReader::from_memory(std::span<const std::byte> bytes,
                                                   std::string name, const ReaderOptions& options) {
  auto impl = std::make_unique<Impl>();
  impl->name = std::move(name);
  impl->options = options;
  impl->map = bytes.data();
  impl->map_size = bytes.size();
  impl->file_size = bytes.size();
  PERFX_CHECK(impl->read_file_header());
  return PerfDataReader(std::move(impl));
}

bool PerfDataReader::next(RawRecord& out) { return impl_->next(out); }
const std::optional<Error>& PerfDataReader::error() const noexcept { return impl_->error; }

Result<void> PerfDataReader::decode(const RawRecord& raw, Record& out) {
  std::span<const std::byte> bytes = raw.bytes;
  if (!raw.tail.empty() && raw.tail.data() == raw.bytes.data() + raw.bytes.size()) {
    bytes = std::span<const std::byte>(raw.bytes.data(), raw.bytes.size() + raw.tail.size());
  }
  auto r = decode_record(bytes, impl_->attrs, {.swap = impl_->swap, .offset = raw.offset}, out);
  if (!r) impl_->count_malformed(r.error());
  return r;
}

Result<Record> PerfDataReader::decode(const RawRecord& raw) {
  Record rec;
  auto ok = decode(raw, rec);
  if (!ok) return tl::unexpected(std::move(ok).error());
  return rec;
}

Result<Sample> PerfDataReader::decode_sample(const RawRecord& raw, int* attr_index) {
  const int index = impl_->attrs.index_of_record(raw.bytes, impl_->swap);
  if (attr_index != nullptr) *attr_index = index;
  if (index < 0) {
    Error e(Errc::kMalformedData,
            fmt::format("{}: SAMPLE at offset {:#x} matches no attr of the file", impl_->name,
                        raw.offset));
    impl_->count_malformed(e);
    return tl::unexpected(std::move(e));
  }
  auto r = record::decode_sample(raw.bytes, impl_->attrs[static_cast<std::size_t>(index)].layout,
                                 {.swap = impl_->swap, .offset = raw.offset});
  if (!r) impl_->count_malformed(r.error());
  return r;
}

const AttrTable& PerfDataReader::attrs() const noexcept { return impl_->attrs; }
const Features& PerfDataReader::features() const noexcept { return impl_->features; }
const ReadStats& PerfDataReader::stats() const noexcept { return impl_->stats; }
std::string PerfDataReader::event_name(std::size_t attr_index) const {
  return impl_->event_name(attr_index);
}
bool PerfDataReader::is_pipe() const noexcept { return impl_->pipe; }
bool PerfDataReader::unfinished() const noexcept { return impl_->unfinished; }

Result<void> PerfDataReader::read_to_end() {
  if (!impl_->pipe) return {};
  RawRecord raw;
  while (impl_->next(raw)) {
  }
  if (impl_->error) return tl::unexpected(*impl_->error);
  return {};
}
bool PerfDataReader::swapped() const noexcept { return impl_->swap; }
const std::string& PerfDataReader::name() const noexcept { return impl_->name; }
std::uint64_t PerfDataReader::file_size() const noexcept { return impl_->file_size; }
std::uint64_t PerfDataReader::data_offset() const noexcept { return impl_->data.offset; }
std::uint64_t PerfDataReader::data_size() const noexcept { return impl_->data.size; }
std::uint64_t PerfDataReader::position() const noexcept { return impl_->position(); }

void PerfDataReader::release_before(std::uint64_t offset) noexcept {
  auto& d = *impl_;
  // In steps of 8 MiB: each madvise is a system call and a TLB flush.
  constexpr std::uint64_t kStep = 8u << 20;
  if (!d.mapped || offset > d.map_size || offset < d.released + kStep) return;
  const std::uint64_t end = offset & ~std::uint64_t{kStep - 1};
  // A private read-only file mapping: dropped pages re-fault from the page cache.
  (void)::madvise(const_cast<std::byte*>(d.map) + d.released, end - d.released, MADV_DONTNEED);
  d.released = end;
}

std::string PerfDataReader::header_text() const {
  HeaderDumpInfo info;
  info.pipe = impl_->pipe;
  if (impl_->mtime != 0) {
    char buf[64];
    std::tm tm{};
    localtime_r(&impl_->mtime, &tm);
    std::strftime(buf, sizeof buf, "%a %b %e %H:%M:%S %Y", &tm);
    info.captured_on = buf;
  }
  if (!impl_->pipe) {
    info.data_offset = impl_->data.offset;
    info.data_size = impl_->data.size;
    info.feat_offset = impl_->feat_offset;
  }
  return format_header(impl_->features, impl_->attrs.entries(), info);
}

}  // namespace perfx::record
