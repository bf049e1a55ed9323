#include "core/byte_reader.hpp"

#include <gtest/gtest.h>

#include <array>
#include <limits>

namespace perfx::core {
namespace {

std::span<const std::byte> as_bytes(const auto& arr) { return std::as_bytes(std::span(arr)); }

TEST(ByteReader, ReadsLittleEndianIntegers) {
  const std::array<unsigned char, 12> raw{1, 0, 0, 0, 2, 0, 0, 0, 0, 0, 0, 0};
  ByteReader r(as_bytes(raw));
  EXPECT_EQ(r.u32(), 1u);
  EXPECT_EQ(r.u64(), 2u);
  EXPECT_TRUE(r.ok());
  EXPECT_TRUE(r.at_end());
}

TEST(ByteReader, SwapsWhenAsked) {
  const std::array<unsigned char, 4> raw{0, 0, 0, 7};
  ByteReader r(as_bytes(raw), /*swap=*/true);
  EXPECT_EQ(r.u32(), 7u);
}

TEST(ByteReader, FailureIsSticky) {
  const std::array<unsigned char, 6> raw{1, 2, 3, 4, 5, 6};
  ByteReader r(as_bytes(raw));
  EXPECT_EQ(r.u64(), 0u);
  EXPECT_FALSE(r.ok());
  EXPECT_EQ(r.u8(), 0u);  // even though bytes exist, the reader stays failed
  EXPECT_FALSE(r.ok());
}

TEST(ByteReader, HugeArrayCountDoesNotOverflow) {
  const std::array<unsigned char, 16> raw{};
  ByteReader r(as_bytes(raw));
  auto s = r.take_array(std::numeric_limits<std::uint64_t>::max() / 4, 8);
  EXPECT_TRUE(s.empty());
  EXPECT_FALSE(r.ok());
}

TEST(ByteReader, CStringMustEndInsideBound) {
  const std::array<char, 8> good{'a', 'b', 'c', '\0', 'x', 'x', 'x', 'x'};
  ByteReader r1(as_bytes(good));
  EXPECT_EQ(r1.cstring_in(8), "abc");
  EXPECT_TRUE(r1.at_end());
  const std::array<char, 4> bad{'a', 'b', 'c', 'd'};
  ByteReader r2(as_bytes(bad));
  EXPECT_EQ(r2.cstring_in(4), "");
  EXPECT_FALSE(r2.ok());
}

}  // namespace
}  // namespace perfx::core
