#include "core/huge_pages.hpp"

#include <gtest/gtest.h>

#include <cstdint>
#include <numeric>

namespace perfx::core {
namespace {

bool aligned_to_huge_page(const void* p) {
  return reinterpret_cast<std::uintptr_t>(p) % kHugePage == 0;
}

TEST(HugeVector, LargeBlocksStartOnAHugePageSmallOnesAreOrdinary) {
  HugeVector<std::uint32_t> big;
  big.reserve(kHugePage / sizeof(std::uint32_t));  // 2 MiB: a huge-page block
  EXPECT_TRUE(aligned_to_huge_page(big.data()));
  HugeVector<std::uint32_t> small(16, 7);  // 64 bytes: std::allocator's
  EXPECT_EQ(small[15], 7u);
}

TEST(HugeVector, BehavesAsAVectorAcrossTheSizeThreshold) {
  // Growing from small blocks into huge ones and back (copies, shrink) keeps the values,
  // and each block goes back to the allocator that made it (ASan checks the pairing).
  HugeVector<std::uint64_t> v;
  for (std::uint64_t i = 0; i < 600000; ++i) v.push_back(i);  // 4.8 MB at the end
  EXPECT_TRUE(aligned_to_huge_page(v.data()));
  EXPECT_EQ(std::accumulate(v.begin(), v.end(), std::uint64_t{0}), 599999ull * 600000 / 2);
  HugeVector<std::uint64_t> copy = v;
  EXPECT_EQ(copy, v);
  v.resize(10);
  v.shrink_to_fit();
  EXPECT_EQ(v.back(), 9u);
  copy.clear();
  copy.shrink_to_fit();
  EXPECT_TRUE(copy.empty());
}

}  // namespace
}  // namespace perfx::core
