// Every perf ioctl that works on this kernel, through the typed wrappers, and the
// workload launcher.

#include <gtest/gtest.h>
#include <linux/bpf.h>
#include <linux/hw_breakpoint.h>
#include <linux/perf_event.h>
#include <sys/mman.h>
#include <sys/syscall.h>
#include <unistd.h>

#include <cerrno>
#include <cstdint>
#include <cstring>
#include <string>

#include "live_support.hpp"
#include "sys/breakpoint_check.hpp"
#include "sys/ioctl.hpp"
#include "sys/mapping.hpp"
#include "sys/perf_event_open.hpp"
#include "sys/system_info.hpp"
#include "sys/workload.hpp"

namespace perfx::sys {
namespace {

using live_support::kPage;
using live_support::touch_pages;

raw::EventAttr sw_attr(std::uint64_t config, std::uint64_t period = 0) {
  raw::EventAttr a{};
  a.type = PERF_TYPE_SOFTWARE;
  a.config = config;
  a.disabled = 1;
  a.sample_period = period;
  if (period != 0) a.sample_type = PERF_SAMPLE_IP;
  return a;
}

std::uint64_t read_count(int fd) {
  std::uint64_t v = 0;
  EXPECT_EQ(::read(fd, &v, sizeof v), static_cast<ssize_t>(sizeof v));
  return v;
}

Mapping map_buffer(int fd) {
  void* p = ::mmap(nullptr, 2 * kPage, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
  if (p == MAP_FAILED) return Mapping();
  return Mapping(p, 2 * kPage);
}

TEST(SysIoctl, EnableDisableResetId) {
  auto fd = perf_event_open(sw_attr(PERF_COUNT_SW_PAGE_FAULTS), 0, -1, -1);
  ASSERT_TRUE(fd) << fd.error().message();
  touch_pages(20);
  EXPECT_EQ(read_count(fd->get()), 0U);  // created disabled
  ASSERT_TRUE(ioc_enable(fd->get()));
  touch_pages(50);
  ASSERT_TRUE(ioc_disable(fd->get()));
  const std::uint64_t n = read_count(fd->get());
  EXPECT_GE(n, 50U);
  touch_pages(20);
  EXPECT_EQ(read_count(fd->get()), n);
  ASSERT_TRUE(ioc_reset(fd->get(), IocScope::kGroup));
  EXPECT_EQ(read_count(fd->get()), 0U);
  auto id = ioc_id(fd->get());
  ASSERT_TRUE(id);
  EXPECT_GT(*id, 0U);
  auto bad = ioc_id(0);  // stdin is not a perf fd
  ASSERT_FALSE(bad);
  EXPECT_NE(bad.error().message().find("PERF_EVENT_IOC_ID"), std::string::npos);
}

TEST(SysIoctl, Period) {
  auto sampling = perf_event_open(sw_attr(PERF_COUNT_SW_TASK_CLOCK, 1000000), 0, -1, -1);
  ASSERT_TRUE(sampling) << sampling.error().message();
  EXPECT_TRUE(ioc_period(sampling->get(), 200000));
  auto zero = ioc_period(sampling->get(), 0);
  ASSERT_FALSE(zero);
  EXPECT_EQ(zero.error().sys_errno(), EINVAL);
  auto counting = perf_event_open(sw_attr(PERF_COUNT_SW_TASK_CLOCK), 0, -1, -1);
  ASSERT_TRUE(counting);
  EXPECT_FALSE(ioc_period(counting->get(), 1000));
}

TEST(SysIoctl, SetOutputDetachAndPause) {
  auto f1 = perf_event_open(sw_attr(PERF_COUNT_SW_TASK_CLOCK, 100000), 0, -1, -1);
  auto f2 = perf_event_open(sw_attr(PERF_COUNT_SW_TASK_CLOCK, 100000), 0, -1, -1);
  ASSERT_TRUE(f1 && f2);
  Mapping m = map_buffer(f1->get());
  ASSERT_TRUE(m.valid()) << std::strerror(errno);
  ASSERT_TRUE(ioc_set_output(f2->get(), f1->get()));
  // Kernel behaviour 4: detaching needs (unsigned long)-1.
  ASSERT_TRUE(ioc_detach_output(f2->get())) << "detach";
  Mapping m2 = map_buffer(f2->get());
  EXPECT_TRUE(m2.valid()) << "mmap after detach";
  EXPECT_TRUE(ioc_pause_output(f1->get(), true));
  EXPECT_TRUE(ioc_pause_output(f1->get(), false));
  auto f3 = perf_event_open(sw_attr(PERF_COUNT_SW_TASK_CLOCK, 100000), 0, -1, -1);
  ASSERT_TRUE(f3);
  auto no_buffer = ioc_pause_output(f3->get(), true);
  ASSERT_FALSE(no_buffer);
  EXPECT_EQ(no_buffer.error().sys_errno(), EINVAL);
}

TEST(SysIoctl, RefreshStopsAfterOverflows) {
  raw::EventAttr a = sw_attr(PERF_COUNT_SW_PAGE_FAULTS, 10);
  auto fd = perf_event_open(a, 0, -1, -1);
  ASSERT_TRUE(fd) << fd.error().message();
  ASSERT_TRUE(ioc_refresh(fd->get(), 2));
  touch_pages(200);
  const std::uint64_t n = read_count(fd->get());
  EXPECT_GE(n, 10U);
  EXPECT_LT(n, 200U) << "the event should be disabled after 2 overflows";
  EXPECT_FALSE(ioc_refresh(fd->get(), 0));
  auto counting = perf_event_open(sw_attr(PERF_COUNT_SW_PAGE_FAULTS), 0, -1, -1);
  ASSERT_TRUE(counting);
  EXPECT_FALSE(ioc_refresh(counting->get(), 1));
}

TEST(SysIoctl, SetFilterOnTracepoint) {
  auto id = read_int_file("/sys/kernel/tracing/events/syscalls/sys_enter_getppid/id");
  if (!id) GTEST_SKIP() << id.error().message();
  raw::EventAttr a{};
  a.type = PERF_TYPE_TRACEPOINT;
  a.config = static_cast<std::uint64_t>(*id);
  a.disabled = 1;
  auto fd = perf_event_open(a, 0, -1, -1);
  if (!fd && fd.error().code() == Errc::kPermission) GTEST_SKIP() << fd.error().message();
  ASSERT_TRUE(fd) << fd.error().message();
  ASSERT_TRUE(ioc_set_filter(fd->get(), "common_pid != " + std::to_string(::getpid())));
  ASSERT_TRUE(ioc_enable(fd->get()));
  for (int i = 0; i < 100; ++i) ::syscall(SYS_getppid);
  ASSERT_TRUE(ioc_disable(fd->get()));
  EXPECT_EQ(read_count(fd->get()), 0U);  // filtered out
  auto again = ioc_set_filter(fd->get(), "common_pid != 1");
  ASSERT_FALSE(again);
  EXPECT_EQ(again.error().sys_errno(), EEXIST);
  EXPECT_NE(again.error().message().find("only once"), std::string::npos);
  // Unfiltered: counts every call.
  auto fd2 = perf_event_open(a, 0, -1, -1);
  ASSERT_TRUE(fd2);
  ASSERT_TRUE(ioc_enable(fd2->get()));
  for (int i = 0; i < 100; ++i) ::syscall(SYS_getppid);
  ASSERT_TRUE(ioc_disable(fd2->get()));
  EXPECT_EQ(read_count(fd2->get()), 100U);
  auto progs = ioc_query_bpf(fd2->get());
  if (progs) {
    EXPECT_TRUE(progs->empty());
  }
  EXPECT_FALSE(ioc_set_filter(-1, "x"));
}

TEST(SysIoctl, SetBpfAndQueryBpf) {
  auto id = read_int_file("/sys/kernel/tracing/events/syscalls/sys_enter_getppid/id");
  if (!id) GTEST_SKIP() << id.error().message();
  // The smallest tracepoint program: r0 = 0; exit.
  bpf_insn insns[2] = {};
  insns[0].code = BPF_ALU64 | BPF_MOV | BPF_K;
  insns[0].dst_reg = BPF_REG_0;
  insns[1].code = BPF_JMP | BPF_EXIT;
  static const char kLicense[] = "GPL";
  bpf_attr battr{};
  battr.prog_type = BPF_PROG_TYPE_TRACEPOINT;
  battr.insn_cnt = 2;
  battr.insns = reinterpret_cast<std::uintptr_t>(insns);
  battr.license = reinterpret_cast<std::uintptr_t>(kLicense);
  const long prog = ::syscall(SYS_bpf, BPF_PROG_LOAD, &battr, sizeof battr);
  if (prog < 0) GTEST_SKIP() << "BPF_PROG_LOAD: " << std::strerror(errno);
  UniqueFd prog_fd(static_cast<int>(prog));
  raw::EventAttr a{};
  a.type = PERF_TYPE_TRACEPOINT;
  a.config = static_cast<std::uint64_t>(*id);
  a.sample_period = 1;
  a.sample_type = PERF_SAMPLE_RAW;
  a.disabled = 1;
  auto fd = perf_event_open(a, -1, 0, -1);
  if (!fd) GTEST_SKIP() << fd.error().message();
  auto before = ioc_query_bpf(fd->get());
  ASSERT_TRUE(before) << before.error().message();
  EXPECT_TRUE(before->empty());
  ASSERT_TRUE(ioc_set_bpf(fd->get(), prog_fd.get()));
  auto after = ioc_query_bpf(fd->get(), 1);
  ASSERT_TRUE(after) << after.error().message();
  EXPECT_EQ(after->size(), 1U);
  EXPECT_FALSE(ioc_set_bpf(fd->get(), -1));
}

volatile std::uint64_t g_var1 = 0;
volatile std::uint64_t g_var2 = 0;

TEST(SysIoctl, ModifyAttributesMovesBreakpoint) {
  if (sys::check_hardware_breakpoints() == sys::BreakpointCheck::kSilent)
    GTEST_SKIP() << sys::kSilentBreakpointsReason;
  raw::EventAttr a = live_support::write_breakpoint(&g_var1);
  a.exclude_kernel = 1;
  a.exclude_hv = 1;
  auto fd = perf_event_open(a, 0, -1, -1);
  if (!fd && fd.error().code() == Errc::kPermission) GTEST_SKIP() << fd.error().message();
  ASSERT_TRUE(fd) << fd.error().message();
  for (int i = 0; i < 5; ++i) g_var1 = g_var1 + 1;
  EXPECT_EQ(read_count(fd->get()), 5U);
  a.bp_addr = reinterpret_cast<std::uintptr_t>(&g_var2);
  ASSERT_TRUE(ioc_modify_attributes(fd->get(), a));
  for (int i = 0; i < 7; ++i) g_var1 = g_var1 + 1;
  for (int i = 0; i < 3; ++i) g_var2 = g_var2 + 1;
  EXPECT_EQ(read_count(fd->get()), 8U);
  auto on_sw = perf_event_open(sw_attr(PERF_COUNT_SW_PAGE_FAULTS), 0, -1, -1);
  ASSERT_TRUE(on_sw);
  EXPECT_FALSE(ioc_modify_attributes(on_sw->get(), sw_attr(PERF_COUNT_SW_PAGE_FAULTS)));
}

TEST(SysWorkload, ExitCodesAndSignals) {
  auto w = Workload::prepare({"sh", "-c", "exit 3"});
  ASSERT_TRUE(w);
  ASSERT_TRUE(w->start());
  auto st = w->wait();
  ASSERT_TRUE(st);
  EXPECT_EQ(st->code, 3);
  EXPECT_FALSE(st->signaled);
  auto k = Workload::prepare({"sh", "-c", "kill -9 $$"});
  ASSERT_TRUE(k);
  ASSERT_TRUE(k->start());
  auto ks = k->wait();
  ASSERT_TRUE(ks);
  EXPECT_TRUE(ks->signaled);
  EXPECT_EQ(ks->code, 137);
}

TEST(SysWorkload, ExecFailureComesBack) {
  auto w = Workload::prepare({"/nonexistent/perfx-no-such-cmd"});
  ASSERT_TRUE(w);
  auto r = w->start();
  ASSERT_FALSE(r);
  EXPECT_EQ(r.error().sys_errno(), ENOENT);
  EXPECT_EQ(r.error().message(), "command not found: /nonexistent/perfx-no-such-cmd");
}

TEST(SysWorkload, DestructorKillsUnstartedChild) {
  pid_t pid = 0;
  {
    auto w = Workload::prepare({"sleep", "100"});
    ASSERT_TRUE(w);
    pid = w->pid();
    EXPECT_EQ(::kill(pid, 0), 0);
  }
  EXPECT_EQ(::kill(pid, 0), -1);  // reaped: the pid no longer exists
  EXPECT_EQ(errno, ESRCH);
  EXPECT_FALSE(Workload::prepare({}));
}

TEST(SysInfo, ReadsThisMachine) {
  const SystemReadings r = read_system_readings();
  ASSERT_TRUE(r.paranoid.has_value());
  EXPECT_GE(*r.paranoid, -1);
  EXPECT_TRUE(r.max_sample_rate.has_value());
  EXPECT_TRUE(r.nofile_soft.has_value());
  EXPECT_GT(r.configured_cpus, 0);
}

}  // namespace
}  // namespace perfx::sys
