// The record decoder: one function per record type, all over core::ByteReader
// (bounds-checked, sticky failure). Every decode must consume exactly
// header.size bytes; a leftover or a short read is malformed data.
#include "record/decoder.hpp"

#include <cstring>

#include "core/byte_reader.hpp"
#include "core/error_format.hpp"
#include "record/read_format.hpp"

namespace perfx::record {

namespace {

using core::ByteReader;

// perf's PERF_RECORD_MISC_BUILD_ID_SIZE (tools/perf/util/event.h): the size
// byte of a HEADER_BUILD_ID entry is valid.
constexpr std::uint16_t kMiscBuildIdSize = 1u << 15;

tl::unexpected<Error> malformed(std::uint64_t offset, std::uint32_t type, std::string_view why) {
  return fail(Errc::kMalformedData, "malformed {} record at offset {:#x}: {}",
              record_type_name(type), offset, why);
}

ReadValues decode_read_values(ByteReader& r, std::uint64_t read_format) {
  ReadValues v;
  v.read_format = read_format;
  v.swap = r.swapped();
  if (read_format & PERF_FORMAT_GROUP) {
    v.nr = r.u64();
    if (read_format & PERF_FORMAT_TOTAL_TIME_ENABLED) v.time_enabled = r.u64();
    if (read_format & PERF_FORMAT_TOTAL_TIME_RUNNING) v.time_running = r.u64();
    v.entries = r.take_array(v.nr, v.entry_size());
    if (!r.ok()) v.nr = 0;
  } else {
    v.nr = 1;
    v.single.value = r.u64();
    if (read_format & PERF_FORMAT_TOTAL_TIME_ENABLED) v.time_enabled = r.u64();
    if (read_format & PERF_FORMAT_TOTAL_TIME_RUNNING) v.time_running = r.u64();
    if (read_format & PERF_FORMAT_ID) v.single.id = r.u64();
    if (read_format & PERF_FORMAT_LOST) v.single.lost = r.u64();
  }
  return v;
}

Regs decode_regs(ByteReader& r, std::uint64_t mask, std::uint32_t count) {
  Regs regs;
  regs.mask = mask;
  regs.abi = r.u64();
  if (regs.abi != PERF_SAMPLE_REGS_ABI_NONE) {
    regs.regs = U64Array(r.take_array(count, 8), r.swapped());
  }
  return regs;
}

std::string_view read_string(ByteReader& r) {
  // The string fills the rest of the body (NUL-terminated, zero padded to 8).
  return r.cstring_in(r.remaining());
}

// Fills `s` (default-constructed) in place: a Sample is a few hundred bytes and this runs
// once per sample, so it is never copied on the way to the caller's Record.
Result<void> sample_body(std::span<const std::byte> rec, std::uint16_t size, const SampleLayout& l,
                         const DecodeOptions& o, Sample& s) {
  ByteReader r(rec.subspan(kHeaderSize, size - kHeaderSize), o.swap);
  const std::uint64_t st = l.sample_type;
  s.sample_type = st;
  if (st & PERF_SAMPLE_IDENTIFIER) s.identifier = r.u64();
  if (st & PERF_SAMPLE_IP) s.ip = r.u64();
  if (st & PERF_SAMPLE_TID) {
    s.pid = r.u32();
    s.tid = r.u32();
  }
  if (st & PERF_SAMPLE_TIME) s.time = r.u64();
  if (st & PERF_SAMPLE_ADDR) s.addr = r.u64();
  if (st & PERF_SAMPLE_ID) s.id = r.u64();
  if (st & PERF_SAMPLE_STREAM_ID) s.stream_id = r.u64();
  if (st & PERF_SAMPLE_CPU) {
    s.cpu = r.u32();
    s.cpu_res = r.u32();
  }
  if (st & PERF_SAMPLE_PERIOD) s.period = r.u64();
  if (st & PERF_SAMPLE_READ) s.read = decode_read_values(r, l.read_format);
  if (st & PERF_SAMPLE_CALLCHAIN) {
    const std::uint64_t nr = r.u64();
    s.callchain = U64Array(r.take_array(nr, 8), o.swap);
    if (!r.ok()) return malformed(o.offset, PERF_RECORD_SAMPLE, "callchain nr past the record");
  }
  if (st & PERF_SAMPLE_RAW) {
    const std::uint32_t n = r.u32();
    s.raw = r.take(n);
    if (!r.ok()) return malformed(o.offset, PERF_RECORD_SAMPLE, "raw size past the record");
  }
  if (st & PERF_SAMPLE_BRANCH_STACK) {
    s.branch_stack.swap = o.swap;
    s.branch_stack.nr = r.u64();
    s.branch_stack.has_hw_idx = l.branch_hw_idx;
    if (l.branch_hw_idx) s.branch_stack.hw_idx = r.u64();
    s.branch_stack.entries = r.take_array(s.branch_stack.nr, 24);
    if (!r.ok()) return malformed(o.offset, PERF_RECORD_SAMPLE, "branch stack past the record");
  }
  if (st & PERF_SAMPLE_REGS_USER) s.regs_user = decode_regs(r, l.regs_user_mask, l.regs_user_count);
  if (st & PERF_SAMPLE_STACK_USER) {
    s.stack_user.size = r.u64();
    s.stack_user.data = r.take_array(s.stack_user.size, 1);
    if (s.stack_user.size != 0) {
      s.stack_user.dyn_size = r.u64();
      if (r.ok() && s.stack_user.dyn_size > s.stack_user.size) {
        return malformed(o.offset, PERF_RECORD_SAMPLE, "stack dyn_size larger than size");
      }
    }
  }
  if (st & (PERF_SAMPLE_WEIGHT | PERF_SAMPLE_WEIGHT_STRUCT)) s.weight = r.u64();
  if (st & PERF_SAMPLE_DATA_SRC) s.data_src = r.u64();
  if (st & PERF_SAMPLE_TRANSACTION) s.transaction = r.u64();
  if (st & PERF_SAMPLE_REGS_INTR) s.regs_intr = decode_regs(r, l.regs_intr_mask, l.regs_intr_count);
  if (st & PERF_SAMPLE_PHYS_ADDR) s.phys_addr = r.u64();
  if (st & PERF_SAMPLE_CGROUP) s.cgroup = r.u64();
  if (st & PERF_SAMPLE_DATA_PAGE_SIZE) s.data_page_size = r.u64();
  if (st & PERF_SAMPLE_CODE_PAGE_SIZE) s.code_page_size = r.u64();
  if (st & PERF_SAMPLE_AUX) {
    const std::uint64_t n = r.u64();
    s.aux = r.take_array(n, 1);
  }
  if (!r.ok()) return malformed(o.offset, PERF_RECORD_SAMPLE, "fields run past the record size");
  if (!r.at_end()) {
    return malformed(o.offset, PERF_RECORD_SAMPLE,
                     fmt::format("{} bytes left after the last field", r.remaining()));
  }
  return {};
}

SampleId parse_sample_id(ByteReader& r, std::uint64_t st) {
  SampleId id;
  id.fields = st & (PERF_SAMPLE_TID | PERF_SAMPLE_TIME | PERF_SAMPLE_ID | PERF_SAMPLE_STREAM_ID |
                    PERF_SAMPLE_CPU | PERF_SAMPLE_IDENTIFIER);
  if (st & PERF_SAMPLE_TID) {
    id.pid = r.u32();
    id.tid = r.u32();
  }
  if (st & PERF_SAMPLE_TIME) id.time = r.u64();
  if (st & PERF_SAMPLE_ID) id.id = r.u64();
  if (st & PERF_SAMPLE_STREAM_ID) id.stream_id = r.u64();
  if (st & PERF_SAMPLE_CPU) {
    id.cpu = r.u32();
    id.cpu_res = r.u32();
  }
  if (st & PERF_SAMPLE_IDENTIFIER) id.id = r.u64();
  return id;
}

SampleId sample_id_of(const Sample& s) {
  SampleId id;
  id.fields = s.sample_type & (PERF_SAMPLE_TID | PERF_SAMPLE_TIME | PERF_SAMPLE_ID |
                               PERF_SAMPLE_STREAM_ID | PERF_SAMPLE_CPU | PERF_SAMPLE_IDENTIFIER);
  id.pid = s.pid;
  id.tid = s.tid;
  id.time = s.time;
  id.id = (s.sample_type & PERF_SAMPLE_IDENTIFIER) ? s.identifier : s.id;
  id.stream_id = s.stream_id;
  id.cpu = s.cpu;
  id.cpu_res = s.cpu_res;
  return id;
}

// Body of a kernel (non-sample) record: r covers [header end, trailer start).
Result<Record::Body> kernel_body(std::uint32_t type, std::uint16_t misc, ByteReader& r,
                                 const SampleLayout& l, const DecodeOptions& o) {
  auto done = [&](Record::Body body) -> Result<Record::Body> {
    if (!r.ok()) return malformed(o.offset, type, "record shorter than its fields");
    if (!r.at_end()) {
      return malformed(o.offset, type,
                       fmt::format("{} bytes left after the last field", r.remaining()));
    }
    return body;
  };
  switch (type) {
    case PERF_RECORD_MMAP: {
      Mmap m;
      m.pid = r.u32();
      m.tid = r.u32();
      m.addr = r.u64();
      m.len = r.u64();
      m.pgoff = r.u64();
      m.filename = read_string(r);
      return done(m);
    }
    case PERF_RECORD_LOST: {
      Lost m;
      m.id = r.u64();
      m.lost = r.u64();
      return done(m);
    }
    case PERF_RECORD_COMM: {
      Comm m;
      m.pid = r.u32();
      m.tid = r.u32();
      m.comm = read_string(r);
      return done(m);
    }
    case PERF_RECORD_EXIT:
    case PERF_RECORD_FORK: {
      std::uint32_t v[4];
      for (auto& x : v) x = r.u32();
      const std::uint64_t time = r.u64();
      if (type == PERF_RECORD_EXIT) return done(Exit{v[0], v[1], v[2], v[3], time});
      return done(Fork{v[0], v[1], v[2], v[3], time});
    }
    case PERF_RECORD_THROTTLE:
    case PERF_RECORD_UNTHROTTLE: {
      Throttle m;
      m.time = r.u64();
      m.id = r.u64();
      m.stream_id = r.u64();
      return done(m);
    }
    case PERF_RECORD_READ: {
      Read m;
      m.pid = r.u32();
      m.tid = r.u32();
      m.values = decode_read_values(r, l.read_format);
      return done(m);
    }
    case PERF_RECORD_MMAP2: {
      Mmap2 m;
      m.pid = r.u32();
      m.tid = r.u32();
      m.addr = r.u64();
      m.len = r.u64();
      m.pgoff = r.u64();
      if (misc & PERF_RECORD_MISC_MMAP_BUILD_ID) {
        m.has_build_id = true;
        m.build_id_size = r.u8();
        (void)r.u8();
        (void)r.u16();
        auto b = r.take(20);
        if (r.ok()) std::memcpy(m.build_id.data(), b.data(), 20);
        if (m.build_id_size > 20) return malformed(o.offset, type, "build_id_size > 20");
      } else {
        m.maj = r.u32();
        m.min = r.u32();
        m.ino = r.u64();
        m.ino_generation = r.u64();
      }
      m.prot = r.u32();
      m.flags = r.u32();
      m.filename = read_string(r);
      return done(m);
    }
    case PERF_RECORD_AUX: {
      Aux m;
      m.aux_offset = r.u64();
      m.aux_size = r.u64();
      m.flags = r.u64();
      return done(m);
    }
    case PERF_RECORD_ITRACE_START: {
      ItraceStart m;
      m.pid = r.u32();
      m.tid = r.u32();
      return done(m);
    }
    case PERF_RECORD_LOST_SAMPLES: {
      LostSamples m;
      m.lost = r.u64();
      return done(m);
    }
    case PERF_RECORD_SWITCH:
      return done(Switch{});
    case PERF_RECORD_SWITCH_CPU_WIDE: {
      SwitchCpuWide m;
      m.next_prev_pid = r.u32();
      m.next_prev_tid = r.u32();
      return done(m);
    }
    case PERF_RECORD_NAMESPACES: {
      Namespaces m;
      m.pid = r.u32();
      m.tid = r.u32();
      m.nr_namespaces = r.u64();
      m.link_info = U64Array(r.take_array(m.nr_namespaces, 16), o.swap);
      return done(m);
    }
    case PERF_RECORD_KSYMBOL: {
      Ksymbol m;
      m.addr = r.u64();
      m.len = r.u32();
      m.ksym_type = r.u16();
      m.flags = r.u16();
      m.name = read_string(r);
      return done(m);
    }
    case PERF_RECORD_BPF_EVENT: {
      BpfEvent m;
      m.type = r.u16();
      m.flags = r.u16();
      m.id = r.u32();
      auto t = r.take(8);
      if (r.ok()) std::memcpy(m.tag.data(), t.data(), 8);
      return done(m);
    }
    case PERF_RECORD_CGROUP: {
      Cgroup m;
      m.id = r.u64();
      m.path = read_string(r);
      return done(m);
    }
    case PERF_RECORD_TEXT_POKE: {
      TextPoke m;
      m.addr = r.u64();
      m.old_len = r.u16();
      m.new_len = r.u16();
      m.old_bytes = r.take(m.old_len);
      m.new_bytes = r.take(m.new_len);
      // zero padding to 8 (kernel: ALIGN(tot, sizeof(u64)))
      if (r.ok() && r.remaining() < 8) r.skip(r.remaining());
      return done(m);
    }
    case PERF_RECORD_AUX_OUTPUT_HW_ID: {
      AuxOutputHwId m;
      m.hw_id = r.u64();
      return done(m);
    }
    default:
      break;
  }
  return Unknown{r.take(r.remaining())};
}

Result<Record::Body> user_body(std::uint32_t type, std::uint16_t misc, ByteReader& r,
                               std::span<const std::byte> tail_source, const DecodeOptions& o) {
  auto done = [&](Record::Body body) -> Result<Record::Body> {
    if (!r.ok()) return malformed(o.offset, type, "record shorter than its fields");
    if (!r.at_end()) {
      return malformed(o.offset, type,
                       fmt::format("{} bytes left after the last field", r.remaining()));
    }
    return body;
  };
  switch (type) {
    case raw::PERF_RECORD_HEADER_ATTR: {
      HeaderAttr m;
      auto rest = r.bytes().subspan(r.offset());
      if (rest.size() < 8) return malformed(o.offset, type, "too short for an attr");
      ByteReader sz(rest.subspan(4, 4), o.swap);
      m.attr_size = sz.u32();
      if (m.attr_size == 0) m.attr_size = PERF_ATTR_SIZE_VER0;
      if (m.attr_size < PERF_ATTR_SIZE_VER0 || m.attr_size > rest.size()) {
        return malformed(o.offset, type, fmt::format("bad attr size {}", m.attr_size));
      }
      m.attr = attr_from_bytes(r.take(m.attr_size), o.swap);
      if (r.remaining() % 8 != 0) return malformed(o.offset, type, "ids not a multiple of 8");
      m.ids = U64Array(r.take(r.remaining()), o.swap);
      return done(m);
    }
    case raw::PERF_RECORD_HEADER_EVENT_TYPE: {
      HeaderEventType m;
      m.event_id = r.u64();
      auto name = r.take(r.remaining());
      const auto* c = reinterpret_cast<const char*>(name.data());
      if (!name.empty()) m.name = std::string_view(c, strnlen(c, name.size()));
      return done(m);
    }
    case raw::PERF_RECORD_HEADER_TRACING_DATA: {
      HeaderTracingData m;
      m.size = r.u32();
      if (r.remaining() < 8) r.skip(r.remaining());  // struct padding
      m.data = tail_source;
      return done(m);
    }
    case raw::PERF_RECORD_HEADER_BUILD_ID: {
      HeaderBuildId m;
      m.pid = static_cast<std::int32_t>(r.u32());
      auto b = r.take(24);
      if (r.ok()) {
        std::memcpy(m.build_id.data(), b.data(), 20);
        m.build_id_size = (misc & kMiscBuildIdSize) ? std::to_integer<std::uint8_t>(b[20]) : 20;
        if (m.build_id_size > 20) m.build_id_size = 20;
      }
      auto name = r.take(r.remaining());
      const auto* c = reinterpret_cast<const char*>(name.data());
      // An empty tail has a null data(): strnlen(nullptr, 0) is undefined behaviour.
      if (!name.empty()) m.filename = std::string_view(c, strnlen(c, name.size()));
      return done(m);
    }
    case raw::PERF_RECORD_FINISHED_ROUND:
      return done(FinishedRound{});
    case raw::PERF_RECORD_FINISHED_INIT:
      return done(FinishedInit{});
    case raw::PERF_RECORD_ID_INDEX: {
      IdIndex m;
      m.nr = r.u64();
      m.entries = U64Array(r.take_array(m.nr, 32), o.swap);
      r.skip(r.remaining());  // perf >= 6.0 may append {machine_pid, vcpu} entries
      return done(m);
    }
    case raw::PERF_RECORD_AUXTRACE: {
      Auxtrace m;
      m.size = r.u64();
      m.offset = r.u64();
      m.reference = r.u64();
      m.idx = r.u32();
      m.tid = r.u32();
      m.cpu = r.u32();
      (void)r.u32();
      m.data = tail_source;
      return done(m);
    }
    case raw::PERF_RECORD_TIME_CONV: {
      TimeConv m;
      m.time_shift = r.u64();
      m.time_mult = r.u64();
      m.time_zero = r.u64();
      if (r.remaining() >= 24) {
        m.extended = true;
        m.time_cycles = r.u64();
        m.time_mask = r.u64();
        m.cap_user_time_zero = r.u8();
        m.cap_user_time_short = r.u8();
        r.skip(6);
      }
      return done(m);
    }
    case raw::PERF_RECORD_HEADER_FEATURE: {
      HeaderFeature m;
      m.feat_id = r.u64();
      m.data = r.take(r.remaining());
      return done(m);
    }
    case raw::PERF_RECORD_COMPRESSED: {
      Compressed m;
      m.data = r.take(r.remaining());
      return done(m);
    }
    default:
      break;
  }
  return Unknown{r.take(r.remaining())};
}

// Decodes into `rec` (reused by the caller: a Record is a few hundred bytes and this runs
// once per record, so it is filled in place rather than returned).
Result<void> decode_impl(std::span<const std::byte> bytes, const SampleLayout* layout,
                         int attr_index, const DecodeOptions& o, Record& rec) {
  auto h = peek_header(bytes, o.swap);
  if (!h) {
    return fail(Errc::kMalformedData, "truncated record header at offset {:#x} ({} bytes)",
                o.offset, bytes.size());
  }
  if (h->size < kHeaderSize || h->size > bytes.size()) {
    return fail(Errc::kMalformedData, "malformed record at offset {:#x}: size {} (type {}) {}",
                o.offset, h->size, h->type,
                h->size < kHeaderSize ? "is below 8" : "runs past the end of the data");
  }
  rec.sample_id = {};
  rec.header = *h;
  rec.offset = o.offset;
  rec.attr_index = attr_index;
  auto rec_bytes = bytes.first(h->size);
  if (h->type >= raw::PERF_RECORD_HEADER_ATTR) {
    ByteReader r(rec_bytes.subspan(kHeaderSize), o.swap);
    std::span<const std::byte> tail;
    const std::uint64_t extra = trailing_payload_size(*h, rec_bytes, o.swap);
    if (extra != 0 && bytes.size() - h->size >= extra) tail = bytes.subspan(h->size, extra);
    auto body = user_body(h->type, h->misc, r, tail, o);
    if (!body) return tl::unexpected(std::move(body).error());
    rec.body = std::move(*body);
    rec.attr_index = -1;
    return {};
  }
  if (h->type == PERF_RECORD_SAMPLE) {
    if (layout == nullptr) {
      return fail(Errc::kInvalidArgument,
                  "SAMPLE record at offset {:#x}: no attr known to decode it", o.offset);
    }
    auto& s = rec.body.emplace<Sample>();
    auto filled = sample_body(rec_bytes, h->size, *layout, o, s);
    if (!filled) return tl::unexpected(std::move(filled).error());
    rec.sample_id = sample_id_of(s);
    return {};
  }
  std::size_t body_end = h->size;
  const bool known_kernel_type = h->type >= PERF_RECORD_MMAP && h->type < PERF_RECORD_MAX;
  if (layout != nullptr && layout->sample_id_all && known_kernel_type) {
    if (h->size < kHeaderSize + layout->id_trailer_size) {
      return malformed(o.offset, h->type, "too short for its sample_id trailer");
    }
    body_end = h->size - layout->id_trailer_size;
    ByteReader tr(rec_bytes.subspan(body_end), o.swap);
    rec.sample_id = parse_sample_id(tr, layout->sample_type);
  }
  ByteReader r(rec_bytes.subspan(kHeaderSize, body_end - kHeaderSize), o.swap);
  static const SampleLayout kEmpty{};
  auto body = kernel_body(h->type, h->misc, r, layout ? *layout : kEmpty, o);
  if (!body) return tl::unexpected(std::move(body).error());
  rec.body = std::move(*body);
  return {};
}

}  // namespace

Result<void> decode_record(std::span<const std::byte> bytes, const AttrTable& attrs,
                           const DecodeOptions& options, Record& out) {
  const int index = attrs.index_of_record(bytes, options.swap);
  const SampleLayout* layout =
      index >= 0 ? &attrs[static_cast<std::size_t>(index)].layout : nullptr;
  return decode_impl(bytes, layout, index, options, out);
}

Result<Record> decode_record(std::span<const std::byte> bytes, const AttrTable& attrs,
                             const DecodeOptions& options) {
  Record rec;
  auto ok = decode_record(bytes, attrs, options, rec);
  if (!ok) return tl::unexpected(std::move(ok).error());
  return rec;
}

Result<Record> decode_record(std::span<const std::byte> bytes, const SampleLayout& layout,
                             const DecodeOptions& options) {
  Record rec;
  auto ok = decode_impl(bytes, &layout, 0, options, rec);
  if (!ok) return tl::unexpected(std::move(ok).error());
  return rec;
}

Result<Sample> decode_sample(std::span<const std::byte> record, const SampleLayout& layout,
                             const DecodeOptions& options) {
  auto h = peek_header(record, options.swap);
  if (!h || h->size < kHeaderSize || h->size > record.size()) {
    return fail(Errc::kMalformedData, "malformed SAMPLE record at offset {:#x}: bad size",
                options.offset);
  }
  Result<Sample> result;  // a value, filled in place
  auto filled = sample_body(record, h->size, layout, options, *result);
  if (!filled) return tl::unexpected(std::move(filled).error());
  return result;
}

Result<SampleId> decode_sample_id(std::span<const std::byte> record, const SampleLayout& layout,
                                  const DecodeOptions& options) {
  auto h = peek_header(record, options.swap);
  if (!h || h->size < kHeaderSize + layout.id_trailer_size || h->size > record.size()) {
    return fail(Errc::kMalformedData, "record at offset {:#x}: too short for its sample_id trailer",
                options.offset);
  }
  if (!layout.sample_id_all) return SampleId{};
  ByteReader r(record.subspan(h->size - layout.id_trailer_size, layout.id_trailer_size),
               options.swap);
  return parse_sample_id(r, layout.sample_type);
}

Result<ReadValues> decode_read_format(std::span<const std::byte> bytes, std::uint64_t read_format) {
  ByteReader r(bytes);
  ReadValues v = decode_read_values(r, read_format);
  if (!r.ok()) {
    return fail(Errc::kMalformedData, "read_format {:#x}: {} bytes are too short for the layout",
                read_format, bytes.size());
  }
  return v;
}

}  // namespace perfx::record
