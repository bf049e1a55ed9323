// SampleLayout (once per attr) and the id -> attr mapping (perf's
// evlist__event2evsel / perf_evlist__id_pos logic).
#include "record/sample_layout.hpp"

#include <bit>
#include <cstring>

#include "core/byte_reader.hpp"
#include "record/records.hpp"

namespace perfx::record {

namespace {

constexpr std::uint64_t kSampleIdBits = PERF_SAMPLE_TID | PERF_SAMPLE_TIME | PERF_SAMPLE_ID |
                                        PERF_SAMPLE_STREAM_ID | PERF_SAMPLE_CPU |
                                        PERF_SAMPLE_IDENTIFIER;

// perf_event_attr fields as (offset, width) for byte swapping. The bitfield
// word at 40 is swapped as one u64 (perf's perf_event__attr_swap does the same).
struct Field {
  std::uint16_t offset;
  std::uint8_t width;
};
constexpr Field kAttrFields[] = {
    {0, 4},   {4, 4},   {8, 8},   {16, 8},  {24, 8},  {32, 8},  {40, 8},  {48, 4},
    {52, 4},  {56, 8},  {64, 8},  {72, 8},  {80, 8},  {88, 4},  {92, 4},  {96, 8},
    {104, 4}, {108, 2}, {110, 2}, {112, 4}, {116, 4}, {120, 8}, {128, 8},
};

}  // namespace

SampleLayout SampleLayout::from_attr(const raw::EventAttr& attr) noexcept {
  SampleLayout l;
  l.sample_type = attr.sample_type;
  l.read_format = attr.read_format;
  l.branch_sample_type = attr.branch_sample_type;
  l.regs_user_mask = attr.sample_regs_user;
  l.regs_intr_mask = attr.sample_regs_intr;
  l.regs_user_count = static_cast<std::uint32_t>(std::popcount(attr.sample_regs_user));
  l.regs_intr_count = static_cast<std::uint32_t>(std::popcount(attr.sample_regs_intr));
  l.sample_id_all = attr.sample_id_all != 0;
  l.branch_hw_idx = (attr.branch_sample_type & PERF_SAMPLE_BRANCH_HW_INDEX) != 0;

  const std::uint64_t st = attr.sample_type;
  std::int32_t off = 8;
  auto field = [&](std::uint64_t bit) -> std::int32_t {
    if (!(st & bit)) return -1;
    const std::int32_t at = off;
    off += 8;
    return at;
  };
  const std::int32_t identifier = field(PERF_SAMPLE_IDENTIFIER);
  l.ip_offset = field(PERF_SAMPLE_IP);
  l.tid_offset = field(PERF_SAMPLE_TID);
  l.time_offset = field(PERF_SAMPLE_TIME);
  (void)field(PERF_SAMPLE_ADDR);
  const std::int32_t id = field(PERF_SAMPLE_ID);
  (void)field(PERF_SAMPLE_STREAM_ID);
  l.cpu_offset = field(PERF_SAMPLE_CPU);
  l.period_offset = field(PERF_SAMPLE_PERIOD);
  l.fixed_size = static_cast<std::uint32_t>(off - 8);
  l.id_offset = identifier >= 0 ? identifier : id;

  if (l.sample_id_all) {
    l.id_trailer_size = 8u * static_cast<std::uint32_t>(std::popcount(st & kSampleIdBits));
    if (st & PERF_SAMPLE_IDENTIFIER) {
      l.id_from_end = 8;
    } else if (st & PERF_SAMPLE_ID) {
      l.id_from_end =
          8u + ((st & PERF_SAMPLE_STREAM_ID) ? 8u : 0u) + ((st & PERF_SAMPLE_CPU) ? 8u : 0u);
    }
  }
  if (!(attr.read_format & PERF_FORMAT_GROUP)) {
    std::uint32_t n = 1;
    for (std::uint64_t b : {std::uint64_t{PERF_FORMAT_TOTAL_TIME_ENABLED},
                            std::uint64_t{PERF_FORMAT_TOTAL_TIME_RUNNING},
                            std::uint64_t{PERF_FORMAT_ID}, std::uint64_t{PERF_FORMAT_LOST}}) {
      if (attr.read_format & b) ++n;
    }
    l.read_size = 8 * n;
  }
  return l;
}

raw::EventAttr attr_from_bytes(std::span<const std::byte> bytes, bool swap) noexcept {
  raw::EventAttr attr{};
  const std::size_t n = std::min(bytes.size(), sizeof(attr));
  auto* dst = reinterpret_cast<std::byte*>(&attr);
  if (n > 0) std::memcpy(dst, bytes.data(), n);  // an empty span may have a null data()
  if (swap) {
    for (const Field& f : kAttrFields) {
      if (f.offset + f.width > n) break;
      std::byte* p = dst + f.offset;
      if (f.width == 2) {
        std::uint16_t v;
        std::memcpy(&v, p, 2);
        v = __builtin_bswap16(v);
        std::memcpy(p, &v, 2);
      } else if (f.width == 4) {
        std::uint32_t v;
        std::memcpy(&v, p, 4);
        v = __builtin_bswap32(v);
        std::memcpy(p, &v, 4);
      } else {
        std::uint64_t v;
        std::memcpy(&v, p, 8);
        v = __builtin_bswap64(v);
        std::memcpy(p, &v, 8);
      }
    }
  }
  return attr;
}

int AttrTable::add(const raw::EventAttr& attr, std::span<const std::uint64_t> ids,
                   std::string name) {
  AttrEntry e;
  e.attr = attr;
  e.layout = SampleLayout::from_attr(attr);
  e.name = std::move(name);
  entries_.push_back(std::move(e));
  const int index = static_cast<int>(entries_.size() - 1);
  add_ids(index, ids);
  recompute();
  return index;
}

void AttrTable::add_ids(int index, std::span<const std::uint64_t> ids) {
  auto& e = entries_[static_cast<std::size_t>(index)];
  for (std::uint64_t id : ids) {
    e.ids.push_back(id);
    by_id_.emplace(id, index);
  }
}

void AttrTable::set_name(int index, std::string name) {
  entries_[static_cast<std::size_t>(index)].name = std::move(name);
}

int AttrTable::index_of_id(std::uint64_t id) const noexcept {
  auto it = by_id_.find(id);
  return it == by_id_.end() ? -1 : it->second;
}

void AttrTable::recompute() noexcept {
  uniform_ = true;
  sample_id_offset_ = entries_.empty() ? -1 : entries_[0].layout.id_offset;
  trailer_id_from_end_ = entries_.empty() ? 0 : entries_[0].layout.id_from_end;
  for (const auto& e : entries_) {
    if (e.layout.sample_type != entries_[0].layout.sample_type) uniform_ = false;
    if (e.layout.id_offset != sample_id_offset_) sample_id_offset_ = -1;
    if (e.layout.id_from_end != trailer_id_from_end_) trailer_id_from_end_ = 0;
  }
}

int AttrTable::index_of_record(std::span<const std::byte> record, bool swap) const noexcept {
  if (entries_.empty() || record.size() < kHeaderSize) return -1;
  core::ByteReader r(record, swap);
  const std::uint32_t type = r.u32();
  (void)r.u16();
  const std::uint16_t size = r.u16();
  if (type >= raw::PERF_RECORD_HEADER_ATTR) return -1;
  if (entries_.size() == 1) return 0;
  const std::size_t n = std::min<std::size_t>(size, record.size());
  std::size_t at = 0;
  if (type == PERF_RECORD_SAMPLE) {
    if (sample_id_offset_ < 0) return 0;
    at = static_cast<std::size_t>(sample_id_offset_);
  } else {
    if (trailer_id_from_end_ == 0 || n < trailer_id_from_end_ + kHeaderSize) return 0;
    at = n - trailer_id_from_end_;
  }
  if (at + 8 > n) return 0;
  core::ByteReader idr(record.subspan(at, 8), swap);
  const int index = index_of_id(idr.u64());
  return index < 0 ? 0 : index;
}

std::uint64_t AttrTable::time_of_record(std::span<const std::byte> record,
                                        bool swap) const noexcept {
  const int ai = index_of_record(record, swap);
  if (ai < 0) return 0;
  const auto& l = entries_[static_cast<std::size_t>(ai)].layout;
  auto u64_at = [&](std::size_t off) -> std::uint64_t {
    if (off + 8 > record.size()) return 0;
    return core::ByteReader(record.subspan(off, 8), swap).u64();
  };
  if (core::ByteReader(record, swap).u32() == PERF_RECORD_SAMPLE)
    return l.time_offset < 0 ? 0 : u64_at(static_cast<std::size_t>(l.time_offset));
  if (!l.sample_id_all || !(l.sample_type & PERF_SAMPLE_TIME)) return 0;
  if (record.size() < l.id_trailer_size + 8) return 0;
  return u64_at(record.size() - l.id_trailer_size + ((l.sample_type & PERF_SAMPLE_TID) ? 8u : 0u));
}

}  // namespace perfx::record
