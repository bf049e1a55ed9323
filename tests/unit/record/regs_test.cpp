// record/regs: perf's x86-64 register names, register lists and script text.
#include <gtest/gtest.h>

#include <vector>

#include "record/regs.hpp"

namespace perfx::record {
namespace {

TEST(Regs, NamesFollowPerfsBits) {
  EXPECT_EQ(core::x86_64_reg_name(0), "AX");
  EXPECT_EQ(core::x86_64_reg_name(8), "IP");
  EXPECT_EQ(core::x86_64_reg_name(9), "FLAGS");
  EXPECT_EQ(core::x86_64_reg_name(23), "R15");
  EXPECT_EQ(core::x86_64_reg_name(34), "XMM1");
  EXPECT_EQ(core::x86_64_reg_name(33), "unknown");
}

TEST(Regs, ListsParseAnyCaseAndDefaultToPerfsMask) {
  EXPECT_EQ(*parse_x86_64_regs(""), core::kX86_64RegsMask);
  EXPECT_EQ(*parse_x86_64_regs("ip,sp,bp"), (1u << 8) | (1u << 7) | (1u << 6));
  EXPECT_EQ(*parse_x86_64_regs("AX,r15"), (1u << 0) | (1u << 23));
  auto bad = parse_x86_64_regs("ax,es");  // ES is not in perf's mask
  ASSERT_FALSE(bad);
  EXPECT_NE(bad.error().message().find("'es'"), std::string::npos);
  EXPECT_NE(bad.error().message().find("R15"), std::string::npos);
}

TEST(Regs, ScriptTextAsPerf) {
  const std::vector<std::uint64_t> values = {0x10, 0x0, 0x7fff1234};
  Regs r;
  r.abi = 2;
  r.mask = (1u << 0) | (1u << 9) | (1u << 18);  // AX, FLAGS, R10
  r.regs = U64Array::of(values);
  EXPECT_EQ(format_regs(r), " ABI:2    AX:0x10 FLAGS:0x0   R10:0x7fff1234 ");
  EXPECT_EQ(format_regs(Regs{}), "");
}

}  // namespace
}  // namespace perfx::record
