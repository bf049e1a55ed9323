// perfx::run_trace on the running kernel: a command's syscalls paired and counted, the
// kernel-side syscall filter, strings read from a live process (-p), exec failures and
// bad tracepoint names. Needs the raw_syscalls tracepoints (skips without tracefs).

#include <gtest/gtest.h>
#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cerrno>
#include <string>
#include <vector>

#include "perfx/trace.hpp"

namespace perfx {
namespace {

const std::string kLoop = std::string(PERFX_FIXTURE_DIR) + "/syscall_loop";

bool have_syscall_tracepoints() {
  return ::access("/sys/kernel/tracing/events/raw_syscalls/sys_enter/id", R_OK) == 0;
}

#define REQUIRE_TRACING()          \
  if (!have_syscall_tracepoints()) \
  GTEST_SKIP() << "no raw_syscalls tracepoints under /sys/kernel/tracing on this kernel"

TEST(TraceLive, PairsTheCallsOfACommand) {
  REQUIRE_TRACING();
  TraceOptions opt;
  opt.command = {kLoop, "20"};
  std::vector<TraceEvent> events;
  auto r = run_trace(opt, [&](const TraceEvent& ev) { events.push_back(ev); });
  ASSERT_TRUE(r) << r.error().message();
  EXPECT_TRUE(r->workload);
  EXPECT_EQ(r->exit_code, 0);
  EXPECT_EQ(r->lost, 0u);
  int openat = 0, enoent = 0, exit_group = 0;
  std::uint64_t last = 0;
  for (const auto& ev : events) {
    ASSERT_EQ(ev.kind, TraceEventKind::kSyscall);
    EXPECT_EQ(ev.comm, "syscall_loop");
    if (ev.name == "openat" && ev.exited) {
      ++openat;
      if (ev.ret == -ENOENT) ++enoent;
      EXPECT_TRUE(ev.duration().has_value());
      EXPECT_GE(ev.time, last);  // one thread: delivered in time order
      last = ev.time;
    }
    if (ev.name == "exit_group") {
      ++exit_group;
      EXPECT_FALSE(ev.exited);
      EXPECT_EQ(ev.args[0], 0u);
    }
  }
  EXPECT_EQ(openat, 2 * 20 + 2);  // + ld.so.cache and libc by the loader
  EXPECT_EQ(enoent, 20);
  EXPECT_EQ(exit_group, 1);
}

TEST(TraceLive, KernelFilterKeepsOnlyTheChosenCalls) {
  REQUIRE_TRACING();
  TraceOptions opt;
  opt.command = {kLoop, "5"};
  opt.only_syscalls = match_syscalls("close");
  int closes = 0, others = 0;
  auto r = run_trace(opt, [&](const TraceEvent& ev) { ++(ev.name == "close" ? closes : others); });
  ASSERT_TRUE(r) << r.error().message();
  EXPECT_EQ(others, 0);
  EXPECT_EQ(closes, 5 + 2);
}

TEST(TraceLive, ReadsPathsFromARunningProcess) {
  REQUIRE_TRACING();
  const pid_t child = ::fork();
  ASSERT_GE(child, 0);
  if (child == 0) {
    ::execl(kLoop.c_str(), kLoop.c_str(), "0", "1", static_cast<char*>(nullptr));
    ::_exit(127);
  }
  ::usleep(100'000);
  TraceOptions opt;
  opt.pids = {child};
  opt.only_syscalls = {syscall_number("openat")};
  opt.max_events = 8;
  std::vector<TraceEvent> events;
  auto r = run_trace(opt, [&](const TraceEvent& ev) { events.push_back(ev); });
  ::kill(child, SIGKILL);
  ::waitpid(child, nullptr, 0);
  ASSERT_TRUE(r) << r.error().message();
  ASSERT_EQ(events.size(), 8u);
  int dev_zero = 0, missing = 0;
  for (const auto& ev : events) {
    EXPECT_EQ(ev.pid, child);
    if (ev.strings[1] == "/dev/zero") ++dev_zero;
    if (ev.strings[1] == "/nonexistent/perfx-syscall-loop") ++missing;
  }
  // The loop's paths are string literals: they stay readable while it runs.
  EXPECT_GE(dev_zero, 3);
  EXPECT_GE(missing, 3);
  EXPECT_GT(r->strings_read, 0u);
}

TEST(TraceLive, ExecFailureAndBadTracepoint) {
  REQUIRE_TRACING();
  TraceOptions opt;
  opt.command = {"/nonexistent/perfx-no-such-program"};
  auto r = run_trace(opt, [](const TraceEvent&) {});
  ASSERT_TRUE(r) << r.error().message();
  EXPECT_FALSE(r->exec_error.empty());
  EXPECT_EQ(r->exit_code, 127);

  TraceOptions bad;
  bad.command = {"true"};
  bad.tracepoints = {"no_such_subsystem:no_such_event"};
  auto e = run_trace(bad, [](const TraceEvent&) {});
  ASSERT_FALSE(e);
  EXPECT_NE(e.error().message().find("no_such_subsystem"), std::string::npos)
      << e.error().message();

  TraceOptions none;
  EXPECT_FALSE(run_trace(none, [](const TraceEvent&) {}));  // no target
}

}  // namespace
}  // namespace perfx
