// Record type names and the known variable tails (perf's user records that
// carry payload past header.size).
#include "record/records.hpp"

#include <bit>
#include <cstring>
#include <vector>

#include "core/byte_reader.hpp"

namespace perfx::record {

std::string_view record_type_name(std::uint32_t type) noexcept {
  switch (type) {
    case PERF_RECORD_MMAP:
      return "MMAP";
    case PERF_RECORD_LOST:
      return "LOST";
    case PERF_RECORD_COMM:
      return "COMM";
    case PERF_RECORD_EXIT:
      return "EXIT";
    case PERF_RECORD_THROTTLE:
      return "THROTTLE";
    case PERF_RECORD_UNTHROTTLE:
      return "UNTHROTTLE";
    case PERF_RECORD_FORK:
      return "FORK";
    case PERF_RECORD_READ:
      return "READ";
    case PERF_RECORD_SAMPLE:
      return "SAMPLE";
    case PERF_RECORD_MMAP2:
      return "MMAP2";
    case PERF_RECORD_AUX:
      return "AUX";
    case PERF_RECORD_ITRACE_START:
      return "ITRACE_START";
    case PERF_RECORD_LOST_SAMPLES:
      return "LOST_SAMPLES";
    case PERF_RECORD_SWITCH:
      return "SWITCH";
    case PERF_RECORD_SWITCH_CPU_WIDE:
      return "SWITCH_CPU_WIDE";
    case PERF_RECORD_NAMESPACES:
      return "NAMESPACES";
    case PERF_RECORD_KSYMBOL:
      return "KSYMBOL";
    case PERF_RECORD_BPF_EVENT:
      return "BPF_EVENT";
    case PERF_RECORD_CGROUP:
      return "CGROUP";
    case PERF_RECORD_TEXT_POKE:
      return "TEXT_POKE";
    case PERF_RECORD_AUX_OUTPUT_HW_ID:
      return "AUX_OUTPUT_HW_ID";
    case raw::PERF_RECORD_HEADER_ATTR:
      return "ATTR";
    case raw::PERF_RECORD_HEADER_EVENT_TYPE:
      return "EVENT_TYPE";
    case raw::PERF_RECORD_HEADER_TRACING_DATA:
      return "TRACING_DATA";
    case raw::PERF_RECORD_HEADER_BUILD_ID:
      return "BUILD_ID";
    case raw::PERF_RECORD_FINISHED_ROUND:
      return "FINISHED_ROUND";
    case raw::PERF_RECORD_ID_INDEX:
      return "ID_INDEX";
    case raw::PERF_RECORD_AUXTRACE_INFO:
      return "AUXTRACE_INFO";
    case raw::PERF_RECORD_AUXTRACE:
      return "AUXTRACE";
    case raw::PERF_RECORD_AUXTRACE_ERROR:
      return "AUXTRACE_ERROR";
    case raw::PERF_RECORD_THREAD_MAP:
      return "THREAD_MAP";
    case raw::PERF_RECORD_CPU_MAP:
      return "CPU_MAP";
    case raw::PERF_RECORD_STAT_CONFIG:
      return "STAT_CONFIG";
    case raw::PERF_RECORD_STAT:
      return "STAT";
    case raw::PERF_RECORD_STAT_ROUND:
      return "STAT_ROUND";
    case raw::PERF_RECORD_EVENT_UPDATE:
      return "EVENT_UPDATE";
    case raw::PERF_RECORD_TIME_CONV:
      return "TIME_CONV";
    case raw::PERF_RECORD_HEADER_FEATURE:
      return "FEATURE";
    case raw::PERF_RECORD_COMPRESSED:
      return "COMPRESSED";
    case raw::PERF_RECORD_FINISHED_INIT:
      return "FINISHED_INIT";
    default:
      return "UNKNOWN";
  }
}

std::uint64_t trailing_payload_size(const Header& h, std::span<const std::byte> record,
                                    bool swap) noexcept {
  core::ByteReader r(record, swap);
  if (h.type == raw::PERF_RECORD_HEADER_TRACING_DATA) {
    r.skip(kHeaderSize);
    const std::uint64_t size = r.u32();
    if (!r.ok()) return 0;
    return (size + 7u) & ~std::uint64_t{7};  // perf pads the tracing data to 8
  }
  if (h.type == raw::PERF_RECORD_AUXTRACE) {
    r.skip(kHeaderSize);
    const std::uint64_t size = r.u64();
    return r.ok() ? size : 0;
  }
  return 0;
}

std::vector<int> CpuMap::cpus() const {
  // perf's cpu_map__new_data(): the three encodings of tools/lib/perf/include/perf/event.h.
  core::ByteReader r(data, swap);
  std::vector<int> out;
  auto cpu = [](std::uint64_t v) { return v == 0xffff ? -1 : static_cast<int>(v); };
  switch (map_type) {
    case 0: {  // PERF_CPU_MAP__CPUS
      const std::uint16_t nr = r.u16();
      for (std::uint16_t i = 0; i < nr && r.ok(); ++i) {
        const std::uint16_t c = r.u16();
        if (r.ok()) out.push_back(cpu(c));
      }
      break;
    }
    case 1: {  // PERF_CPU_MAP__MASK
      const std::uint16_t nr = r.u16();
      const std::uint16_t long_size = r.u16();
      if (long_size != 4 && long_size != 8) return {};
      if (long_size == 8) r.skip(4);
      for (std::uint16_t i = 0; i < nr && r.ok(); ++i) {
        const std::uint64_t mask = long_size == 4 ? r.u32() : r.u64();
        for (unsigned b = 0; b < 8u * long_size && r.ok(); ++b) {
          if ((mask >> b) & 1u) out.push_back(static_cast<int>(i * 8u * long_size + b));
        }
      }
      break;
    }
    case 2: {  // PERF_CPU_MAP__RANGE_CPUS
      const std::uint8_t any = r.u8();
      (void)r.u8();
      const std::uint16_t start = r.u16();
      const std::uint16_t end = r.u16();
      if (!r.ok() || end < start) return {};
      if (any != 0) out.push_back(-1);
      for (int c = start; c <= end; ++c) out.push_back(c);
      break;
    }
    default:
      return {};
  }
  if (!r.ok()) return {};
  return out;
}

std::string_view EventUpdate::text() const noexcept {
  if (data.empty()) return {};
  const auto* c = reinterpret_cast<const char*>(data.data());
  return std::string_view(c, strnlen(c, data.size()));
}

double EventUpdate::scale() const noexcept {
  core::ByteReader r(data, swap);
  const std::uint64_t bits = r.u64();
  return r.ok() ? std::bit_cast<double>(bits) : 0.0;
}

CpuMap EventUpdate::cpus() const noexcept {
  core::ByteReader r(data, swap);
  const std::uint16_t map_type = r.u16();
  if (!r.ok()) return CpuMap{0xffff, {}, swap};
  return CpuMap{map_type, data.subspan(2), swap};
}

}  // namespace perfx::record
