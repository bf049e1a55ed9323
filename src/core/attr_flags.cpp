// The PERF_SAMPLE_* and PERF_FORMAT_* names, shared by the attr dump and the event-description
// printer.
#include <fmt/format.h>

#include "core/attr_flags.hpp"

namespace perfx::core {

std::string bit_names(std::uint64_t value, std::span<const BitName> names, bool show_unknown) {
  std::string out;
  for (const auto& [bit, name] : names) {
    if (value & bit) {
      if (!out.empty()) out += '|';
      out += name;
      value &= ~bit;
    }
  }
  if (show_unknown && value != 0) out += fmt::format("{}{:#x}", out.empty() ? "" : "|", value);
  return out;
}

std::string sample_type_names(std::uint64_t st) {
  static constexpr BitName kBits[] = {
      {PERF_SAMPLE_IP, "IP"},
      {PERF_SAMPLE_TID, "TID"},
      {PERF_SAMPLE_TIME, "TIME"},
      {PERF_SAMPLE_ADDR, "ADDR"},
      {PERF_SAMPLE_READ, "READ"},
      {PERF_SAMPLE_CALLCHAIN, "CALLCHAIN"},
      {PERF_SAMPLE_ID, "ID"},
      {PERF_SAMPLE_CPU, "CPU"},
      {PERF_SAMPLE_PERIOD, "PERIOD"},
      {PERF_SAMPLE_STREAM_ID, "STREAM_ID"},
      {PERF_SAMPLE_RAW, "RAW"},
      {PERF_SAMPLE_BRANCH_STACK, "BRANCH_STACK"},
      {PERF_SAMPLE_REGS_USER, "REGS_USER"},
      {PERF_SAMPLE_STACK_USER, "STACK_USER"},
      {PERF_SAMPLE_WEIGHT, "WEIGHT"},
      {PERF_SAMPLE_DATA_SRC, "DATA_SRC"},
      {PERF_SAMPLE_IDENTIFIER, "IDENTIFIER"},
      {PERF_SAMPLE_TRANSACTION, "TRANSACTION"},
      {PERF_SAMPLE_REGS_INTR, "REGS_INTR"},
      {PERF_SAMPLE_PHYS_ADDR, "PHYS_ADDR"},
      {PERF_SAMPLE_AUX, "AUX"},
      {PERF_SAMPLE_CGROUP, "CGROUP"},
      {PERF_SAMPLE_DATA_PAGE_SIZE, "DATA_PAGE_SIZE"},
      {PERF_SAMPLE_CODE_PAGE_SIZE, "CODE_PAGE_SIZE"},
      {PERF_SAMPLE_WEIGHT_STRUCT, "WEIGHT_STRUCT"},
  };
  return bit_names(st, kBits, true);
}

std::string read_format_names(std::uint64_t read_format) {
  return bit_names(read_format, kReadFormatBits, false);
}

}  // namespace perfx::core
