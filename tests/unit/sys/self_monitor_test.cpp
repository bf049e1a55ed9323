// The man page's self-monitoring loop (read_page_count) on simulated pages, with fake
// rdpmc/rdtsc functions: sign extension from pmc_width, the offset, the TSC time delta,
// the integer scaling, and the seqlock retry when the "kernel" updates the page mid-read.

#include <gtest/gtest.h>

#include <cstdint>

#include "fake_mmap_page.hpp"
#include "perfx/self_monitor.hpp"

namespace perfx {
namespace {

using testing::FakeMmapPage;

// State the captureless fake readers share (CounterReaders takes plain function pointers).
struct FakeHardware {
  std::uint64_t pmc_value = 0;
  std::uint32_t last_counter = ~0U;
  int pmc_calls = 0;
  std::uint64_t tsc_value = 0;
  int tsc_calls = 0;
  FakeMmapPage* page = nullptr;  // when set, the first rdpmc plays a kernel update
  std::int64_t offset_after_update = 0;
};
FakeHardware g_hw;

std::uint64_t fake_rdpmc(std::uint32_t counter) {
  g_hw.last_counter = counter;
  ++g_hw.pmc_calls;
  if (g_hw.page != nullptr && g_hw.pmc_calls == 1) {
    // An interrupt on this CPU updates the page between our loads (the counter was
    // reprogrammed, so the kernel folded its value into `offset`).
    g_hw.page->begin_update();
    FakeMmapPage::put(g_hw.page->page.offset, g_hw.offset_after_update);
    g_hw.page->end_update();
  }
  return g_hw.pmc_value;
}

std::uint64_t fake_rdtsc() {
  ++g_hw.tsc_calls;
  return g_hw.tsc_value;
}

CounterReaders fakes() {
  CounterReaders r;
  r.read_pmc = fake_rdpmc;
  r.read_tsc = fake_rdtsc;
  return r;
}

class SelfMonitorLoop : public ::testing::Test {
 protected:
  void SetUp() override { g_hw = FakeHardware{}; }
  FakeMmapPage f;
};

TEST(SignExtendPmc, FollowsTheWidth) {
  EXPECT_EQ(sign_extend_pmc(0xffffffffffffULL, 48), -1);
  EXPECT_EQ(sign_extend_pmc(0x800000000000ULL, 48), -(std::int64_t{1} << 47));
  EXPECT_EQ(sign_extend_pmc(0x7fffffffffffULL, 48), (std::int64_t{1} << 47) - 1);
  EXPECT_EQ(sign_extend_pmc(0xabcd000000000005ULL, 40), 5);  // bits above the width dropped
  EXPECT_EQ(sign_extend_pmc(0xff00000000ULL, 40), -(std::int64_t{1} << 32));
  EXPECT_EQ(sign_extend_pmc(0xfffffffffffffff0ULL, 64), -16);
  EXPECT_EQ(sign_extend_pmc(1234, 0), 1234);  // width unknown: as is
}

TEST(PageCountScaling, IntegerFormulaWithoutOverflow) {
  PageCount pc;
  pc.count = 1000;
  pc.enabled = 3000;
  pc.running = 1000;
  EXPECT_EQ(pc.scaled(), 3000u);
  pc.count = 1001;  // rem * enabled / running: 1001 * 3 = 3003
  EXPECT_EQ(pc.scaled(), 3003u);
  pc.count = std::uint64_t{1} << 40;  // count * enabled would need 81 bits
  pc.enabled = std::uint64_t{1} << 40;
  pc.running = std::uint64_t{1} << 39;
  EXPECT_EQ(pc.scaled(), std::uint64_t{1} << 41);
  pc.running = 0;  // never ran: nothing to scale by
  EXPECT_EQ(pc.scaled(), std::uint64_t{1} << 40);
}

TEST_F(SelfMonitorLoop, RdpmcValueIsSignExtendedAndAddedToOffset) {
  f.set_caps(/*rdpmc=*/true, false, false, false);
  f.page.index = 3;
  f.page.offset = 10000;
  f.page.pmc_width = 48;
  f.page.time_enabled = 500;
  f.page.time_running = 500;
  g_hw.pmc_value = (std::uint64_t{1} << 48) - 100;  // -100 in 48 bits
  auto pc = read_page_count(f.view(), fakes());
  ASSERT_TRUE(pc) << pc.error().message();
  EXPECT_TRUE(pc->used_rdpmc);
  EXPECT_EQ(g_hw.last_counter, 2u);  // rdpmc(index - 1)
  EXPECT_EQ(pc->count, 9900u);
  EXPECT_EQ(pc->index, 3u);
  EXPECT_EQ(pc->retries, 0u);
  EXPECT_FALSE(pc->used_tsc);  // enabled == running: no delta needed
  EXPECT_EQ(g_hw.tsc_calls, 0);
  EXPECT_EQ(pc->enabled, 500u);
  EXPECT_EQ(pc->running, 500u);
}

TEST_F(SelfMonitorLoop, NegativeOffsetPlusLargeCounterValue) {
  // The kernel keeps offset = count - (counter value at programming), usually negative.
  f.set_caps(true, false, false, false);
  f.page.index = 1;
  f.page.offset = -(std::int64_t{1} << 40);
  f.page.pmc_width = 48;
  g_hw.pmc_value = (std::uint64_t{1} << 40) + 777;
  auto pc = read_page_count(f.view(), fakes());
  ASSERT_TRUE(pc);
  EXPECT_EQ(pc->count, 777u);
  EXPECT_EQ(g_hw.last_counter, 0u);
}

TEST_F(SelfMonitorLoop, NoCapabilityOrIndexZeroNeverExecutesRdpmc) {
  f.page.index = 2;
  f.page.offset = 4242;
  f.set_caps(/*rdpmc=*/false, false, false, false);
  auto pc = read_page_count(f.view(), fakes());
  ASSERT_TRUE(pc);
  EXPECT_FALSE(pc->used_rdpmc);
  EXPECT_EQ(pc->count, 4242u);
  EXPECT_EQ(g_hw.pmc_calls, 0);

  f.set_caps(/*rdpmc=*/true, false, false, false);
  f.page.index = 0;  // not on a counter right now
  pc = read_page_count(f.view(), fakes());
  ASSERT_TRUE(pc);
  EXPECT_FALSE(pc->used_rdpmc);
  EXPECT_EQ(g_hw.pmc_calls, 0);

  CounterReaders none;  // no instruction available (non-x86 build)
  f.page.index = 2;
  pc = read_page_count(f.view(), none);
  ASSERT_TRUE(pc);
  EXPECT_FALSE(pc->used_rdpmc);
}

TEST_F(SelfMonitorLoop, TimeDeltaFromTscWhenMultiplexed) {
  f.set_caps(/*rdpmc=*/true, /*time=*/true, false, false);
  f.page.index = 1;
  f.page.offset = 0;
  f.page.pmc_width = 48;
  f.page.time_enabled = 1000;
  f.page.time_running = 500;
  f.page.time_shift = 2;
  f.page.time_mult = 6;  // 1.5 ns per cycle
  f.page.time_offset = 100;
  g_hw.pmc_value = 600;
  g_hw.tsc_value = 1001;  // quot 250, rem 1: delta = 100 + 250*6 + (1*6 >> 2) = 1601
  auto pc = read_page_count(f.view(), fakes());
  ASSERT_TRUE(pc);
  EXPECT_TRUE(pc->used_tsc);
  EXPECT_EQ(g_hw.tsc_calls, 1);
  EXPECT_EQ(pc->enabled, 1000u + 1601u);
  EXPECT_EQ(pc->running, 500u + 1601u);
  EXPECT_EQ(pc->count, 600u);
  // 600 * 2601 / 2101 = 742.79...: quot 0, rem 600 -> 600 * 2601 / 2101 = 742
  EXPECT_EQ(pc->scaled(), 742u);

  f.page.index = 0;  // off its counter: running does not advance, enabled does
  pc = read_page_count(f.view(), fakes());
  ASSERT_TRUE(pc);
  EXPECT_EQ(pc->enabled, 1000u + 1601u);
  EXPECT_EQ(pc->running, 500u);
}

TEST_F(SelfMonitorLoop, SeqlockRetriesWhenTheKernelUpdatesMidRead) {
  f.set_caps(true, false, false, false);
  f.page.lock = 10;
  f.page.index = 2;
  f.page.offset = 1000;  // stale after the update
  f.page.pmc_width = 48;
  g_hw.pmc_value = 5;
  g_hw.page = &f;
  g_hw.offset_after_update = 2000;
  auto pc = read_page_count(f.view(), fakes());
  ASSERT_TRUE(pc);
  EXPECT_EQ(pc->retries, 1u);
  EXPECT_EQ(g_hw.pmc_calls, 2);
  EXPECT_EQ(pc->count, 2005u);  // the first attempt's 1005 was thrown away
  EXPECT_EQ(f.page.lock, 12u);
}

TEST_F(SelfMonitorLoop, EmptyViewIsAnError) {
  auto pc = read_page_count(MmapPageView(), fakes());
  ASSERT_FALSE(pc);
  EXPECT_EQ(pc.error().code(), Errc::kInvalidArgument);
}

TEST(RdpmcUnavailableName, EveryReasonHasAName) {
  for (auto why :
       {RdpmcUnavailable::kNone, RdpmcUnavailable::kNotX86, RdpmcUnavailable::kSoftwareEvent,
        RdpmcUnavailable::kNoPmu, RdpmcUnavailable::kOtherTask, RdpmcUnavailable::kNoCapability,
        RdpmcUnavailable::kIndexZero, RdpmcUnavailable::kNotMapped}) {
    EXPECT_STRNE(rdpmc_unavailable_name(why), "unknown");
  }
}

}  // namespace
}  // namespace perfx
