// symbol::Disassembler (libopcodes): objdump's text for known x86-64 bytes, in AT&T and
// Intel syntax, addresses named by the caller, and bytes that decode to nothing.
#include <gtest/gtest.h>

#include <cstdint>
#include <vector>

#include "symbol/disassembler.hpp"

namespace perfx::symbol {
namespace {

std::vector<std::string> texts(const std::vector<Instruction>& insns) {
  std::vector<std::string> out;
  for (const auto& i : insns) out.push_back(i.text);
  return out;
}

TEST(Disassembler, AttSyntaxAsObjdump) {
  auto dis = Disassembler::open("x86_64", AsmSyntax::kAtt);
  ASSERT_TRUE(dis) << dis.error().message();
  // mov %rdi,%rax; add $0x1,%rdx; ret
  const std::vector<std::uint8_t> code = {0x48, 0x89, 0xf8, 0x48, 0x83, 0xc2, 0x01, 0xc3};
  const auto insns = dis->disassemble(code, 0x1000);
  ASSERT_EQ(insns.size(), 3u);
  EXPECT_EQ(texts(insns),
            (std::vector<std::string>{"mov    %rdi,%rax", "add    $0x1,%rdx", "ret"}));
  EXPECT_EQ(insns[0].address, 0x1000u);
  EXPECT_EQ(insns[1].address, 0x1003u);
  EXPECT_EQ(insns[1].size, 4u);
  EXPECT_EQ(insns[2].address, 0x1007u);
}

TEST(Disassembler, IntelSyntax) {
  auto dis = Disassembler::open("x86_64", AsmSyntax::kIntel);
  ASSERT_TRUE(dis);
  const std::vector<std::uint8_t> code = {0x48, 0x89, 0xf8};
  EXPECT_EQ(texts(dis->disassemble(code, 0)), std::vector<std::string>{"mov    rax,rdi"});
}

TEST(Disassembler, NamesBranchTargets) {
  auto dis = Disassembler::open("", AsmSyntax::kAtt);
  ASSERT_TRUE(dis);
  // 0x2000: jne 0x2000 (75 fe); 0x2002: call 0x2000 (e8 f9 ff ff ff)
  const std::vector<std::uint8_t> code = {0x75, 0xfe, 0xe8, 0xf9, 0xff, 0xff, 0xff};
  auto namer = [](std::uint64_t a) -> std::optional<std::string> {
    if (a == 0x2000) return std::string("spin");
    return std::nullopt;
  };
  EXPECT_EQ(texts(dis->disassemble(code, 0x2000, namer)),
            (std::vector<std::string>{"jne    2000 <spin>", "call   2000 <spin>"}));
  EXPECT_EQ(texts(dis->disassemble(code, 0x2000)),
            (std::vector<std::string>{"jne    2000", "call   2000"}));
}

TEST(Disassembler, UndecodableBytesAreBadAndCovered) {
  auto dis = Disassembler::open("x86_64", AsmSyntax::kAtt);
  ASSERT_TRUE(dis);
  // 0x06 (push %es) does not exist in 64-bit mode; a truncated mov follows.
  const std::vector<std::uint8_t> code = {0x06, 0xc3, 0x48, 0x89};
  const auto insns = dis->disassemble(code, 0);
  ASSERT_FALSE(insns.empty());
  EXPECT_EQ(insns[0].text, "(bad)");
  std::uint64_t covered = 0;
  for (const auto& i : insns) {
    EXPECT_EQ(i.address, covered);
    covered += i.size;
  }
  EXPECT_EQ(covered, code.size());
}

TEST(Disassembler, UnknownArchIsNamed) {
  auto dis = Disassembler::open("pdp11", AsmSyntax::kAtt);
  ASSERT_FALSE(dis);
  EXPECT_EQ(dis.error().code(), Errc::kNotSupported);
  EXPECT_NE(dis.error().message().find("pdp11"), std::string::npos);
}

}  // namespace
}  // namespace perfx::symbol
