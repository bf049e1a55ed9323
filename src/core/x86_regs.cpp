#include "core/x86_regs.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <cctype>
#include <string>

#include "core/error_format.hpp"

namespace perfx::core {
namespace {

bool same_name(std::string_view a, std::string_view b) {
  return a.size() == b.size() && std::equal(a.begin(), a.end(), b.begin(), [](char x, char y) {
           return std::toupper(static_cast<unsigned char>(x)) == y;
         });
}

}  // namespace

Result<std::uint64_t> parse_x86_64_regs(std::string_view list) {
  if (list.empty()) return kX86_64RegsMask;
  std::uint64_t mask = 0;
  while (!list.empty()) {
    const auto comma = list.find(',');
    const std::string_view name = list.substr(0, comma);
    list = comma == std::string_view::npos ? std::string_view{} : list.substr(comma + 1);
    if (name.empty()) continue;
    bool found = false;
    for (unsigned bit = 0; bit < 64 && !found; ++bit) {
      if (!((kX86_64RegsMask >> bit) & 1u)) continue;
      if (same_name(name, x86_64_reg_name(bit))) {
        mask |= std::uint64_t{1} << bit;
        found = true;
      }
    }
    if (!found) {
      std::string known;
      for (unsigned bit = 0; bit < 64; ++bit)
        if ((kX86_64RegsMask >> bit) & 1u) known += fmt::format(" {}", x86_64_reg_name(bit));
      return fail(Errc::kInvalidArgument, "unknown register '{}' (available:{})", name, known);
    }
  }
  return mask;
}

}  // namespace perfx::core
