// The record encoder: the exact inverse of decoder.cpp, in the kernel's byte
// layout (native byte order). Strings are NUL-terminated and zero padded to 8
// like the kernel's ALIGN(strlen + 1, sizeof(u64)).
#include "record/encoder.hpp"

#include <bit>
#include <cstring>

#include "core/error_format.hpp"

namespace perfx::record {

namespace {

constexpr std::uint16_t kMiscBuildIdSize = 1u << 15;

class Out {
 public:
  explicit Out(std::vector<std::byte>& v) : v_(v), start_(v.size()) {}
  void u8(std::uint8_t x) { v_.push_back(static_cast<std::byte>(x)); }
  void u16(std::uint16_t x) { put(&x, 2); }
  void u32(std::uint32_t x) { put(&x, 4); }
  void u64(std::uint64_t x) { put(&x, 8); }
  void bytes(std::span<const std::byte> b) { v_.insert(v_.end(), b.begin(), b.end()); }
  void zeros(std::size_t n) { v_.insert(v_.end(), n, std::byte{0}); }
  void pad_to(std::size_t align) {
    const std::size_t len = v_.size() - start_;
    zeros((align - len % align) % align);
  }
  void string(std::string_view s) {
    v_.insert(v_.end(), reinterpret_cast<const std::byte*>(s.data()),
              reinterpret_cast<const std::byte*>(s.data()) + s.size());
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
  [[nodiscard]] std::size_t size() const noexcept { return v_.size() - start_; }
  void rollback() { v_.resize(start_); }
  void patch_size(std::uint16_t size) { std::memcpy(v_.data() + start_ + 6, &size, 2); }

 private:
  void put(const void* p, std::size_t n) {
    const auto* b = static_cast<const std::byte*>(p);
    v_.insert(v_.end(), b, b + n);
  }
  std::vector<std::byte>& v_;
  std::size_t start_;
};

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
  if (st & PERF_SAMPLE_IDENTIFIER) o.u64(s.identifier);
  if (st & PERF_SAMPLE_IP) o.u64(s.ip);
  if (st & PERF_SAMPLE_TID) {
    o.u32(s.pid);
    o.u32(s.tid);
  }
  if (st & PERF_SAMPLE_TIME) o.u64(s.time);
  if (st & PERF_SAMPLE_ADDR) o.u64(s.addr);
  if (st & PERF_SAMPLE_ID) o.u64(s.id);
  if (st & PERF_SAMPLE_STREAM_ID) o.u64(s.stream_id);
  if (st & PERF_SAMPLE_CPU) {
    o.u32(s.cpu);
    o.u32(s.cpu_res);
  }
  if (st & PERF_SAMPLE_PERIOD) o.u64(s.period);
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

struct BodyWriter {
  Out& o;
  std::uint16_t misc;

  Result<void> operator()(const Unknown& m) {
    o.bytes(m.payload);
    return {};
  }
  Result<void> operator()(const Mmap& m) {
    o.u32(m.pid);
    o.u32(m.tid);
    o.u64(m.addr);
    o.u64(m.len);
    o.u64(m.pgoff);
    o.string(m.filename);
    return {};
  }
  Result<void> operator()(const Lost& m) {
    o.u64(m.id);
    o.u64(m.lost);
    return {};
  }
  Result<void> operator()(const Comm& m) {
    o.u32(m.pid);
    o.u32(m.tid);
    o.string(m.comm);
    return {};
  }
  Result<void> operator()(const Exit& m) {
    task(m.pid, m.ppid, m.tid, m.ptid, m.time);
    return {};
  }
  Result<void> operator()(const Fork& m) {
    task(m.pid, m.ppid, m.tid, m.ptid, m.time);
    return {};
  }
  void task(std::uint32_t pid, std::uint32_t ppid, std::uint32_t tid, std::uint32_t ptid,
            std::uint64_t time) {
    o.u32(pid);
    o.u32(ppid);
    o.u32(tid);
    o.u32(ptid);
    o.u64(time);
  }
  Result<void> operator()(const Throttle& m) {
    o.u64(m.time);
    o.u64(m.id);
    o.u64(m.stream_id);
    return {};
  }
  Result<void> operator()(const Read&) { return {}; }    // handled by the caller (needs layout)
  Result<void> operator()(const Sample&) { return {}; }  // handled by the caller
  Result<void> operator()(const Mmap2& m) {
    o.u32(m.pid);
    o.u32(m.tid);
    o.u64(m.addr);
    o.u64(m.len);
    o.u64(m.pgoff);
    if (misc & PERF_RECORD_MISC_MMAP_BUILD_ID) {
      if (m.build_id_size > 20) return fail(Errc::kInvalidArgument, "mmap2: build_id_size > 20");
      o.u8(m.build_id_size);
      o.u8(0);
      o.u16(0);
      o.bytes(std::as_bytes(std::span(m.build_id)));
    } else {
      o.u32(m.maj);
      o.u32(m.min);
      o.u64(m.ino);
      o.u64(m.ino_generation);
    }
    o.u32(m.prot);
    o.u32(m.flags);
    o.string(m.filename);
    return {};
  }
  Result<void> operator()(const Aux& m) {
    o.u64(m.aux_offset);
    o.u64(m.aux_size);
    o.u64(m.flags);
    return {};
  }
  Result<void> operator()(const ItraceStart& m) {
    o.u32(m.pid);
    o.u32(m.tid);
    return {};
  }
  Result<void> operator()(const LostSamples& m) {
    o.u64(m.lost);
    return {};
  }
  Result<void> operator()(const Switch&) { return {}; }
  Result<void> operator()(const SwitchCpuWide& m) {
    o.u32(m.next_prev_pid);
    o.u32(m.next_prev_tid);
    return {};
  }
  Result<void> operator()(const Namespaces& m) {
    if (m.link_info.size() != 2 * m.nr_namespaces) {
      return fail(Errc::kInvalidArgument, "namespaces: nr {} but {} link values", m.nr_namespaces,
                  m.link_info.size());
    }
    o.u32(m.pid);
    o.u32(m.tid);
    o.u64(m.nr_namespaces);
    o.array(m.link_info);
    return {};
  }
  Result<void> operator()(const Ksymbol& m) {
    o.u64(m.addr);
    o.u32(m.len);
    o.u16(m.ksym_type);
    o.u16(m.flags);
    o.string(m.name);
    return {};
  }
  Result<void> operator()(const BpfEvent& m) {
    o.u16(m.type);
    o.u16(m.flags);
    o.u32(m.id);
    o.bytes(std::as_bytes(std::span(m.tag)));
    return {};
  }
  Result<void> operator()(const Cgroup& m) {
    o.u64(m.id);
    o.string(m.path);
    return {};
  }
  Result<void> operator()(const TextPoke& m) {
    if (m.old_bytes.size() != m.old_len || m.new_bytes.size() != m.new_len) {
      return fail(Errc::kInvalidArgument, "text_poke: lengths do not match the byte spans");
    }
    o.u64(m.addr);
    o.u16(m.old_len);
    o.u16(m.new_len);
    o.bytes(m.old_bytes);
    o.bytes(m.new_bytes);
    o.pad_to(8);
    return {};
  }
  Result<void> operator()(const AuxOutputHwId& m) {
    o.u64(m.hw_id);
    return {};
  }
  Result<void> operator()(const HeaderAttr& m) {
    raw::EventAttr a = m.attr;
    // perf 6.1 knows 128-byte attrs; config3 (136) only when it is used.
    const std::uint32_t size = a.config3 != 0 ? raw::kAttrSizeVer8 : raw::kAttrSizeVer7;
    a.size = size;
    o.bytes(std::as_bytes(std::span(&a, 1)).first(size));
    o.array(m.ids);
    return {};
  }
  Result<void> operator()(const HeaderEventType& m) {
    o.u64(m.event_id);
    const std::size_t n = std::min<std::size_t>(m.name.size(), 63);
    o.bytes(std::as_bytes(std::span(m.name.data(), n)));
    o.zeros(64 - n);
    return {};
  }
  Result<void> operator()(const HeaderTracingData& m) {
    o.u32(m.size);
    o.u32(0);
    return {};
  }
  Result<void> operator()(const HeaderBuildId& m) {
    if (m.build_id_size > 20) return fail(Errc::kInvalidArgument, "build id longer than 20");
    o.u32(static_cast<std::uint32_t>(m.pid));
    o.bytes(std::as_bytes(std::span(m.build_id)));
    o.u8(m.build_id_size);
    o.u8(0);
    o.u16(0);
    // perf: filename NUL-terminated, padded to NAME_ALIGN (64)
    o.bytes(std::as_bytes(std::span(m.filename.data(), m.filename.size())));
    const std::size_t len = m.filename.size() + 1;
    o.zeros(((len + 63) & ~std::size_t{63}) - m.filename.size());
    return {};
  }
  Result<void> operator()(const FinishedRound&) { return {}; }
  Result<void> operator()(const FinishedInit&) { return {}; }
  Result<void> operator()(const IdIndex& m) {
    if (m.entries.size() != 4 * m.nr) {
      return fail(Errc::kInvalidArgument, "id_index: nr {} but {} values", m.nr, m.entries.size());
    }
    o.u64(m.nr);
    o.array(m.entries);
    return {};
  }
  Result<void> operator()(const Auxtrace& m) {
    o.u64(m.size);
    o.u64(m.offset);
    o.u64(m.reference);
    o.u32(m.idx);
    o.u32(m.tid);
    o.u32(m.cpu);
    o.u32(0);
    return {};
  }
  Result<void> operator()(const TimeConv& m) {
    o.u64(m.time_shift);
    o.u64(m.time_mult);
    o.u64(m.time_zero);
    if (m.extended) {
      o.u64(m.time_cycles);
      o.u64(m.time_mask);
      o.u8(m.cap_user_time_zero);
      o.u8(m.cap_user_time_short);
      o.zeros(6);
    }
    return {};
  }
  Result<void> operator()(const HeaderFeature& m) {
    o.u64(m.feat_id);
    o.bytes(m.data);
    o.pad_to(8);
    return {};
  }
  Result<void> operator()(const Compressed& m) {
    o.bytes(m.data);
    return {};
  }
};

}  // namespace

std::uint32_t type_of_body(const Record::Body& body) noexcept {
  static constexpr std::uint32_t kTypes[] = {
      0,
      PERF_RECORD_MMAP,
      PERF_RECORD_LOST,
      PERF_RECORD_COMM,
      PERF_RECORD_EXIT,
      PERF_RECORD_THROTTLE,
      PERF_RECORD_FORK,
      PERF_RECORD_READ,
      PERF_RECORD_SAMPLE,
      PERF_RECORD_MMAP2,
      PERF_RECORD_AUX,
      PERF_RECORD_ITRACE_START,
      PERF_RECORD_LOST_SAMPLES,
      PERF_RECORD_SWITCH,
      PERF_RECORD_SWITCH_CPU_WIDE,
      PERF_RECORD_NAMESPACES,
      PERF_RECORD_KSYMBOL,
      PERF_RECORD_BPF_EVENT,
      PERF_RECORD_CGROUP,
      PERF_RECORD_TEXT_POKE,
      PERF_RECORD_AUX_OUTPUT_HW_ID,
      raw::PERF_RECORD_HEADER_ATTR,
      raw::PERF_RECORD_HEADER_EVENT_TYPE,
      raw::PERF_RECORD_HEADER_TRACING_DATA,
      raw::PERF_RECORD_HEADER_BUILD_ID,
      raw::PERF_RECORD_FINISHED_ROUND,
      raw::PERF_RECORD_FINISHED_INIT,
      raw::PERF_RECORD_ID_INDEX,
      raw::PERF_RECORD_AUXTRACE,
      raw::PERF_RECORD_TIME_CONV,
      raw::PERF_RECORD_HEADER_FEATURE,
      raw::PERF_RECORD_COMPRESSED,
  };
  static_assert(std::size(kTypes) == std::variant_size_v<Record::Body>);
  return kTypes[body.index()];
}

void encode_sample_id(const SampleId& id, const SampleLayout& layout, std::vector<std::byte>& out) {
  if (!layout.sample_id_all) return;
  Out o(out);
  const std::uint64_t st = layout.sample_type;
  if (st & PERF_SAMPLE_TID) {
    o.u32(id.pid);
    o.u32(id.tid);
  }
  if (st & PERF_SAMPLE_TIME) o.u64(id.time);
  if (st & PERF_SAMPLE_ID) o.u64(id.id);
  if (st & PERF_SAMPLE_STREAM_ID) o.u64(id.stream_id);
  if (st & PERF_SAMPLE_CPU) {
    o.u32(id.cpu);
    o.u32(id.cpu_res);
  }
  if (st & PERF_SAMPLE_IDENTIFIER) o.u64(id.id);
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
  Result<void> r;
  if (const auto* s = std::get_if<Sample>(&record.body)) {
    r = sample(o, *s, layout);
  } else if (const auto* rd = std::get_if<Read>(&record.body)) {
    o.u32(rd->pid);
    o.u32(rd->tid);
    read_values(o, rd->values, layout.read_format);
  } else {
    r = std::visit(BodyWriter{o, record.header.misc}, record.body);
  }
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
