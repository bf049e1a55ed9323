// perfx/regs.hpp: register numbers, names, and finding a register in a sampled set.

#include <gtest/gtest.h>

#include <array>
#include <cstdint>

#include "core/x86_regs.hpp"
#include "perfx/regs.hpp"

namespace perfx {
namespace {

TEST(Regs, ValueByMask) {
  // Mask AX(0) | SP(7) | IP(8) | R15(23): the kernel writes their values in bit order.
  const std::uint64_t mask = (1ULL << 0) | (1ULL << 7) | (1ULL << 8) | (1ULL << 23);
  const std::array<std::uint64_t, 4> values{0xa0, 0x5b, 0x1b, 0xf15};
  EXPECT_EQ(reg_value(mask, values, X86Reg::kAx), 0xa0u);
  EXPECT_EQ(reg_value(mask, values, X86Reg::kSp), 0x5bu);
  EXPECT_EQ(reg_value(mask, values, X86Reg::kIp), 0x1bu);
  EXPECT_EQ(reg_value(mask, values, X86Reg::kR15), 0xf15u);
  EXPECT_FALSE(reg_value(mask, values, X86Reg::kBx).has_value());  // not sampled
  // Fewer values than the mask promises: no out-of-bounds read.
  EXPECT_FALSE(reg_value(mask, std::span(values).first(3), X86Reg::kR15).has_value());
  // perf's default x86-64 mask: IP is the 9th value.
  std::array<std::uint64_t, 20> all{};
  for (std::size_t i = 0; i < all.size(); ++i) all[i] = i;
  EXPECT_EQ(reg_value(kX86_64RegsMask, all, X86Reg::kIp), 8u);
  EXPECT_EQ(reg_value(kX86_64RegsMask, all, X86Reg::kR8), 12u);  // CS, SS then R8
  static_assert(reg_value(1, std::span<const std::uint64_t>{}, X86Reg::kAx) == std::nullopt);
}

TEST(Regs, NamesBothWays) {
  EXPECT_EQ(x86_64_reg_name(static_cast<unsigned>(X86Reg::kFlags)), "FLAGS");
  EXPECT_EQ(x86_64_reg_name(34), "XMM1");
  EXPECT_EQ(x86_64_reg_name(33), "unknown");
  EXPECT_EQ(x86_64_reg_from_name("ip"), X86Reg::kIp);
  EXPECT_EQ(x86_64_reg_from_name("R15"), X86Reg::kR15);
  EXPECT_EQ(x86_64_reg_from_name("xmm1"), static_cast<X86Reg>(34));
  EXPECT_FALSE(x86_64_reg_from_name("unknown").has_value());
  EXPECT_FALSE(x86_64_reg_from_name("rax").has_value());
  // The internal names are the public table, not a copy.
  EXPECT_EQ(&core::x86_64_reg_name, &perfx::x86_64_reg_name);
  static_assert(core::kX86_64RegsMask == perfx::kX86_64RegsMask);
}

}  // namespace
}  // namespace perfx
