// Time conversion on the real kernel: the perf-clock converter when the page allows it
// (this VM: cap_user_time_zero = 0, so the error and its reason are checked instead), and
// the use_clockid fallback end to end: sample timestamps of a software event opened with
// CLOCK_MONOTONIC fall between clock_gettime() readings and convert to wall time.

#include <linux/perf_event.h>
#include <time.h>
#include <unistd.h>

#include <gtest/gtest.h>

#include <vector>

#include "perfx/self_monitor.hpp"
#include "perfx/time_conv.hpp"
#include "record/decoder.hpp"
#include "record/sample_layout.hpp"
#include "sys/ioctl.hpp"
#include "sys/perf_event_open.hpp"
#include "sys/ring_buffer.hpp"

namespace perfx {
namespace {

std::uint64_t now(clockid_t c) {
  timespec ts{};
  ::clock_gettime(c, &ts);
  return static_cast<std::uint64_t>(ts.tv_sec) * 1'000'000'000ULL +
         static_cast<std::uint64_t>(ts.tv_nsec);
}

void burn_ms(std::uint64_t ms) {
  const std::uint64_t end = now(CLOCK_MONOTONIC) + ms * 1'000'000ULL;
  volatile std::uint64_t x = 0;
  while (now(CLOCK_MONOTONIC) < end) x = x + 1;
}

TEST(TimeConvLive, PerfClockConverterNeedsTimeZeroAndSaysSo) {
  raw::EventAttr a{};
  a.type = PERF_TYPE_SOFTWARE;
  a.config = PERF_COUNT_SW_TASK_CLOCK;
  auto mon = SelfMonitor::open(a);
  ASSERT_TRUE(mon) << mon.error().message();
  auto snap = mon->page().snapshot();
  ASSERT_TRUE(snap);
  auto conv = time_converter_for_perf_clock(mon->page());
  if (!snap->capabilities.user_time_zero) {
    ASSERT_FALSE(conv);
    EXPECT_EQ(conv.error().code(), Errc::kNotSupported);
    EXPECT_NE(conv.error().message().find("cap_user_time_zero is 0"), std::string::npos);
    EXPECT_NE(conv.error().message().find("use_clockid"), std::string::npos);
    GTEST_SKIP() << "cap_user_time_zero is 0 here (sched_clock is not a stable native TSC): "
                    "the TSC path is unit-tested on simulated pages";
  }
  ASSERT_TRUE(conv) << conv.error().message();
  ASSERT_TRUE(conv->has_tsc());
  // The perf clock shifted by the reference lands on CLOCK_MONOTONIC within a few us.
  const std::uint64_t mono_before = now(CLOCK_MONOTONIC);
  auto ts = conv->tsc_to_sample(CounterReaders::hardware().read_tsc());
  const std::uint64_t mono_after = now(CLOCK_MONOTONIC);
  ASSERT_TRUE(ts);
  const std::uint64_t mono = conv->sample_to_monotonic(*ts);
  EXPECT_GE(mono + 20'000, mono_before);
  EXPECT_LE(mono, mono_after + 20'000);
}

TEST(TimeConvLive, ClockidFallbackGivesMonotonicSampleTimesAndWallTime) {
  auto conv = time_converter_for_clockid(CLOCK_MONOTONIC);
  ASSERT_TRUE(conv) << conv.error().message();
  EXPECT_FALSE(conv->has_tsc());
  EXPECT_NE(conv->tsc_unavailable_reason().find("clockid"), std::string::npos);
  EXPECT_FALSE(conv->sample_to_tsc(1));
  EXPECT_EQ(conv->sample_to_monotonic(12345), 12345u);  // the sample clock is MONOTONIC

  raw::EventAttr a{};
  a.type = PERF_TYPE_SOFTWARE;
  a.config = PERF_COUNT_SW_CPU_CLOCK;
  a.sample_period = 1'000'000;  // every ms of CPU time
  a.sample_type = PERF_SAMPLE_TIME;
  a.disabled = 1;
  set_sample_clock(a, CLOCK_MONOTONIC);
  auto fd = sys::perf_event_open(a, 0, -1, -1);
  ASSERT_TRUE(fd) << fd.error().message();
  auto ring = sys::RingBuffer::map(fd->get(), 8, sys::RingMode::kForward);
  ASSERT_TRUE(ring) << ring.error().message();

  const std::uint64_t mono_before = now(CLOCK_MONOTONIC);
  const std::uint64_t wall_before = now(CLOCK_REALTIME);
  ASSERT_TRUE(sys::ioc_enable(fd->get()));
  burn_ms(30);
  ASSERT_TRUE(sys::ioc_disable(fd->get()));
  const std::uint64_t mono_after = now(CLOCK_MONOTONIC);
  const std::uint64_t wall_after = now(CLOCK_REALTIME);

  const auto layout = record::SampleLayout::from_attr(a);
  auto& reader = ring->reader();
  reader.begin(ring->head(), ring->tail());
  std::vector<std::uint64_t> times;
  while (auto bytes = reader.next()) {
    auto rec = record::decode_record(*bytes, layout);
    ASSERT_TRUE(rec) << rec.error().message();
    if (const auto* s = rec->get<record::Sample>()) times.push_back(s->time);
  }
  ASSERT_GE(times.size(), 5u) << "30 ms of CPU at one sample per ms";
  const std::uint64_t slack = 2'000'000;  // 2 ms: wall-clock steps aside, far tighter
  for (std::uint64_t t : times) {
    EXPECT_GE(conv->sample_to_monotonic(t), mono_before);
    EXPECT_LE(conv->sample_to_monotonic(t), mono_after);
    const std::uint64_t wall = conv->sample_to_wall(t);
    EXPECT_GE(wall + slack, wall_before);
    EXPECT_LE(wall, wall_after + slack);
    EXPECT_EQ(conv->wall_to_sample(wall), t);
  }
}

TEST(TimeConvLive, OtherClockidsAndABadOne) {
  auto boot = time_converter_for_clockid(CLOCK_BOOTTIME);
  ASSERT_TRUE(boot) << boot.error().message();
  // BOOTTIME runs with MONOTONIC (apart from suspend): now on one is now on the other.
  const std::uint64_t b = now(CLOCK_BOOTTIME);
  const std::uint64_t m = now(CLOCK_MONOTONIC);
  const std::uint64_t converted = boot->sample_to_monotonic(b);
  EXPECT_LE(converted > m ? converted - m : m - converted, 1'000'000u);
  auto bad = time_converter_for_clockid(static_cast<clockid_t>(12345));
  ASSERT_FALSE(bad);
  EXPECT_EQ(bad.error().code(), Errc::kInvalidArgument);
}

}  // namespace
}  // namespace perfx
