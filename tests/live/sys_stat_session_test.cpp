// The perfx stat run loop: workload runs, -r repeats, -I callbacks, exec failure.

#include "sys/stat_session.hpp"

#include <gtest/gtest.h>
#include <linux/perf_event.h>

#include <unistd.h>

#include <cerrno>

namespace perfx::sys {
namespace {

CounterGroupSpec sw(const char* name, std::uint64_t config) {
  CounterEvent e;
  e.name = name;
  e.attr.type = PERF_TYPE_SOFTWARE;
  e.attr.config = config;
  return CounterGroupSpec{{e}, false};
}

TEST(SysStatSession, RepeatsTheWorkload) {
  StatSessionConfig cfg;
  cfg.groups = {sw("page-faults", PERF_COUNT_SW_PAGE_FAULTS),
                sw("task-clock", PERF_COUNT_SW_TASK_CLOCK)};
  cfg.command = {"sh", "-c", "exit 5"};
  cfg.runs = 3;
  auto runs = run_stat_session(cfg);
  ASSERT_TRUE(runs) << runs.error().message();
  ASSERT_EQ(runs->size(), 3U);
  for (const auto& r : *runs) {
    ASSERT_TRUE(r.exit.has_value());
    EXPECT_EQ(r.exit->code, 5);
    EXPECT_GT(r.elapsed.count(), 0);
    EXPECT_GT(r.counts.total(0).value, 10);
    EXPECT_EQ(r.counts.total(1).trust, Trust::kCounted);
  }
}

TEST(SysStatSession, IntervalsAddUpToTheTotal) {
  StatSessionConfig cfg;
  cfg.groups = {sw("task-clock", PERF_COUNT_SW_TASK_CLOCK)};
  cfg.command = {"sleep", "0.25"};
  cfg.interval = std::chrono::milliseconds(100);
  int calls = 0;
  double last_t = 0;
  double sum_ns = 0;
  cfg.on_interval = [&](const CounterSnapshot& d, double t, double len) {
    ++calls;
    EXPECT_GT(t, last_t);
    EXPECT_GT(len, 0);
    last_t = t;
    sum_ns += d.total(0).value;
  };
  auto runs = run_stat_session(cfg);
  ASSERT_TRUE(runs) << runs.error().message();
  EXPECT_GE(calls, 3);  // 0.1, 0.2, and the exit at ~0.25
  EXPECT_NEAR(last_t, 0.25, 0.1);
  EXPECT_NEAR(sum_ns, runs->front().counts.total(0).value, 1);
}

TEST(SysStatSession, ExecFailureStopsRuns) {
  StatSessionConfig cfg;
  cfg.groups = {sw("task-clock", PERF_COUNT_SW_TASK_CLOCK)};
  cfg.command = {"/nonexistent/perfx-cmd"};
  cfg.runs = 3;
  auto runs = run_stat_session(cfg);
  ASSERT_TRUE(runs) << runs.error().message();
  ASSERT_EQ(runs->size(), 1U);
  EXPECT_EQ(runs->front().exec_errno, ENOENT);
}

TEST(SysStatSession, NothingToCount) {
  StatSessionConfig cfg;
  cfg.groups = {sw("task-clock", PERF_COUNT_SW_TASK_CLOCK)};
  auto runs = run_stat_session(cfg);
  ASSERT_FALSE(runs);
  EXPECT_EQ(runs.error().code(), Errc::kInvalidArgument);
}

TEST(SysStatSession, ResolvesThreadsOfAProcess) {
  StatTargetOptions t;
  t.pids = {::getpid()};
  auto th = resolve_stat_threads(t);
  ASSERT_TRUE(th) << th.error().message();
  ASSERT_FALSE(th->tids.empty());
  EXPECT_EQ(th->tids.size(), th->comms.size());
  t.pids = {999999};
  EXPECT_FALSE(resolve_stat_threads(t));
}

}  // namespace
}  // namespace perfx::sys
