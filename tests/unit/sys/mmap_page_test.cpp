// The metadata page view on simulated pages: every field, the header-size rule, the
// seqlock against a concurrent writer, and a count that never settles.

#include <gtest/gtest.h>

#include <atomic>
#include <chrono>
#include <thread>

#include "fake_mmap_page.hpp"
#include "perfx/mmap_page.hpp"

namespace perfx {
namespace {

using testing::FakeMmapPage;

TEST(MmapCapabilities, SplitsEveryBit) {
  const auto none = MmapCapabilities::from_bits(0);
  EXPECT_FALSE(none.bit0 || none.bit0_is_deprecated || none.user_rdpmc || none.user_time ||
               none.user_time_zero || none.user_time_short);
  const auto c = MmapCapabilities::from_bits(0b101110);
  EXPECT_FALSE(c.bit0);
  EXPECT_TRUE(c.bit0_is_deprecated);
  EXPECT_TRUE(c.user_rdpmc);
  EXPECT_TRUE(c.user_time);
  EXPECT_FALSE(c.user_time_zero);
  EXPECT_TRUE(c.user_time_short);
  EXPECT_EQ(c.bits, 0b101110u);
  EXPECT_TRUE(MmapCapabilities::from_bits(1).bit0);
  EXPECT_TRUE(MmapCapabilities::from_bits(1ULL << 4).user_time_zero);
}

TEST(MmapPageView, SnapshotCopiesEveryField) {
  FakeMmapPage f;
  auto& p = f.page;
  p.version = 1;
  p.compat_version = 2;
  p.lock = 6;
  p.index = 3;
  p.offset = -12345;
  p.time_enabled = 1000;
  p.time_running = 900;
  f.set_caps(true, true, true, true);
  p.pmc_width = 48;
  p.time_shift = 31;
  p.time_mult = 858993459;
  p.time_offset = 77;
  p.time_zero = 0xfffffe0000000000ULL;
  p.size = 96;
  p.time_cycles = 0x1000;
  p.time_mask = 0xffffffff;
  p.data_head = 4096 * 3 + 8;
  p.data_tail = 4096;
  p.data_offset = 4096;
  p.data_size = 4096 * 8;
  p.aux_head = 11;
  p.aux_tail = 5;
  p.aux_offset = 4096 * 9;
  p.aux_size = 4096 * 4;

  auto s = f.view().snapshot();
  ASSERT_TRUE(s) << s.error().message();
  EXPECT_EQ(s->version, 1u);
  EXPECT_EQ(s->compat_version, 2u);
  EXPECT_EQ(s->lock, 6u);
  EXPECT_EQ(s->retries, 0u);
  EXPECT_EQ(s->index, 3u);
  EXPECT_EQ(s->offset, -12345);
  EXPECT_EQ(s->time_enabled, 1000u);
  EXPECT_EQ(s->time_running, 900u);
  EXPECT_TRUE(s->capabilities.user_rdpmc);
  EXPECT_TRUE(s->capabilities.user_time_short);
  EXPECT_EQ(s->pmc_width, 48u);
  EXPECT_EQ(s->time_shift, 31u);
  EXPECT_EQ(s->time_mult, 858993459u);
  EXPECT_EQ(s->time_offset, 77u);
  EXPECT_EQ(s->time_zero, 0xfffffe0000000000ULL);
  EXPECT_EQ(s->size, 96u);
  EXPECT_EQ(s->time_cycles, 0x1000u);
  EXPECT_EQ(s->time_mask, 0xffffffffu);
  EXPECT_EQ(s->data_head, 4096u * 3 + 8);
  EXPECT_EQ(s->data_tail, 4096u);
  EXPECT_EQ(s->data_offset, 4096u);
  EXPECT_EQ(s->data_size, 4096u * 8);
  EXPECT_EQ(s->aux_head, 11u);
  EXPECT_EQ(s->aux_tail, 5u);
  EXPECT_EQ(s->aux_offset, 4096u * 9);
  EXPECT_EQ(s->aux_size, 4096u * 4);
}

TEST(MmapPageView, FieldsPastTheHeaderSizeAreNotData) {
  FakeMmapPage f;
  f.page.size = 64;  // a kernel whose header ends before time_zero
  f.page.time_zero = 5;
  f.page.time_cycles = 9;
  f.page.time_mask = 9;
  auto s = f.view().snapshot();
  ASSERT_TRUE(s);
  EXPECT_EQ(s->time_zero, 0u);
  f.page.size = 72;  // ... that ends after time_zero, before time_cycles/time_mask
  s = f.view().snapshot();
  ASSERT_TRUE(s);
  EXPECT_EQ(s->time_zero, 5u);
  EXPECT_EQ(s->time_cycles, 0u);
  EXPECT_EQ(s->time_mask, 0u);
  f.page.size = 0;  // older kernels did not fill size: keep everything
  s = f.view().snapshot();
  ASSERT_TRUE(s);
  EXPECT_EQ(s->time_cycles, 9u);
}

TEST(MmapPageView, TailsAndAuxAreaAreWrittenToThePage) {
  FakeMmapPage f;
  auto v = f.view();
  v.set_data_tail(4096);
  v.set_aux_tail(128);
  v.set_aux_area(4096 * 9, 4096 * 4);
  EXPECT_EQ(f.page.data_tail, 4096u);
  EXPECT_EQ(f.page.aux_tail, 128u);
  EXPECT_EQ(f.page.aux_offset, 4096u * 9);
  EXPECT_EQ(f.page.aux_size, 4096u * 4);
  f.page.data_head = 99;
  f.page.aux_head = 42;
  EXPECT_EQ(v.data_head(), 99u);
  EXPECT_EQ(v.aux_head(), 42u);
  EXPECT_EQ(v.data_tail(), 4096u);
  EXPECT_EQ(v.aux_tail(), 128u);
}

TEST(MmapPageView, EmptyViewIsAnError) {
  MmapPageView v;
  EXPECT_FALSE(v.valid());
  auto s = v.snapshot();
  ASSERT_FALSE(s);
  EXPECT_EQ(s.error().code(), Errc::kInvalidArgument);
}

TEST(MmapPageView, CountThatStaysOddIsReportedNotSpunOnForever) {
  FakeMmapPage f;
  f.page.lock = 7;  // a writer that never finishes
  auto s = f.view().snapshot();
  ASSERT_FALSE(s);
  EXPECT_EQ(s.error().code(), Errc::kMalformedData);
  EXPECT_NE(s.error().message().find("seqlock"), std::string::npos);
}

// A writer thread updates the page continuously, leaving it torn between its two lock
// increments (each field derived from one generation number k). Every snapshot must come
// from one generation, and the reader must have had to retry at least once.
TEST(MmapPageView, SeqlockNeverReturnsATornPageUnderAConcurrentWriter) {
  FakeMmapPage f;
  std::atomic<bool> stop{false};
  std::thread writer([&f, &stop] {
    for (std::uint64_t k = 1; !stop.load(std::memory_order_relaxed); ++k) {
      f.begin_update();
      FakeMmapPage::put(f.page.time_enabled, 2 * k);
      FakeMmapPage::put(f.page.index, static_cast<std::uint32_t>(k));
      for (int spin = 0; spin < 50; ++spin) {  // widen the torn window
        (void)__atomic_load_n(&f.page.lock, __ATOMIC_RELAXED);
      }
      FakeMmapPage::put(f.page.time_running, k);
      FakeMmapPage::put(f.page.offset, -static_cast<std::int64_t>(k));
      f.end_update();
    }
  });
  std::uint64_t retries = 0;
  std::uint64_t snapshots = 0;
  const auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(10);
  bool torn = false;
  while ((snapshots < 20000 || retries == 0) && std::chrono::steady_clock::now() < deadline) {
    auto s = f.view().snapshot();
    if (!s) {
      // The writer thread was preempted between its two increments for longer than
      // kMaxSeqlockRetries attempts (a kernel writer never is): not a torn read.
      ASSERT_EQ(s.error().code(), Errc::kMalformedData) << s.error().message();
      continue;
    }
    ++snapshots;
    retries += s->retries;
    EXPECT_EQ(s->lock % 2, 0u);
    const std::uint64_t k = s->time_running;
    if (s->time_enabled != 2 * k || s->index != static_cast<std::uint32_t>(k) ||
        s->offset != -static_cast<std::int64_t>(k)) {
      torn = true;
      break;
    }
  }
  stop = true;
  writer.join();
  EXPECT_FALSE(torn) << "a snapshot mixed two updates";
  EXPECT_GT(retries, 0u) << "the writer never overlapped a read in " << snapshots << " reads";
}

}  // namespace
}  // namespace perfx
