#include "core/huge_pages.hpp"

#include <gtest/gtest.h>

#include <algorithm>
#include <cstdint>
#include <numeric>
#include <vector>

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

TEST(HugeBlocks, AGivenBackBlockIsReusedByTheNextRequestItFits) {
  // A block given back is handed out again (its pages already faulted in), the
  // smallest that fits; one that fits nothing stays kept; the contents are the caller's.
  // (Sizes no other test uses: the kept blocks are the process's.)
  const std::size_t big = 11 * kHugePage;
  const std::size_t small = 9 * kHugePage;
  void* a = acquire_huge_block(big);
  void* b = acquire_huge_block(small);
  ASSERT_TRUE(aligned_to_huge_page(a));
  ASSERT_TRUE(aligned_to_huge_page(b));
  static_cast<char*>(a)[big - 1] = 'x';
  release_huge_block(a, big);
  release_huge_block(b, small);
  EXPECT_EQ(acquire_huge_block(small), b);  // the smallest kept block that fits
  void* again = acquire_huge_block(10 * kHugePage);
  EXPECT_EQ(again, a);
  EXPECT_EQ(static_cast<char*>(again)[big - 1], 'x');
  void* fresh = acquire_huge_block(12 * kHugePage);  // nothing kept is big enough
  EXPECT_NE(fresh, a);
  EXPECT_TRUE(aligned_to_huge_page(fresh));
  release_huge_block(again, 10 * kHugePage);
  release_huge_block(b, small);
  release_huge_block(fresh, 12 * kHugePage);
}

TEST(HugeBlocks, WhatIsKeptIsBounded) {
  // Given back, blocks are kept up to kKeptHugeBytes and freed beyond (ASan sees each
  // freed exactly once); taking one out lowers the count by its size.
  std::vector<void*> blocks;
  for (std::size_t i = 0; i < kKeptHugeBytes / kHugePage + 4; ++i)
    blocks.push_back(acquire_huge_block(kHugePage));
  const std::size_t before = kept_huge_bytes();
  for (void* b : blocks) release_huge_block(b, kHugePage);
  EXPECT_LE(kept_huge_bytes(), kKeptHugeBytes);
  EXPECT_GT(kept_huge_bytes(), before);
  const std::size_t full = kept_huge_bytes();
  void* again = acquire_huge_block(kHugePage);
  EXPECT_EQ(kept_huge_bytes(), full - kHugePage);
  release_huge_block(again, kHugePage);
  EXPECT_EQ(kept_huge_bytes(), full);
}

TEST(HugeBuffer, SmallAndLargeBuffersGoBackTheWayTheyCame) {
  auto small = allocate_huge(100);
  small[99] = 'a';
  auto large = allocate_huge(kHugePage + 1);  // two huge pages
  EXPECT_TRUE(aligned_to_huge_page(large.get()));
  large[2 * kHugePage - 1] = 'b';
  large.reset();
  small.reset();
}

}  // namespace
}  // namespace perfx::core
