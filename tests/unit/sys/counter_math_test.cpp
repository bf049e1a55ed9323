// Scaling math, trust states, sums and deltas of perfx/counter.hpp (no kernel).

#include <gtest/gtest.h>
#include <linux/perf_event.h>

#include <vector>

#include "perfx/counter.hpp"

namespace perfx {
namespace {

TEST(CounterMath, CountedWhenRunningEqualsEnabled) {
  const Count c = scale_count(RawCount{1000, 500, 500, 0});
  EXPECT_EQ(c.trust, Trust::kCounted);
  EXPECT_DOUBLE_EQ(c.value, 1000);
  EXPECT_DOUBLE_EQ(c.running_pct, 100);
}

TEST(CounterMath, ScaledWhenMultiplexed) {
  const Count c = scale_count(RawCount{1000, 400, 100, 3});
  EXPECT_EQ(c.trust, Trust::kScaled);
  EXPECT_DOUBLE_EQ(c.value, 4000);  // 1000 * 400 / 100
  EXPECT_DOUBLE_EQ(c.running_pct, 25);
  EXPECT_EQ(c.raw, 1000U);
  EXPECT_EQ(c.lost, 3U);
}

TEST(CounterMath, NotCountedWhenNeverScheduled) {
  EXPECT_EQ(scale_count(RawCount{0, 400, 0, 0}).trust, Trust::kNotCounted);
  EXPECT_EQ(scale_count(RawCount{0, 0, 0, 0}).trust, Trust::kNotCounted);
  EXPECT_DOUBLE_EQ(scale_count(RawCount{5, 400, 0, 0}).value, 0);
}

TEST(CounterMath, SumScalesEachInstance) {
  const std::vector<RawCount> inst{{100, 100, 100, 0}, {100, 200, 100, 0}, {0, 50, 0, 0}};
  const Count c = sum_counts(inst);
  EXPECT_EQ(c.trust, Trust::kScaled);
  EXPECT_DOUBLE_EQ(c.value, 300);  // 100 + 100*2 + (never ran)
  EXPECT_EQ(c.raw, 200U);
  EXPECT_EQ(c.time_enabled, 350U);
  EXPECT_EQ(c.time_running, 200U);
  EXPECT_NEAR(c.running_pct, 100.0 * 200 / 350, 1e-9);
}

TEST(CounterMath, SumOfExactInstancesIsCounted) {
  const std::vector<RawCount> inst{{7, 10, 10, 0}, {5, 20, 20, 0}};
  const Count c = sum_counts(inst);
  EXPECT_EQ(c.trust, Trust::kCounted);
  EXPECT_DOUBLE_EQ(c.value, 12);
  EXPECT_DOUBLE_EQ(c.running_pct, 100);
  EXPECT_EQ(sum_counts(std::vector<RawCount>{{0, 5, 0, 0}}).trust, Trust::kNotCounted);
}

TEST(CounterMath, DeltaSubtractsAndClamps) {
  const RawCount d = RawCount{150, 300, 200, 1} - RawCount{100, 100, 100, 2};
  EXPECT_EQ(d.value, 50U);
  EXPECT_EQ(d.time_enabled, 200U);
  EXPECT_EQ(d.time_running, 100U);
  EXPECT_EQ(d.lost, 0U);  // went backwards: clamped
}

CounterSnapshot two_by_two() {
  CounterSnapshot s;
  s.cpus = {0, 1};
  s.threads = {10, 11};
  CounterSnapshot::Event e;
  e.name = "page-faults";
  // [cpu0,t10] [cpu0,t11] [cpu1,t10] [cpu1,t11]
  e.instances = {{1, 10, 10, 0}, {2, 10, 10, 0}, {4, 10, 10, 0}, {8, 10, 5, 0}};
  s.events.push_back(e);
  CounterSnapshot::Event ns;
  ns.name = "cycles";
  ns.supported = false;
  ns.instances.resize(4);
  s.events.push_back(ns);
  return s;
}

TEST(CounterSnapshot, AggregatesPerCpuAndThread) {
  const CounterSnapshot s = two_by_two();
  EXPECT_DOUBLE_EQ(s.total(0).value, 1 + 2 + 4 + 16);
  EXPECT_EQ(s.total(0).trust, Trust::kScaled);
  EXPECT_DOUBLE_EQ(s.for_cpu(0, 0).value, 3);
  EXPECT_EQ(s.for_cpu(0, 0).trust, Trust::kCounted);
  EXPECT_DOUBLE_EQ(s.for_cpu(0, 1).value, 20);
  EXPECT_DOUBLE_EQ(s.for_thread(0, 0).value, 5);
  EXPECT_DOUBLE_EQ(s.for_thread(0, 1).value, 18);
  EXPECT_EQ(s.total(1).trust, Trust::kNotSupported);
  EXPECT_EQ(s.for_cpu(1, 0).trust, Trust::kNotSupported);
}

TEST(CounterSnapshot, Delta) {
  CounterSnapshot before = two_by_two();
  CounterSnapshot now = two_by_two();
  for (auto& i : now.events[0].instances) {
    i.value += 10;
    i.time_enabled += 10;
    i.time_running += 10;
  }
  const CounterSnapshot d = delta(now, before);
  EXPECT_DOUBLE_EQ(d.total(0).value, 40);
  EXPECT_EQ(d.total(0).trust, Trust::kCounted);
}

TEST(CounterTarget, Factories) {
  EXPECT_EQ(CountTarget::self().threads, std::vector<pid_t>{0});
  const CountTarget w = CountTarget::workload(42);
  EXPECT_TRUE(w.enable_on_exec);
  EXPECT_TRUE(w.inherit);
  const CountTarget sw = CountTarget::system_wide({0, 1});
  EXPECT_EQ(sw.kind, CountTarget::Kind::kSystemWide);
  EXPECT_FALSE(sw.inherit);
  EXPECT_STREQ(trust_name(Trust::kNotSupported), "not supported");
}

}  // namespace
}  // namespace perfx
