// The record decoder: one function per record type, all over core::ByteReader
// (bounds-checked, sticky failure). Every decode must consume exactly
// header.size bytes; a leftover or a short read is malformed data.
#include "record/decoder.hpp"

#include <array>
#include <cstring>
#include <type_traits>
#include <utility>

#include "core/byte_reader.hpp"
#include "core/error_format.hpp"
#include "record/read_format.hpp"
#include "record/record_layout.hpp"

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

// One field of a record_layout.hpp layout.
template <typename T>
void read_field(ByteReader& r, T& v) {
  if constexpr (std::is_same_v<T, std::string_view>) {
    v = read_string(r);
  } else if constexpr (std::is_integral_v<T>) {
    v = r.read<T>();
  } else {  // std::array<std::uint8_t, N>
    auto b = r.take(v.size());
    if (r.ok()) std::memcpy(v.data(), b.data(), v.size());
  }
}

// Fills `s` (default-constructed) in place: a Sample is a few hundred bytes and this runs
// once per sample, so it is never copied on the way to the caller's Record.
Result<void> sample_body(std::span<const std::byte> rec, std::uint16_t size, const SampleLayout& l,
                         const DecodeOptions& o, Sample& s) {
  ByteReader r(rec.subspan(kHeaderSize, size - kHeaderSize), o.swap);
  const std::uint64_t st = l.sample_type;
  s.sample_type = st;
  for_each_sample_head_field(s, [&](std::uint64_t bit, auto&... fields) {
    if (st & bit) (read_field(r, fields), ...);
  });
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
  for_each_sample_id_field(id, [&](std::uint64_t bit, auto&... fields) {
    if (st & bit) (read_field(r, fields), ...);
  });
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

// The body of one non-sample record being decoded: `r` covers [header end, trailer start).
struct BodyIn {
  ByteReader& r;
  std::uint32_t type;
  std::uint16_t misc;
  const SampleLayout& layout;
  std::span<const std::byte> tail;  // the payload after HEADER_TRACING_DATA / AUXTRACE
  const DecodeOptions& o;

  [[nodiscard]] tl::unexpected<Error> bad(std::string_view why) const {
    return malformed(o.offset, type, why);
  }
};

// A fixed-size name field ("char name[N]"): up to its first NUL.
std::string_view fixed_string(std::span<const std::byte> bytes) {
  // An empty span has a null data(): strnlen(nullptr, 0) is undefined behaviour.
  if (bytes.empty()) return {};
  const auto* c = reinterpret_cast<const char*>(bytes.data());
  return std::string_view(c, strnlen(c, bytes.size()));
}

template <typename T, typename Fields>
void read_fields(ByteReader& r, T& m, const Fields& fields) {
  for_each_field(m, fields, [&](auto& field) { read_field(r, field); });
}

template <FixedLayout T>
Result<void> read_body(BodyIn& in, T& m) {
  read_fields(in.r, m, kFields<T>);
  return {};
}

Result<void> read_body(BodyIn& in, Unknown& m) {
  m.payload = in.r.take(in.r.remaining());
  return {};
}

Result<void> read_body(BodyIn& in, Sample&) {  // decode_impl reads samples itself
  return in.bad("a SAMPLE body needs its attr's layout");
}

Result<void> read_body(BodyIn& in, Read& m) {
  read_fields(in.r, m, kReadHead);
  m.values = decode_read_values(in.r, in.layout.read_format);
  return {};
}

Result<void> read_body(BodyIn& in, Mmap2& m) {
  ByteReader& r = in.r;
  read_fields(r, m, kMmap2Head);
  if (in.misc & PERF_RECORD_MISC_MMAP_BUILD_ID) {
    m.has_build_id = true;
    m.build_id_size = r.u8();
    (void)r.u8();
    (void)r.u16();
    read_field(r, m.build_id);
    if (m.build_id_size > 20) return in.bad("build_id_size > 20");
  } else {
    read_fields(r, m, kMmap2Inode);
  }
  read_fields(r, m, kMmap2Tail);
  return {};
}

Result<void> read_body(BodyIn& in, Namespaces& m) {
  read_fields(in.r, m, kNamespacesHead);
  m.link_info = U64Array(in.r.take_array(m.nr_namespaces, 16), in.o.swap);
  return {};
}

Result<void> read_body(BodyIn& in, TextPoke& m) {
  read_fields(in.r, m, kTextPokeHead);
  m.old_bytes = in.r.take(m.old_len);
  m.new_bytes = in.r.take(m.new_len);
  // zero padding to 8 (kernel: ALIGN(tot, sizeof(u64)))
  if (in.r.ok() && in.r.remaining() < 8) in.r.skip(in.r.remaining());
  return {};
}

Result<void> read_body(BodyIn& in, HeaderAttr& m) {
  ByteReader& r = in.r;
  auto rest = r.bytes().subspan(r.offset());
  if (rest.size() < 8) return in.bad("too short for an attr");
  ByteReader sz(rest.subspan(4, 4), in.o.swap);
  m.attr_size = sz.u32();
  if (m.attr_size == 0) m.attr_size = PERF_ATTR_SIZE_VER0;
  if (m.attr_size < PERF_ATTR_SIZE_VER0 || m.attr_size > rest.size()) {
    return in.bad(fmt::format("bad attr size {}", m.attr_size));
  }
  m.attr = attr_from_bytes(r.take(m.attr_size), in.o.swap);
  if (r.remaining() % 8 != 0) return in.bad("ids not a multiple of 8");
  m.ids = U64Array(r.take(r.remaining()), in.o.swap);
  return {};
}

Result<void> read_body(BodyIn& in, HeaderEventType& m) {
  m.event_id = in.r.u64();
  m.name = fixed_string(in.r.take(in.r.remaining()));
  return {};
}

Result<void> read_body(BodyIn& in, HeaderTracingData& m) {
  m.size = in.r.u32();
  if (in.r.remaining() < 8) in.r.skip(in.r.remaining());  // struct padding
  m.data = in.tail;
  return {};
}

Result<void> read_body(BodyIn& in, HeaderBuildId& m) {
  m.pid = static_cast<std::int32_t>(in.r.u32());
  auto b = in.r.take(24);
  if (in.r.ok()) {
    std::memcpy(m.build_id.data(), b.data(), 20);
    m.build_id_size = (in.misc & kMiscBuildIdSize) ? std::to_integer<std::uint8_t>(b[20]) : 20;
    if (m.build_id_size > 20) m.build_id_size = 20;
  }
  m.filename = fixed_string(in.r.take(in.r.remaining()));
  return {};
}

Result<void> read_body(BodyIn& in, IdIndex& m) {
  m.nr = in.r.u64();
  m.entries = U64Array(in.r.take_array(m.nr, 32), in.o.swap);
  in.r.skip(in.r.remaining());  // perf >= 6.0 may append {machine_pid, vcpu} entries
  return {};
}

Result<void> read_body(BodyIn& in, Auxtrace& m) {
  read_fields(in.r, m, kAuxtraceHead);
  (void)in.r.u32();  // reserved
  m.data = in.tail;
  return {};
}

Result<void> read_body(BodyIn& in, TimeConv& m) {
  ByteReader& r = in.r;
  read_fields(r, m, kTimeConvBase);
  if (r.remaining() >= 24) {
    m.extended = true;
    read_fields(r, m, kTimeConvExtended);
    r.skip(6);
  }
  return {};
}

Result<void> read_body(BodyIn& in, HeaderFeature& m) {
  m.feat_id = in.r.u64();
  m.data = in.r.take(in.r.remaining());
  return {};
}

Result<void> read_body(BodyIn& in, Compressed& m) {
  m.data = in.r.take(in.r.remaining());
  return {};
}

Result<void> read_body(BodyIn& in, ThreadMap& m) {
  m.nr = in.r.u64();
  m.swap = in.o.swap;
  m.entries = in.r.take_array(m.nr, 24);
  return {};
}

Result<void> read_body(BodyIn& in, CpuMap& m) {
  m.map_type = in.r.u16();
  m.swap = in.o.swap;
  m.data = in.r.take(in.r.remaining());  // its form depends on the type: CpuMap::cpus()
  return {};
}

Result<void> read_body(BodyIn& in, StatConfig& m) {
  m.nr = in.r.u64();
  m.terms = U64Array(in.r.take_array(m.nr, 16), in.o.swap);
  return {};
}

Result<void> read_body(BodyIn& in, EventUpdate& m) {
  m.type = in.r.u64();
  m.id = in.r.u64();
  m.swap = in.o.swap;
  m.data = in.r.take(in.r.remaining());  // its form depends on the type: EventUpdate's getters
  return {};
}

// One reader per Record::Body alternative, indexed like the variant.
using BodyReader = Result<void> (*)(BodyIn&, Record::Body&);

template <std::size_t I>
Result<void> read_alternative(BodyIn& in, Record::Body& body) {
  return read_body(in, body.emplace<I>());
}

template <std::size_t... I>
constexpr std::array<BodyReader, sizeof...(I)> body_readers(std::index_sequence<I...>) {
  return {&read_alternative<I>...};
}

constexpr auto kBodyReaders =
    body_readers(std::make_index_sequence<std::variant_size_v<Record::Body>>{});

// Decodes the body of a non-sample record; a known record must fill it exactly.
Result<void> read_record_body(BodyIn& in, Record::Body& body) {
  const std::size_t index = body_index(in.type);
  if (index == 0) return read_body(in, body.emplace<Unknown>());
  PERFX_CHECK(kBodyReaders[index](in, body));
  if (!in.r.ok()) return in.bad("record shorter than its fields");
  if (!in.r.at_end()) {
    return in.bad(fmt::format("{} bytes left after the last field", in.r.remaining()));
  }
  return {};
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
    static const SampleLayout kNoLayout{};
    BodyIn in{r, h->type, h->misc, kNoLayout, tail, o};
    rec.attr_index = -1;
    return read_record_body(in, rec.body);
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
  BodyIn in{r, h->type, h->misc, layout ? *layout : kEmpty, {}, o};
  return read_record_body(in, rec.body);
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
