#pragma once
/// \file
/// perf prints addresses with C's "%#018llx": "0x" and 16 digits, except that C drops the
/// "0x" of a zero ("0000000000000000"). fmt's "{:#018x}" keeps it; this does as C does.

#include <cstdint>
#include <string>

#include <fmt/format.h>

namespace perfx::core {

/// C's "%#llx": "0x" and the digits, a zero as "0".
[[nodiscard]] inline std::string c_alt_hex(std::uint64_t v) {
  return v == 0 ? std::string("0") : fmt::format("{:#x}", v);
}

[[nodiscard]] inline std::string c_alt_hex18(std::uint64_t v) {
  return v == 0 ? std::string(16, '0') : fmt::format("{:#018x}", v);
}

}  // namespace perfx::core
