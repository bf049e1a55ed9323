#include "record/regs.hpp"

#include <fmt/format.h>

namespace perfx::record {
std::string format_regs(const Regs& regs) {
  if (regs.abi == 0) return {};
  std::string out = fmt::format(" ABI:{} ", regs.abi);
  std::size_t i = 0;
  for (unsigned bit = 0; bit < 64 && i < regs.regs.size(); ++bit) {
    if (!((regs.mask >> bit) & 1u)) continue;
    out += fmt::format("{:>5}:{:#x} ", core::x86_64_reg_name(bit), regs.regs[i++]);
  }
  return out;
}

}  // namespace perfx::record
