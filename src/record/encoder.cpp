// The record encoder: the exact inverse of decoder.cpp, in the kernel's byte
// layout (native byte order). Strings are NUL-terminated and zero padded to 8
// like the kernel's ALIGN(strlen + 1, sizeof(u64)).
#include "record/encoder.hpp"

#include <bit>
#include <cstring>
#include <type_traits>

#include "core/byte_writer.hpp"
#include "core/error_format.hpp"
#include "record/record_layout.hpp"

namespace perfx::record {

namespace {

constexpr std::uint16_t kMiscBuildIdSize = 1u << 15;

// The record writer: ByteWriter plus the record-level pieces.
class Out : public core::ByteWriter {
 public:
  using ByteWriter::ByteWriter;
  // NUL-terminated, zero padded to 8 like the kernel's ALIGN(strlen + 1, sizeof(u64)).
  void string(std::string_view s) {
    bytes(std::as_bytes(std::span(s.data(), s.size())));
    u8(0);
    pad_to(8);
  }
  /// A U64Array rewritten in native order (decoded views may be swapped).
  void array(const U64Array& a) {
    if (!a.swapped()) {
      bytes(a.bytes());
    } else {
      for (std::uint64_t x : a) u64(x);
    }
  }
  void patch_size(std::uint16_t size) { std::memcpy(buffer().data() + start() + 6, &size, 2); }
};

// One field of a record_layout.hpp layout.
template <typename T>
void write_field(Out& o, const T& v) {
  if constexpr (std::is_same_v<T, std::string_view>) {
    o.string(v);
  } else if constexpr (std::is_integral_v<T>) {
    o.put(v);
  } else {  // std::array<std::uint8_t, N>
    o.bytes(std::as_bytes(std::span(v)));
  }
}

void read_values(Out& o, const ReadValues& v, std::uint64_t read_format) {
  if (read_format & PERF_FORMAT_GROUP) {
    o.u64(v.nr);
    if (read_format & PERF_FORMAT_TOTAL_TIME_ENABLED) o.u64(v.time_enabled);
    if (read_format & PERF_FORMAT_TOTAL_TIME_RUNNING) o.u64(v.time_running);
    ReadValues src = v;
    src.read_format = read_format | PERF_FORMAT_GROUP;
    for (std::size_t i = 0; i < v.nr; ++i) {
      const ReadValue x = src[i];
      o.u64(x.value);
      if (read_format & PERF_FORMAT_ID) o.u64(x.id);
      if (read_format & PERF_FORMAT_LOST) o.u64(x.lost);
    }
  } else {
    o.u64(v.single.value);
    if (read_format & PERF_FORMAT_TOTAL_TIME_ENABLED) o.u64(v.time_enabled);
    if (read_format & PERF_FORMAT_TOTAL_TIME_RUNNING) o.u64(v.time_running);
    if (read_format & PERF_FORMAT_ID) o.u64(v.single.id);
    if (read_format & PERF_FORMAT_LOST) o.u64(v.single.lost);
  }
}

Result<void> regs(Out& o, const Regs& r, std::uint32_t count, const char* what) {
  o.u64(r.abi);
  if (r.abi == PERF_SAMPLE_REGS_ABI_NONE) return {};
  if (r.regs.size() != count) {
    return fail(Errc::kInvalidArgument, "{}: {} registers given, the attr's mask has {}", what,
                r.regs.size(), count);
  }
  o.array(r.regs);
  return {};
}

Result<void> sample(Out& o, const Sample& s, const SampleLayout& l) {
  const std::uint64_t st = l.sample_type;
  for_each_sample_head_field(s, [&](std::uint64_t bit, const auto&... fields) {
    if (st & bit) (write_field(o, fields), ...);
  });
  if (st & PERF_SAMPLE_READ) {
    if ((s.read.read_format & PERF_FORMAT_GROUP) != (l.read_format & PERF_FORMAT_GROUP) &&
        s.read.read_format != 0) {
      return fail(Errc::kInvalidArgument, "sample read values: group flag differs from the attr");
    }
    read_values(o, s.read, l.read_format);
  }
  if (st & PERF_SAMPLE_CALLCHAIN) {
    o.u64(s.callchain.size());
    o.array(s.callchain);
  }
  if (st & PERF_SAMPLE_RAW) {
    // The kernel pads RAW so that u32 size + data is a multiple of 8, and the
    // padding is part of `size`.
    const std::size_t padded = ((s.raw.size() + 4 + 7) & ~std::size_t{7}) - 4;
    o.u32(static_cast<std::uint32_t>(padded));
    o.bytes(s.raw);
    o.zeros(padded - s.raw.size());
  }
  if (st & PERF_SAMPLE_BRANCH_STACK) {
    const auto& b = s.branch_stack;
    o.u64(b.nr);
    if (l.branch_hw_idx) o.u64(b.hw_idx);
    if (b.entries.size() != b.nr * 24) {
      return fail(Errc::kInvalidArgument, "branch stack: nr {} but {} entry bytes", b.nr,
                  b.entries.size());
    }
    for (std::size_t i = 0; i < b.nr; ++i) {
      const BranchEntry e = b[i];
      o.u64(e.from);
      o.u64(e.to);
      o.u64(e.flags);
    }
  }
  if (st & PERF_SAMPLE_REGS_USER) {
    PERFX_CHECK(regs(o, s.regs_user, l.regs_user_count, "regs_user"));
  }
  if (st & PERF_SAMPLE_STACK_USER) {
    const auto& su = s.stack_user;
    if (su.data.size() != su.size) {
      return fail(Errc::kInvalidArgument, "stack_user: size {} but {} data bytes", su.size,
                  su.data.size());
    }
    if (su.dyn_size > su.size) {
      return fail(Errc::kInvalidArgument, "stack_user: dyn_size {} > size {}", su.dyn_size,
                  su.size);
    }
    o.u64(su.size);
    o.bytes(su.data);
    if (su.size != 0) o.u64(su.dyn_size);
  }
  if (st & (PERF_SAMPLE_WEIGHT | PERF_SAMPLE_WEIGHT_STRUCT)) o.u64(s.weight);
  if (st & PERF_SAMPLE_DATA_SRC) o.u64(s.data_src);
  if (st & PERF_SAMPLE_TRANSACTION) o.u64(s.transaction);
  if (st & PERF_SAMPLE_REGS_INTR) {
    PERFX_CHECK(regs(o, s.regs_intr, l.regs_intr_count, "regs_intr"));
  }
  if (st & PERF_SAMPLE_PHYS_ADDR) o.u64(s.phys_addr);
  if (st & PERF_SAMPLE_CGROUP) o.u64(s.cgroup);
  if (st & PERF_SAMPLE_DATA_PAGE_SIZE) o.u64(s.data_page_size);
  if (st & PERF_SAMPLE_CODE_PAGE_SIZE) o.u64(s.code_page_size);
  if (st & PERF_SAMPLE_AUX) {
    o.u64(s.aux.size());
    o.bytes(s.aux);
  }
  return {};
}

// The body of one record being encoded.
struct BodyOut {
  Out& o;
  std::uint16_t misc;
  const SampleLayout& layout;
};

template <typename T, typename Fields>
void write_fields(Out& o, const T& m, const Fields& fields) {
  for_each_field(m, fields, [&](const auto& field) { write_field(o, field); });
}

template <FixedLayout T>
Result<void> write_body(BodyOut& out, const T& m) {
  write_fields(out.o, m, kFields<T>);
  return {};
}

Result<void> write_body(BodyOut& out, const Unknown& m) {
  out.o.bytes(m.payload);
  return {};
}

Result<void> write_body(BodyOut& out, const Sample& m) { return sample(out.o, m, out.layout); }

Result<void> write_body(BodyOut& out, const Read& m) {
  write_fields(out.o, m, kReadHead);
  read_values(out.o, m.values, out.layout.read_format);
  return {};
}

Result<void> write_body(BodyOut& out, const Mmap2& m) {
  Out& o = out.o;
  write_fields(o, m, kMmap2Head);
  if (out.misc & PERF_RECORD_MISC_MMAP_BUILD_ID) {
    if (m.build_id_size > 20) return fail(Errc::kInvalidArgument, "mmap2: build_id_size > 20");
    o.u8(m.build_id_size);
    o.u8(0);
    o.u16(0);
    write_field(o, m.build_id);
  } else {
    write_fields(o, m, kMmap2Inode);
  }
  write_fields(o, m, kMmap2Tail);
  return {};
}

Result<void> write_body(BodyOut& out, const Namespaces& m) {
  if (m.link_info.size() != 2 * m.nr_namespaces) {
    return fail(Errc::kInvalidArgument, "namespaces: nr {} but {} link values", m.nr_namespaces,
                m.link_info.size());
  }
  write_fields(out.o, m, kNamespacesHead);
  out.o.array(m.link_info);
  return {};
}

Result<void> write_body(BodyOut& out, const TextPoke& m) {
  if (m.old_bytes.size() != m.old_len || m.new_bytes.size() != m.new_len) {
    return fail(Errc::kInvalidArgument, "text_poke: lengths do not match the byte spans");
  }
  write_fields(out.o, m, kTextPokeHead);
  out.o.bytes(m.old_bytes);
  out.o.bytes(m.new_bytes);
  out.o.pad_to(8);
  return {};
}

Result<void> write_body(BodyOut& out, const HeaderAttr& m) {
  raw::EventAttr a = m.attr;
  // perf 6.1 knows 128-byte attrs; config3 (136) only when it is used.
  const std::uint32_t size = a.config3 != 0 ? raw::kAttrSizeVer8 : raw::kAttrSizeVer7;
  a.size = size;
  out.o.bytes(std::as_bytes(std::span(&a, 1)).first(size));
  out.o.array(m.ids);
  return {};
}

Result<void> write_body(BodyOut& out, const HeaderEventType& m) {
  out.o.u64(m.event_id);
  const std::size_t n = std::min<std::size_t>(m.name.size(), 63);
  out.o.bytes(std::as_bytes(std::span(m.name.data(), n)));
  out.o.zeros(64 - n);
  return {};
}

Result<void> write_body(BodyOut& out, const HeaderTracingData& m) {
  out.o.u32(m.size);
  out.o.u32(0);
  return {};
}

Result<void> write_body(BodyOut& out, const HeaderBuildId& m) {
  if (m.build_id_size > 20) return fail(Errc::kInvalidArgument, "build id longer than 20");
  Out& o = out.o;
  o.u32(static_cast<std::uint32_t>(m.pid));
  write_field(o, m.build_id);
  o.u8(m.build_id_size);
  o.u8(0);
  o.u16(0);
  // perf: filename NUL-terminated, padded to NAME_ALIGN (64)
  o.bytes(std::as_bytes(std::span(m.filename.data(), m.filename.size())));
  const std::size_t len = m.filename.size() + 1;
  o.zeros(((len + 63) & ~std::size_t{63}) - m.filename.size());
  return {};
}

// A u64 count, then `per` u64 values for each (ID_INDEX, STAT_CONFIG).
Result<void> counted_values(BodyOut& out, const char* what, std::uint64_t nr, std::size_t per,
                            const U64Array& values) {
  if (values.size() != per * nr) {
    return fail(Errc::kInvalidArgument, "{}: nr {} but {} values", what, nr, values.size());
  }
  out.o.u64(nr);
  out.o.array(values);
  return {};
}

Result<void> write_body(BodyOut& out, const IdIndex& m) {
  return counted_values(out, "id_index", m.nr, 4, m.entries);
}

Result<void> write_body(BodyOut& out, const Auxtrace& m) {
  write_fields(out.o, m, kAuxtraceHead);
  out.o.u32(0);  // reserved
  return {};
}

Result<void> write_body(BodyOut& out, const TimeConv& m) {
  write_fields(out.o, m, kTimeConvBase);
  if (m.extended) {
    write_fields(out.o, m, kTimeConvExtended);
    out.o.zeros(6);
  }
  return {};
}

Result<void> write_body(BodyOut& out, const HeaderFeature& m) {
  out.o.u64(m.feat_id);
  out.o.bytes(m.data);
  out.o.pad_to(8);
  return {};
}

Result<void> write_body(BodyOut& out, const Compressed& m) {
  out.o.bytes(m.data);
  return {};
}

Result<void> write_body(BodyOut& out, const ThreadMap& m) {
  if (m.entries.size() != m.nr * 24) {
    return fail(Errc::kInvalidArgument, "thread_map: nr {} but {} entry bytes", m.nr,
                m.entries.size());
  }
  out.o.u64(m.nr);
  for (std::size_t i = 0; i < m.nr; ++i) {  // native order again (pid only: comm is bytes)
    out.o.u64(m[i].pid);
    out.o.bytes(m.entries.subspan(i * 24 + 8, 16));
  }
  return {};
}

Result<void> write_body(BodyOut& out, const CpuMap& m) {
  if (m.swap && !m.data.empty()) {
    return fail(Errc::kInvalidArgument, "cpu_map: byte-swapped data cannot be re-encoded");
  }
  out.o.u16(m.map_type);
  out.o.bytes(m.data);
  out.o.pad_to(8);
  return {};
}

Result<void> write_body(BodyOut& out, const StatConfig& m) {
  return counted_values(out, "stat_config", m.nr, 2, m.terms);
}

Result<void> write_body(BodyOut& out, const EventUpdate& m) {
  if (m.swap && !m.data.empty() && m.type != static_cast<std::uint64_t>(EventUpdateType::kUnit) &&
      m.type != static_cast<std::uint64_t>(EventUpdateType::kName)) {
    return fail(Errc::kInvalidArgument, "event_update: byte-swapped data cannot be re-encoded");
  }
  out.o.u64(m.type);
  out.o.u64(m.id);
  out.o.bytes(m.data);
  out.o.pad_to(8);
  return {};
}

}  // namespace

std::uint32_t type_of_body(const Record::Body& body) noexcept { return kBodyTypes[body.index()]; }

void encode_sample_id(const SampleId& id, const SampleLayout& layout, std::vector<std::byte>& out) {
  if (!layout.sample_id_all) return;
  Out o(out);
  const std::uint64_t st = layout.sample_type;
  for_each_sample_id_field(id, [&](std::uint64_t bit, const auto&... fields) {
    if (st & bit) (write_field(o, fields), ...);
  });
}

Result<void> encode_record(const Record& record, const SampleLayout& layout,
                           std::vector<std::byte>& out) {
  const std::uint32_t body_type = type_of_body(record.body);
  std::uint32_t type = record.header.type != 0 ? record.header.type : body_type;
  const bool throttle_pair = body_type == PERF_RECORD_THROTTLE && type == PERF_RECORD_UNTHROTTLE;
  if (body_type != 0 && type != body_type && !throttle_pair) {
    return fail(Errc::kInvalidArgument, "record type {} does not match its body ({})", type,
                record_type_name(body_type));
  }
  Out o(out);
  o.u32(type);
  o.u16(record.header.misc);
  o.u16(0);
  BodyOut body{o, record.header.misc, layout};
  Result<void> r = std::visit([&](const auto& m) { return write_body(body, m); }, record.body);
  if (!r) {
    o.rollback();
    return r;
  }
  if (type < raw::PERF_RECORD_HEADER_ATTR && type != PERF_RECORD_SAMPLE && body_type != 0) {
    encode_sample_id(record.sample_id, layout, out);
  }
  if (o.size() > 0xffff) {
    const std::size_t n = o.size();
    o.rollback();
    return fail(Errc::kInvalidArgument, "{} record of {} bytes exceeds the 65535-byte limit",
                record_type_name(type), n);
  }
  o.patch_size(static_cast<std::uint16_t>(o.size()));
  return {};
}

}  // namespace perfx::record
