// TSC <-> perf clock formulas (man perf_event_open(2), "time_zero") with known
// mult/shift/zero, checked against 128-bit arithmetic, round trips, the short-counter
// correction, and the reference-point shifts of TimeConverter.

#include <gtest/gtest.h>

#include <cstdint>

#include "perfx/time_conv.hpp"

namespace perfx {
namespace {

// A 2.5 GHz TSC: 0.4 ns per cycle = 858993459 / 2^31 (what the kernel publishes there).
TscConversion tsc_2_5ghz() {
  TscConversion c;
  c.time_shift = 31;
  c.time_mult = 858993459;
  c.time_zero = 0xfffffed5a1c3b1d2ULL;  // negative: the TSC started before the perf clock
  c.cap_user_time_zero = true;
  return c;
}

std::uint64_t exact_tsc_to_ns(std::uint64_t cyc, const TscConversion& c) {
  const unsigned __int128 prod = static_cast<unsigned __int128>(cyc) * c.time_mult;
  return c.time_zero + static_cast<std::uint64_t>(prod >> c.time_shift);
}

TEST(TscConversion, FromSnapshotTakesTheFields) {
  MmapPageSnapshot s;
  s.time_shift = 10;
  s.time_mult = 3000;
  s.time_zero = 42;
  s.time_cycles = 7;
  s.time_mask = 0xff;
  s.capabilities = MmapCapabilities::from_bits((1ULL << 4) | (1ULL << 5));
  const auto c = TscConversion::from_snapshot(s);
  EXPECT_EQ(c.time_shift, 10);
  EXPECT_EQ(c.time_mult, 3000u);
  EXPECT_EQ(c.time_zero, 42u);
  EXPECT_EQ(c.time_cycles, 7u);
  EXPECT_EQ(c.time_mask, 0xffu);
  EXPECT_TRUE(c.cap_user_time_zero);
  EXPECT_TRUE(c.cap_user_time_short);
  EXPECT_TRUE(c.usable());
  s.capabilities = MmapCapabilities::from_bits(0);
  EXPECT_FALSE(TscConversion::from_snapshot(s).usable());
}

TEST(TscConversion, CyclesToNsMatchesWideArithmetic) {
  const auto c = tsc_2_5ghz();
  for (std::uint64_t cyc : {0ULL, 1ULL, 3ULL, 2500000000ULL, 123456789012345ULL,
                            0x0000ffffffffffffULL, 0x7fffffffffffffffULL}) {
    EXPECT_EQ(tsc_to_perf_time(cyc, c), exact_tsc_to_ns(cyc, c)) << cyc;
  }
  // One second of cycles is one second of perf clock (to the rounding of mult).
  const std::uint64_t t0 = tsc_to_perf_time(1'000'000'000'000ULL, c);
  const std::uint64_t t1 = tsc_to_perf_time(1'000'000'000'000ULL + 2'500'000'000ULL, c);
  EXPECT_NEAR(static_cast<double>(t1 - t0), 1e9, 1.0);
}

TEST(TscConversion, TheManPageTimeDeltaExample) {
  // delta = time_offset + quot * mult + ((rem * mult) >> shift)
  EXPECT_EQ(cycles_to_ns(1001, 6, 2, 100), 1601u);
  EXPECT_EQ(cycles_to_ns(0, 6, 2, 100), 100u);
  EXPECT_EQ(cycles_to_ns(7, 1, 0, 0), 7u);  // shift 0: mult cycles per ns
}

TEST(TscConversion, RoundTripsBothWays) {
  const auto c = tsc_2_5ghz();
  for (std::uint64_t cyc = 1'000'000; cyc < 1'000'000'000'000'000ULL; cyc = cyc * 7 + 13) {
    const std::uint64_t ts = tsc_to_perf_time(cyc, c);
    const std::uint64_t back = perf_time_to_tsc(ts, c);
    // ns are coarser than cycles (0.4 ns each): back lands within 3 cycles (1 ns) below.
    EXPECT_LE(cyc - back, 3u) << cyc;
    EXPECT_EQ(tsc_to_perf_time(back, c) <= ts, true);
    EXPECT_LE(ts - tsc_to_perf_time(back, c), 1u) << cyc;
  }
  for (std::uint64_t ns = 5'000'000; ns < 500'000'000'000'000ULL; ns = ns * 5 + 3) {
    const std::uint64_t ts = c.time_zero + ns;
    const std::uint64_t cyc = perf_time_to_tsc(ts, c);
    EXPECT_LE(ts - tsc_to_perf_time(cyc, c), 1u) << ns;
  }
}

TEST(TscConversion, RoundTripWithExactIntegerRatio) {
  TscConversion c;  // 1 GHz TSC: 1 ns per cycle exactly
  c.time_shift = 0;
  c.time_mult = 1;
  c.time_zero = 1000;
  c.cap_user_time_zero = true;
  EXPECT_EQ(tsc_to_perf_time(5, c), 1005u);
  EXPECT_EQ(perf_time_to_tsc(1005, c), 5u);
  c.time_shift = 1;  // 2 GHz: mult 1, shift 1 -> 0.5 ns per cycle
  EXPECT_EQ(tsc_to_perf_time(10, c), 1005u);
  EXPECT_EQ(perf_time_to_tsc(1005, c), 10u);
}

TEST(TscConversion, ShortCounterIsExtendedFromTimeCycles) {
  TscConversion c;
  c.time_shift = 0;
  c.time_mult = 1;
  c.time_zero = 0;
  c.cap_user_time_zero = true;
  c.cap_user_time_short = true;
  c.time_cycles = 0x1'ffff'fff0ULL;  // the full counter at the last update
  c.time_mask = 0xffffffffULL;       // a 32-bit hardware counter
  // The 32-bit counter wrapped since: 0x10 is 0x20 ticks after 0xfffffff0 mod 2^32.
  EXPECT_EQ(tsc_to_perf_time(0x0000'0010ULL, c), 0x2'0000'0010ULL);
  EXPECT_EQ(tsc_to_perf_time(0xffff'fff8ULL, c), 0x1'ffff'fff8ULL);  // not wrapped yet
  c.cap_user_time_short = false;
  EXPECT_EQ(tsc_to_perf_time(0x10ULL, c), 0x10u);
}

TEST(TscConversion, ZeroMultDoesNotDivideByZero) {
  TscConversion c;
  EXPECT_EQ(perf_time_to_tsc(123, c), 0u);
  EXPECT_FALSE(c.usable());
}

TEST(TimeConverter, ShiftsByTheReferencePointBothWays) {
  ClockReference ref;
  ref.sample_time = 5'000'000'000ULL;              // perf clock: 5 s after boot
  ref.monotonic_ns = 5'000'100'000ULL;             // CLOCK_MONOTONIC 100 us ahead
  ref.realtime_ns = 1'700'000'000'000'000'000ULL;  // 2023-11-14
  const TimeConverter conv(SampleClock::kPerfClock, CLOCK_MONOTONIC, ref, tsc_2_5ghz(), {});
  EXPECT_EQ(conv.sample_to_monotonic(6'000'000'000ULL), 6'000'100'000ULL);
  EXPECT_EQ(conv.monotonic_to_sample(6'000'100'000ULL), 6'000'000'000ULL);
  EXPECT_EQ(conv.sample_to_wall(6'000'000'000ULL), 1'700'000'001'000'000'000ULL);
  EXPECT_EQ(conv.wall_to_sample(1'700'000'001'000'000'000ULL), 6'000'000'000ULL);
  // Before the reference point: the negative difference wraps and unwraps exactly.
  EXPECT_EQ(conv.sample_to_monotonic(1'000ULL), 100'000ULL + 1'000ULL);
  EXPECT_EQ(conv.wall_to_sample(conv.sample_to_wall(1'000ULL)), 1'000ULL);
  for (std::uint64_t t : {0ULL, 1ULL, 4'999'999'999ULL, 123'456'789'012ULL}) {
    EXPECT_EQ(conv.monotonic_to_sample(conv.sample_to_monotonic(t)), t);
    EXPECT_EQ(conv.wall_to_sample(conv.sample_to_wall(t)), t);
  }
  ASSERT_TRUE(conv.has_tsc());
  EXPECT_TRUE(conv.tsc_unavailable_reason().empty());
  const std::uint64_t cyc = 9'876'543'210'000ULL;
  auto ts = conv.tsc_to_sample(cyc);
  ASSERT_TRUE(ts);
  EXPECT_EQ(*ts, exact_tsc_to_ns(cyc, tsc_2_5ghz()));
  auto back = conv.sample_to_tsc(*ts);
  ASSERT_TRUE(back);
  EXPECT_LE(cyc - *back, 3u);
}

TEST(TimeConverter, WithoutTscSaysWhy) {
  ClockReference ref;
  const TimeConverter conv(SampleClock::kClockid, CLOCK_MONOTONIC, ref, std::nullopt,
                           "cap_user_time_zero is 0");
  EXPECT_FALSE(conv.has_tsc());
  auto r = conv.sample_to_tsc(1);
  ASSERT_FALSE(r);
  EXPECT_EQ(r.error().code(), Errc::kNotSupported);
  EXPECT_EQ(r.error().message(), "cap_user_time_zero is 0");
  EXPECT_FALSE(conv.tsc_to_sample(1));
  const TimeConverter unexplained(SampleClock::kClockid, CLOCK_MONOTONIC, ref, std::nullopt, {});
  EXPECT_FALSE(unexplained.tsc_unavailable_reason().empty());
}

TEST(SetSampleClock, SetsUseClockidAndTheClock) {
  raw::EventAttr attr{};
  set_sample_clock(attr);
  EXPECT_EQ(attr.use_clockid, 1u);
  EXPECT_EQ(attr.clockid, CLOCK_MONOTONIC);
  set_sample_clock(attr, CLOCK_BOOTTIME);
  EXPECT_EQ(attr.clockid, CLOCK_BOOTTIME);
}

}  // namespace
}  // namespace perfx
