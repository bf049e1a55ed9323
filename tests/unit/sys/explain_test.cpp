#include "sys/explain.hpp"

#include <gmock/gmock.h>
#include <gtest/gtest.h>
#include <linux/hw_breakpoint.h>
#include <linux/perf_event.h>

#include <cerrno>

namespace perfx::sys {
namespace {

using ::testing::AllOf;
using ::testing::HasSubstr;
using ::testing::Not;

SystemReadings unprivileged(int paranoid = 2) {
  SystemReadings r;
  r.paranoid = paranoid;
  r.max_sample_rate = 100000;
  r.max_stack = 127;
  r.mlock_kb = 516;
  r.nofile_soft = 1024;
  r.nofile_hard = 524288;
  r.configured_cpus = 2;
  r.uid = 65534;
  return r;
}

OpenRequest sw_request(std::uint64_t config = PERF_COUNT_SW_TASK_CLOCK) {
  OpenRequest req;
  req.attr.type = PERF_TYPE_SOFTWARE;
  req.attr.config = config;
  req.event_name = "task-clock";
  return req;
}

TEST(Explain, SystemWidePermissionNamesParanoidValueAndRemedy) {
  OpenRequest req = sw_request();
  req.pid = -1;
  req.cpu = 0;
  req.target_hint = "system-wide counting (-a)";
  const std::string msg = explain_open_errno(EACCES, req, unprivileged(2));
  EXPECT_EQ(msg,
            "system-wide counting (-a) needs perf_event_paranoid <= 0 (it is 2) or CAP_PERFMON; "
            "as root run: sysctl -w kernel.perf_event_paranoid=0");
}

TEST(Explain, KernelCountingUnderParanoid2SuggestsUserOnly) {
  OpenRequest req = sw_request();
  req.attr.exclude_kernel = 0;
  const std::string msg = explain_open_errno(EACCES, req, unprivileged(2));
  EXPECT_THAT(msg, HasSubstr("perf_event_paranoid <= 1 (it is 2)"));
  EXPECT_THAT(msg, HasSubstr("':u'"));
}

TEST(Explain, Paranoid3SaysUnprivilegedUseIsOff) {
  OpenRequest req = sw_request();
  req.attr.exclude_kernel = 1;
  const std::string msg = explain_open_errno(EACCES, req, unprivileged(3));
  EXPECT_THAT(msg, HasSubstr("perf_event_paranoid is 3"));
}

TEST(Explain, OtherUsersProcessNamesPtrace) {
  OpenRequest req = sw_request();
  req.attr.exclude_kernel = 1;
  req.pid = 1;
  const std::string msg = explain_open_errno(EACCES, req, unprivileged(1));
  EXPECT_THAT(msg, HasSubstr("attaching to pid 1"));
  EXPECT_THAT(msg, HasSubstr("CAP_SYS_PTRACE"));
}

TEST(Explain, PermissionWithCapabilitiesBlamesSecurityModule) {
  SystemReadings r = unprivileged(2);
  r.caps.effective = 1ULL << kCapPerfmon;
  const std::string msg = explain_open_errno(EPERM, sw_request(), r);
  EXPECT_THAT(msg, HasSubstr("security module"));
}

TEST(Explain, EpermAlsoMentionsExcludeBits) {
  OpenRequest req = sw_request();
  req.pid = -1;
  req.cpu = 0;
  EXPECT_THAT(explain_open_errno(EPERM, req, unprivileged()), HasSubstr("exclude_kernel"));
}

TEST(Explain, EnoentOnHardwareSaysNoPmu) {
  OpenRequest req;
  req.attr.type = PERF_TYPE_HARDWARE;
  req.attr.config = PERF_COUNT_HW_CPU_CYCLES;
  req.event_name = "cycles";
  const std::string msg = explain_open_errno(ENOENT, req, unprivileged());
  EXPECT_THAT(msg, HasSubstr("no PMU"));
  EXPECT_THAT(msg, HasSubstr("virtual machines"));
  const Error e = explain_open_error(ENOENT, req, unprivileged());
  EXPECT_EQ(e.code(), Errc::kNotSupported);
  EXPECT_EQ(e.sys_errno(), ENOENT);
  EXPECT_THAT(e.message(), HasSubstr("opening event 'cycles'"));
  EXPECT_THAT(e.message(), HasSubstr("(ENOENT)"));
}

TEST(Explain, EnoentOnCacheAndRaw) {
  OpenRequest req;
  req.attr.type = PERF_TYPE_HW_CACHE;
  EXPECT_THAT(explain_open_errno(ENOENT, req, unprivileged()), HasSubstr("hardware cache"));
  req.attr.type = PERF_TYPE_RAW;
  EXPECT_THAT(explain_open_errno(ENOENT, req, unprivileged()), HasSubstr("raw event"));
}

TEST(Explain, EmfileNamesTheLimitAndUlimit) {
  const std::string msg = explain_open_errno(EMFILE, sw_request(), unprivileged());
  EXPECT_THAT(msg, HasSubstr("RLIMIT_NOFILE) is 1024"));
  EXPECT_THAT(msg, HasSubstr("ulimit -n 524288"));
  // Soft already at the hard limit: 'ulimit -n' cannot help; say what can.
  auto at_hard = unprivileged();
  at_hard.nofile_soft = 32;
  at_hard.nofile_hard = 32;
  const std::string m2 = explain_open_errno(EMFILE, sw_request(), at_hard);
  EXPECT_THAT(m2, Not(HasSubstr("ulimit -n 32")));
  EXPECT_THAT(m2, HasSubstr("hard limit"));
}

TEST(Explain, EinvalSampleFreqAboveMax) {
  OpenRequest req = sw_request();
  req.attr.freq = 1;
  req.attr.sample_freq = 200000;
  const std::string msg = explain_open_errno(EINVAL, req, unprivileged());
  EXPECT_THAT(msg, HasSubstr("attr.sample_freq 200000 is above perf_event_max_sample_rate 100000"));
  EXPECT_THAT(msg, HasSubstr("sysctl -w kernel.perf_event_max_sample_rate=200000"));
}

TEST(Explain, EinvalBreakpointLength) {
  OpenRequest req;
  req.attr.type = PERF_TYPE_BREAKPOINT;
  req.attr.bp_type = HW_BREAKPOINT_W;
  req.attr.bp_len = 3;
  req.attr.bp_addr = 0x1000;
  EXPECT_THAT(explain_open_errno(EINVAL, req, unprivileged()),
              HasSubstr("attr.bp_len 3 is invalid: it must be 1, 2, 4 or 8"));
  req.attr.bp_len = 8;
  req.attr.bp_addr = 0x1004;
  EXPECT_THAT(explain_open_errno(EINVAL, req, unprivileged()), HasSubstr("not aligned"));
  req.attr.bp_type = HW_BREAKPOINT_R;
  EXPECT_THAT(explain_open_errno(EINVAL, req, unprivileged()), HasSubstr("attr.bp_type"));
}

TEST(Explain, EinvalPrecise) {
  OpenRequest req;
  req.attr.type = PERF_TYPE_HARDWARE;
  req.attr.precise_ip = 3;
  EXPECT_THAT(explain_open_errno(EINVAL, req, unprivileged()), HasSubstr("attr.precise_ip 3"));
}

TEST(Explain, EinvalExcludeOnDynamicPmu) {
  OpenRequest req;
  req.attr.type = 9;  // msr on the dev VM
  req.attr.exclude_kernel = 1;
  EXPECT_THAT(explain_open_errno(EINVAL, req, unprivileged()), HasSubstr("exclude_kernel"));
}

TEST(Explain, AutomaticUserOnlyRetrySaysPerfxAddedTheModifier) {
  OpenRequest req;
  req.attr.type = 9;  // msr on the dev VM
  req.attr.exclude_kernel = 1;
  req.attr.exclude_hv = 1;
  req.event_name = "msr/tsc/u";
  req.auto_user_only = true;
  const std::string msg = explain_open_error(EINVAL, req, unprivileged()).message();
  EXPECT_THAT(msg, HasSubstr("does not support privilege filtering"));
  EXPECT_THAT(msg, Not(HasSubstr("drop the ':u'")));  // the user never typed it
  EXPECT_THAT(msg, HasSubstr("the ':u' (user space only) was added by perfx"));
  EXPECT_THAT(msg, HasSubstr("perf_event_paranoid is 2"));
  req.auto_user_only = false;
  EXPECT_THAT(explain_open_error(EINVAL, req, unprivileged()).message(),
              AllOf(HasSubstr("drop the ':u'/':k' modifier"), Not(HasSubstr("added by perfx"))));
}

TEST(Explain, EinvalCpuAndPidCombination) {
  OpenRequest req = sw_request();
  req.pid = -1;
  req.cpu = -1;
  EXPECT_THAT(explain_open_errno(EINVAL, req, unprivileged()), HasSubstr("pid -1 with cpu -1"));
  req.pid = 0;
  req.cpu = 7;
  EXPECT_THAT(explain_open_errno(EINVAL, req, unprivileged()),
              HasSubstr("cpu 7 does not exist (this machine has 2 CPUs, 0-1)"));
}

TEST(Explain, EinvalGroupMemberPinned) {
  OpenRequest req = sw_request();
  req.group_fd = 5;
  req.attr.pinned = 1;
  EXPECT_THAT(explain_open_errno(EINVAL, req, unprivileged()), HasSubstr("group leader"));
}

TEST(Explain, E2bigNamesSize) {
  OpenRequest req = sw_request();
  req.attr.size = 136;
  EXPECT_THAT(explain_open_errno(E2BIG, req, unprivileged()), HasSubstr("attr.size 136"));
}

TEST(Explain, EnospcBreakpointSlots) {
  OpenRequest req;
  req.attr.type = PERF_TYPE_BREAKPOINT;
  EXPECT_THAT(explain_open_errno(ENOSPC, req, unprivileged()), HasSubstr("breakpoint slot"));
}

TEST(Explain, EoverflowMaxStack) {
  OpenRequest req = sw_request();
  req.attr.sample_max_stack = 128;
  const std::string msg = explain_open_errno(EOVERFLOW, req, unprivileged());
  EXPECT_THAT(msg, HasSubstr("attr.sample_max_stack 128 is above perf_event_max_stack 127"));
}

TEST(Explain, EbusyEsrchEopnotsupp) {
  OpenRequest req = sw_request();
  EXPECT_THAT(explain_open_errno(EBUSY, req, unprivileged()), HasSubstr("exclusive"));
  req.pid = 999999;
  EXPECT_THAT(explain_open_errno(ESRCH, req, unprivileged()), HasSubstr("999999"));
  req.attr.sample_type = PERF_SAMPLE_BRANCH_STACK;
  EXPECT_THAT(explain_open_errno(EOPNOTSUPP, req, unprivileged()), HasSubstr("branch stack"));
  OpenRequest hw;
  hw.attr.type = PERF_TYPE_HARDWARE;
  hw.attr.precise_ip = 2;
  EXPECT_THAT(explain_open_errno(EOPNOTSUPP, hw, unprivileged()), HasSubstr("precise"));
}

TEST(Explain, CgroupErrors) {
  OpenRequest req = sw_request();
  req.flags = PERF_FLAG_PID_CGROUP;
  req.pid = 7;
  req.cpu = -1;
  EXPECT_THAT(explain_open_errno(EINVAL, req, unprivileged()), HasSubstr("needs a CPU"));
  req.cpu = 0;
  EXPECT_THAT(explain_open_errno(EBADF, req, unprivileged()), HasSubstr("cgroup file descriptor"));
  EXPECT_THAT(explain_open_errno(EACCES, req, unprivileged()),
              HasSubstr("cgroup counting (-G) needs perf_event_paranoid <= 0"));
  EXPECT_THAT(explain_open_errno(ENOENT, req, unprivileged()), HasSubstr("cgroup2"));
}

TEST(Explain, UnsupportedErrnos) {
  EXPECT_TRUE(is_unsupported_event_errno(ENOENT));
  EXPECT_TRUE(is_unsupported_event_errno(EOPNOTSUPP));
  // perf stat 6.1 (stat_handle_error) marks these <not supported> and keeps counting.
  EXPECT_TRUE(is_unsupported_event_errno(EINVAL));
  EXPECT_TRUE(is_unsupported_event_errno(ENOSYS));
  EXPECT_TRUE(is_unsupported_event_errno(ENXIO));
  EXPECT_TRUE(is_unsupported_event_errno(ENODEV));
  EXPECT_FALSE(is_unsupported_event_errno(EACCES));
  EXPECT_FALSE(is_unsupported_event_errno(EPERM));
  EXPECT_FALSE(is_unsupported_event_errno(EMFILE));
  EXPECT_FALSE(is_unsupported_event_errno(ESRCH));
}

TEST(Explain, ExecMessages) {
  EXPECT_EQ(explain_exec_errno(ENOENT, "foo"), "command not found: foo");
  EXPECT_EQ(exec_failure_exit_code(ENOENT), 127);
  EXPECT_EQ(exec_failure_exit_code(EACCES), 126);
  EXPECT_THAT(explain_exec_errno(EACCES, "/etc/passwd"), HasSubstr("permission denied"));
}

TEST(Explain, ErrnoNames) {
  EXPECT_EQ(errno_name(EACCES), "EACCES");
  EXPECT_EQ(errno_name(EOVERFLOW), "EOVERFLOW");
  EXPECT_EQ(errno_name(4095), "errno 4095");
}

TEST(Explain, UnknownParanoidStillReadable) {
  OpenRequest req = sw_request();
  req.pid = -1;
  req.cpu = 0;
  SystemReadings r;
  EXPECT_THAT(explain_open_errno(EACCES, req, r), HasSubstr("(it is unknown)"));
  EXPECT_THAT(explain_open_errno(EACCES, req, r), Not(HasSubstr("{}")));
}

}  // namespace
}  // namespace perfx::sys
