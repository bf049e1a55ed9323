// Building a TimeConverter from a simulated metadata page: the page's parameters are
// used, the reference point is taken now (the real TSC and clock_gettime), and a page
// without cap_user_time_zero or with a zero time_mult is refused with the reason.

#include <gtest/gtest.h>

#include <time.h>

#include "fake_mmap_page.hpp"
#include "perfx/self_monitor.hpp"
#include "perfx/time_conv.hpp"

namespace perfx {
namespace {

using testing::FakeMmapPage;

std::uint64_t mono_now() {
  timespec ts{};
  ::clock_gettime(CLOCK_MONOTONIC, &ts);
  return static_cast<std::uint64_t>(ts.tv_sec) * 1'000'000'000ULL +
         static_cast<std::uint64_t>(ts.tv_nsec);
}

TEST(TimeConverterFromPage, RefusesAPageWithoutTimeZero) {
  FakeMmapPage f;
  f.set_caps(false, true, /*time_zero=*/false, false);
  f.page.time_mult = 100;
  auto conv = time_converter_for_perf_clock(f.view());
  ASSERT_FALSE(conv);
  EXPECT_EQ(conv.error().code(), Errc::kNotSupported);
  EXPECT_NE(conv.error().message().find("cap_user_time_zero is 0"), std::string::npos);
  EXPECT_NE(conv.error().message().find("set_sample_clock"), std::string::npos);

  f.set_caps(false, true, /*time_zero=*/true, false);
  f.page.time_mult = 0;
  conv = time_converter_for_perf_clock(f.view());
  ASSERT_FALSE(conv);
  EXPECT_EQ(conv.error().code(), Errc::kMalformedData);
}

TEST(TimeConverterFromPage, UsesThePageAndTakesTheReferenceNow) {
  const CounterReaders hw = CounterReaders::hardware();
  if (hw.read_tsc == nullptr) GTEST_SKIP() << "no TSC instruction in this build (not x86)";
  FakeMmapPage f;
  f.set_caps(false, true, /*time_zero=*/true, false);
  f.page.size = 96;
  f.page.time_shift = 31;
  f.page.time_mult = 858993459;  // 0.4 ns per tick
  f.page.time_zero = 0xfffffed5a1c3b1d2ULL;
  TscConversion expect;
  expect.time_shift = 31;
  expect.time_mult = 858993459;
  expect.time_zero = 0xfffffed5a1c3b1d2ULL;
  expect.cap_user_time_zero = true;

  const std::uint64_t tsc_before = hw.read_tsc();
  const std::uint64_t mono_before = mono_now();
  auto conv = time_converter_for_perf_clock(f.view());
  const std::uint64_t mono_after = mono_now();
  const std::uint64_t tsc_after = hw.read_tsc();
  ASSERT_TRUE(conv) << conv.error().message();
  ASSERT_TRUE(conv->has_tsc());
  EXPECT_EQ(conv->sample_clock(), SampleClock::kPerfClock);
  EXPECT_EQ(conv->tsc()->time_mult, 858993459u);
  EXPECT_EQ(conv->tsc()->time_zero, expect.time_zero);
  const ClockReference& ref = conv->reference();
  EXPECT_GE(ref.sample_time, tsc_to_perf_time(tsc_before, expect));
  EXPECT_LE(ref.sample_time, tsc_to_perf_time(tsc_after, expect));
  EXPECT_GE(ref.monotonic_ns, mono_before);
  EXPECT_LE(ref.monotonic_ns, mono_after);
  EXPECT_LE(ref.uncertainty_ns, mono_after - mono_before);
  // Sample times from the page's clock now map onto CLOCK_MONOTONIC now.
  auto now_sample = conv->tsc_to_sample(hw.read_tsc());
  ASSERT_TRUE(now_sample);
  EXPECT_GE(conv->sample_to_monotonic(*now_sample), ref.monotonic_ns);
}

}  // namespace
}  // namespace perfx
