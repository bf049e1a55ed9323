// CounterSet on the running kernel: software events, groups, unsupported events,
// inherit, enable_on_exec, per-CPU, cgroup, prctl; uprobes, msr/tsc, tracepoints and
// breakpoints parsed from perf syntax and counted exactly.

#include <fcntl.h>
#include <gtest/gtest.h>
#include <linux/perf_event.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include <cerrno>
#include <chrono>
#include <cstring>
#include <fstream>
#include <string>
#include <vector>

#include <fmt/format.h>

#include "event/parse.hpp"
#include "live_support.hpp"
#include "perfx/counter.hpp"
#include "sys/breakpoint_check.hpp"
#include "sys/cgroup.hpp"
#include "sys/cpu_list.hpp"
#include "sys/event_resolver.hpp"
#include "sys/ioctl.hpp"
#include "sys/workload.hpp"

namespace perfx {
namespace {

using live_support::kPage;
using live_support::touch_pages;

CounterEvent sw(const char* name, std::uint64_t config) {
  CounterEvent e;
  e.name = name;
  e.attr.type = PERF_TYPE_SOFTWARE;
  e.attr.config = config;
  return e;
}

CounterEvent hw_cycles() {
  CounterEvent e;
  e.name = "cycles";
  e.attr.type = PERF_TYPE_HARDWARE;
  e.attr.config = PERF_COUNT_HW_CPU_CYCLES;
  return e;
}

// Burns `d` of this process's CPU time (not wall time: the machine may be busy).
void burn_cpu(std::chrono::milliseconds d) {
  auto cpu_ns = [] {
    timespec ts{};
    ::clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &ts);
    return static_cast<long long>(ts.tv_sec) * 1000000000LL + ts.tv_nsec;
  };
  const long long end = cpu_ns() + std::chrono::nanoseconds(d).count();
  volatile unsigned x = 0;
  while (cpu_ns() < end) x = x + 1;
}

/// Parses `spec` with the system resolver into one lone event, or says why it cannot be
/// (the PMU, tracefs or file is missing): the caller skips with that reason.
struct ParsedEvent {
  std::vector<event::EventGroup> groups;  // owns the uprobe path config1 points at
  std::vector<CounterGroupSpec> counter_groups;
  std::string why_not;
};

ParsedEvent parse_one(const std::string& spec) {
  ParsedEvent p;
  auto groups = event::parse_event_list(spec, sys::system_resolver());
  if (!groups) {
    p.why_not = groups.error().message();
    return p;
  }
  p.groups = std::move(*groups);
  for (const auto& g : p.groups) {
    CounterGroupSpec cg;
    for (const auto& ev : g.events) {
      cg.events.push_back(CounterEvent{ev.name, ev.attr_for_open(), !ev.explicit_privilege});
    }
    p.counter_groups.push_back(std::move(cg));
  }
  return p;
}

TEST(CounterLive, SelfPageFaultsAndTaskClock) {
  std::vector<CounterGroupSpec> groups{{{sw("page-faults", PERF_COUNT_SW_PAGE_FAULTS)}, false},
                                       {{sw("task-clock", PERF_COUNT_SW_TASK_CLOCK)}, false}};
  auto set = CounterSet::open(groups, CountTarget::self());
  ASSERT_TRUE(set) << set.error().message();
  EXPECT_EQ(set->size(), 2U);
  ASSERT_TRUE(set->enable());
  touch_pages(256);
  ASSERT_TRUE(set->disable());
  auto snap = set->read();
  ASSERT_TRUE(snap) << snap.error().message();
  const Count faults = snap->total(0);
  EXPECT_EQ(faults.trust, Trust::kCounted);
  EXPECT_GE(faults.value, 256);
  EXPECT_LT(faults.value, 256 + 64);
  const Count clock = snap->total(1);
  EXPECT_EQ(clock.trust, Trust::kCounted);
  EXPECT_GT(clock.value, 0);
  // Disabled: more faults are not counted.
  touch_pages(64);
  auto again = set->read();
  ASSERT_TRUE(again);
  EXPECT_DOUBLE_EQ(again->total(0).value, faults.value);
  // RESET zeroes the count.
  ASSERT_TRUE(set->reset());
  auto zero = set->read();
  ASSERT_TRUE(zero);
  EXPECT_EQ(zero->total(0).raw, 0U);
}

TEST(CounterLive, GroupReadsAllMembersTogether) {
  std::vector<CounterGroupSpec> groups{
      {{sw("task-clock", PERF_COUNT_SW_TASK_CLOCK), sw("page-faults", PERF_COUNT_SW_PAGE_FAULTS),
        sw("context-switches", PERF_COUNT_SW_CONTEXT_SWITCHES)},
       true}};
  auto set = CounterSet::open(groups, CountTarget::self());
  ASSERT_TRUE(set) << set.error().message();
  EXPECT_EQ(set->fd_count(), 3U);
  ASSERT_TRUE(set->enable());
  touch_pages(100);
  for (int i = 0; i < 5; ++i) ::usleep(1000);
  ASSERT_TRUE(set->disable());
  auto snap = set->read();
  ASSERT_TRUE(snap) << snap.error().message();
  // Members created enabled and toggled through the leader (kernel behaviour 5) count.
  EXPECT_GE(snap->total(1).value, 100);
  EXPECT_GE(snap->total(2).value, 5);
  // One group read: identical times.
  EXPECT_EQ(snap->events[0].instances[0].time_enabled, snap->events[1].instances[0].time_enabled);
  EXPECT_EQ(snap->events[0].instances[0].time_running, snap->events[2].instances[0].time_running);
}

TEST(CounterLive, UnsupportedEventKeepsTheRestGoing) {
  std::vector<CounterGroupSpec> groups{
      {{hw_cycles()}, false},
      {{sw("page-faults", PERF_COUNT_SW_PAGE_FAULTS)}, false},
      {{hw_cycles(), sw("faults", PERF_COUNT_SW_PAGE_FAULTS)}, true}};
  auto set = CounterSet::open(groups, CountTarget::self());
  ASSERT_TRUE(set) << set.error().message();
  ASSERT_TRUE(set->enable());
  touch_pages(32);
  ASSERT_TRUE(set->disable());
  auto snap = set->read();
  ASSERT_TRUE(snap);
  if (snap->events[0].supported) GTEST_SKIP() << "this machine has a hardware PMU";
  EXPECT_EQ(snap->total(0).trust, Trust::kNotSupported);
  EXPECT_NE(snap->events[0].error.find("no PMU"), std::string::npos) << snap->events[0].error;
  EXPECT_GE(snap->total(1).value, 32);
  // In a group whose leader is unsupported, the next event leads.
  EXPECT_EQ(snap->total(2).trust, Trust::kNotSupported);
  EXPECT_GE(snap->total(3).value, 32);
}

TEST(CounterLive, InheritCountsChildren) {
  for (bool inherit : {true, false}) {
    CountTarget t = CountTarget::self();
    t.inherit = inherit;
    std::vector<CounterGroupSpec> groups{{{sw("page-faults", PERF_COUNT_SW_PAGE_FAULTS)}, false}};
    auto set = CounterSet::open(groups, t);
    ASSERT_TRUE(set) << set.error().message();
    ASSERT_TRUE(set->enable());
    const pid_t child = ::fork();
    ASSERT_GE(child, 0);
    if (child == 0) {
      void* p =
          ::mmap(nullptr, 1000 * kPage, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
      auto* b = static_cast<volatile char*>(p);
      for (std::size_t i = 0; i < 1000; ++i) b[i * kPage] = 1;
      ::_exit(0);
    }
    int status = 0;
    ::waitpid(child, &status, 0);
    ASSERT_TRUE(set->disable());
    auto snap = set->read();
    ASSERT_TRUE(snap);
    if (inherit) {
      EXPECT_GE(snap->total(0).value, 1000) << "inherit=1";
    } else {
      EXPECT_LT(snap->total(0).value, 1000) << "inherit=0";
    }
  }
}

TEST(CounterLive, EnableOnExecWorkload) {
  auto w = sys::Workload::prepare({"/bin/true"});
  ASSERT_TRUE(w) << w.error().message();
  std::vector<CounterGroupSpec> groups{
      {{sw("task-clock", PERF_COUNT_SW_TASK_CLOCK), sw("page-faults", PERF_COUNT_SW_PAGE_FAULTS)},
       true}};
  auto set = CounterSet::open(groups, CountTarget::workload(w->pid()));
  ASSERT_TRUE(set) << set.error().message();
  auto before = set->read();
  ASSERT_TRUE(before);
  EXPECT_EQ(before->total(1).raw, 0U);  // armed, not running before exec
  ASSERT_TRUE(w->start());
  auto st = w->wait();
  ASSERT_TRUE(st);
  EXPECT_EQ(st->code, 0);
  auto snap = set->read();
  ASSERT_TRUE(snap);
  EXPECT_EQ(snap->total(0).trust, Trust::kCounted);
  EXPECT_GT(snap->total(1).value, 10);  // true maps ld.so and libc
}

TEST(CounterLive, PerCpuSystemWide) {
  auto cpus = sys::read_online_cpus();
  ASSERT_TRUE(cpus);
  std::vector<CounterGroupSpec> groups{{{sw("cpu-clock", PERF_COUNT_SW_CPU_CLOCK)}, false}};
  auto set = CounterSet::open(groups, CountTarget::system_wide(*cpus));
  if (!set && set.error().code() == Errc::kPermission) {
    GTEST_SKIP() << set.error().message();
  }
  ASSERT_TRUE(set) << set.error().message();
  EXPECT_EQ(set->fd_count(), cpus->size());
  ASSERT_TRUE(set->enable());
  ::usleep(50000);
  ASSERT_TRUE(set->disable());
  auto snap = set->read();
  ASSERT_TRUE(snap);
  ASSERT_EQ(snap->cpus, *cpus);
  for (std::size_t i = 0; i < cpus->size(); ++i) {
    const Count c = snap->for_cpu(0, i);
    EXPECT_GT(c.value, 40e6) << "cpu " << (*cpus)[i];  // ~50 ms of wall clock per CPU
    EXPECT_LT(c.value, 500e6);
  }
  EXPECT_GT(snap->total(0).value, 40e6 * static_cast<double>(cpus->size()));
}

TEST(CounterLive, SystemWideWithoutCpusIsAnError) {
  std::vector<CounterGroupSpec> groups{{{sw("cpu-clock", PERF_COUNT_SW_CPU_CLOCK)}, false}};
  auto set = CounterSet::open(groups, CountTarget::system_wide({}));
  ASSERT_FALSE(set);
  EXPECT_EQ(set.error().code(), Errc::kInvalidArgument);
}

// Counts while a child joins the cgroup directory `dir` and burns 100 ms of CPU there.
Result<CounterSnapshot> count_child_burning_in(CounterSet& set, const std::string& dir) {
  PERFX_CHECK(set.enable());
  const pid_t child = ::fork();
  if (child < 0) return fail_errno(errno, "fork");
  if (child == 0) {
    std::ofstream(dir + "/cgroup.procs") << ::getpid() << "\n";
    burn_cpu(std::chrono::milliseconds(100));
    ::_exit(0);
  }
  int status = 0;
  ::waitpid(child, &status, 0);
  PERFX_CHECK(set.disable());
  return set.read();
}

TEST(CounterLive, Cgroup) {
  auto mount = sys::cgroup2_mount();
  if (!mount) GTEST_SKIP() << mount.error().message();
  const std::string name = "perfx_live_" + std::to_string(::getpid());
  const std::string dir = *mount + "/" + name;
  if (::mkdir(dir.c_str(), 0755) != 0)
    GTEST_SKIP() << "cannot create " << dir << ": " << std::strerror(errno);
  auto fd = sys::open_cgroup(name);
  ASSERT_TRUE(fd) << fd.error().message();
  auto cpus = sys::read_online_cpus();
  ASSERT_TRUE(cpus);
  std::vector<CounterGroupSpec> groups{{{sw("task-clock", PERF_COUNT_SW_TASK_CLOCK)}, false}};
  auto set = CounterSet::open(groups, CountTarget::cgroup(fd->get(), *cpus));
  if (!set && set.error().code() == Errc::kPermission) {
    ::rmdir(dir.c_str());
    GTEST_SKIP() << set.error().message();
  }
  ASSERT_TRUE(set) << set.error().message();
  auto snap = count_child_burning_in(*set, dir);
  ::rmdir(dir.c_str());
  ASSERT_TRUE(snap);
  EXPECT_GT(snap->total(0).value, 80e6);  // the child burnt 100 ms of CPU inside the cgroup
  EXPECT_LT(snap->total(0).value, 1000e6);
}

TEST(CounterLive, PerEventCgroups) {
  // Two cgroups, one event each (perf stat -G a,b / --for-each-cgroup): only the cgroup
  // the child burns CPU in counts it; a per-event cgroup on a thread target is refused.
  auto mount = sys::cgroup2_mount();
  if (!mount) GTEST_SKIP() << mount.error().message();
  const std::string base = "perfx_live_ev_" + std::to_string(::getpid());
  const std::string busy = *mount + "/" + base + "_busy";
  const std::string idle = *mount + "/" + base + "_idle";
  if (::mkdir(busy.c_str(), 0755) != 0 || ::mkdir(idle.c_str(), 0755) != 0) {
    ::rmdir(busy.c_str());
    GTEST_SKIP() << "cannot create cgroups under " << *mount << ": " << std::strerror(errno);
  }
  auto busy_fd = sys::open_cgroup(base + "_busy");
  auto idle_fd = sys::open_cgroup(base + "_idle");
  ASSERT_TRUE(busy_fd && idle_fd);
  auto cpus = sys::read_online_cpus();
  ASSERT_TRUE(cpus);
  CounterEvent in_busy = sw("task-clock", PERF_COUNT_SW_TASK_CLOCK);
  in_busy.cgroup_fd = busy_fd->get();
  CounterEvent in_idle = sw("task-clock", PERF_COUNT_SW_TASK_CLOCK);
  in_idle.cgroup_fd = idle_fd->get();
  std::vector<CounterGroupSpec> groups{{{in_busy}, false}, {{in_idle}, false}};
  auto refused = CounterSet::open(groups, CountTarget::self());
  ASSERT_FALSE(refused);
  EXPECT_EQ(refused.error().code(), Errc::kInvalidArgument);
  auto set = CounterSet::open(groups, CountTarget::system_wide(*cpus));
  if (!set && set.error().code() == Errc::kPermission) {
    ::rmdir(busy.c_str());
    ::rmdir(idle.c_str());
    GTEST_SKIP() << set.error().message();
  }
  ASSERT_TRUE(set) << set.error().message();
  auto snap = count_child_burning_in(*set, busy);
  ::rmdir(busy.c_str());
  ::rmdir(idle.c_str());
  ASSERT_TRUE(snap);
  EXPECT_GT(snap->total(0).value, 80e6);
  EXPECT_LT(snap->total(0).value, 1000e6);
  EXPECT_EQ(snap->total(1).value, 0);  // nothing ran in the idle cgroup
}

TEST(CounterLive, PrctlDisablesAndEnablesOwnEvents) {
  std::vector<CounterGroupSpec> groups{{{sw("page-faults", PERF_COUNT_SW_PAGE_FAULTS)}, false}};
  auto set = CounterSet::open(groups, CountTarget::self());
  ASSERT_TRUE(set);
  ASSERT_TRUE(set->enable());
  touch_pages(100);
  ASSERT_TRUE(sys::task_events_disable());
  auto a = set->read();
  ASSERT_TRUE(a);
  touch_pages(100);
  auto b = set->read();
  ASSERT_TRUE(b);
  EXPECT_DOUBLE_EQ(a->total(0).value, b->total(0).value);
  ASSERT_TRUE(sys::task_events_enable());
  touch_pages(100);
  auto c = set->read();
  ASSERT_TRUE(c);
  EXPECT_GE(c->total(0).value, b->total(0).value + 100);
}

// A uprobe on a function the workload calls exactly N times counts N (enable_on_exec:
// nothing before exec, the dynamic loader does not call it).
TEST(CounterLive, UprobeCountsEveryCall) {
  const std::string fixture = std::string(PERFX_FIXTURE_DIR) + "/uprobe_calls";
  ASSERT_EQ(::access(fixture.c_str(), X_OK), 0) << fixture << " was not built";
  if (::access("/sys/bus/event_source/devices/uprobe", F_OK) != 0) {
    GTEST_SKIP() << "no uprobe PMU (kernel without CONFIG_UPROBE_EVENTS)";
  }
  ParsedEvent ev = parse_one("uprobe:" + fixture + ":uprobe_target");
  ASSERT_TRUE(ev.why_not.empty()) << ev.why_not;
  for (const std::uint64_t n : {1U, 37U}) {
    auto w = sys::Workload::prepare({fixture, std::to_string(n)});
    ASSERT_TRUE(w) << w.error().message();
    auto set = CounterSet::open(ev.counter_groups, CountTarget::workload(w->pid()));
    ASSERT_TRUE(set) << set.error().message();
    ASSERT_TRUE(w->start());
    auto st = w->wait();
    ASSERT_TRUE(st);
    EXPECT_EQ(st->code, 0);
    auto snap = set->read();
    ASSERT_TRUE(snap) << snap.error().message();
    ASSERT_TRUE(snap->events[0].supported) << snap->events[0].error;
    EXPECT_EQ(snap->total(0).trust, Trust::kCounted);
    EXPECT_EQ(snap->total(0).value, static_cast<double>(n)) << "uprobe_calls " << n;
  }
}

// msr/tsc/ counts the time-stamp counter: it advances while this thread runs.
TEST(CounterLive, MsrTscCounts) {
  if (::access("/sys/bus/event_source/devices/msr/events/tsc", F_OK) != 0) {
    GTEST_SKIP() << "no msr PMU with a tsc event (not x86, or the msr PMU is absent)";
  }
  ParsedEvent ev = parse_one("msr/tsc/");
  ASSERT_TRUE(ev.why_not.empty()) << ev.why_not;
  ev.counter_groups.push_back({{sw("task-clock", PERF_COUNT_SW_TASK_CLOCK)}, false});
  auto set = CounterSet::open(ev.counter_groups, CountTarget::self());
  ASSERT_TRUE(set) << set.error().message();
  auto first = set->read();
  ASSERT_TRUE(first);
  if (!first->events[0].supported) GTEST_SKIP() << first->events[0].error;
  ASSERT_TRUE(set->enable());
  burn_cpu(std::chrono::milliseconds(20));
  ASSERT_TRUE(set->disable());
  auto snap = set->read();
  ASSERT_TRUE(snap) << snap.error().message();
  EXPECT_EQ(snap->total(0).trust, Trust::kCounted);
  // At least ~20 ms of a >= 100 MHz TSC; task-clock ran too.
  EXPECT_GT(snap->total(0).value, 2e6);
  EXPECT_GT(snap->total(1).value, 15e6);
}

// sched:sched_switch fires in the task being switched out: every sleep counts.
TEST(CounterLive, TracepointCountsOwnContextSwitches) {
  ParsedEvent ev = parse_one("sched:sched_switch");
  if (!ev.why_not.empty()) GTEST_SKIP() << "tracepoint unavailable: " << ev.why_not;
  auto set = CounterSet::open(ev.counter_groups, CountTarget::self());
  ASSERT_TRUE(set) << set.error().message();
  ASSERT_TRUE(set->enable());
  constexpr int kSleeps = 5;
  for (int i = 0; i < kSleeps; ++i) ::usleep(2000);
  ASSERT_TRUE(set->disable());
  auto snap = set->read();
  ASSERT_TRUE(snap) << snap.error().message();
  ASSERT_TRUE(snap->events[0].supported) << snap->events[0].error;
  EXPECT_EQ(snap->total(0).trust, Trust::kCounted);
  EXPECT_GE(snap->total(0).value, kSleeps);
  EXPECT_LT(snap->total(0).value, 1000);
}

alignas(8) volatile std::uint64_t g_watched = 0;

// mem:ADDR/8:w on a variable written K times counts K (one debug trap per store).
TEST(CounterLive, WriteBreakpointCountsEveryStore) {
  if (sys::check_hardware_breakpoints() == sys::BreakpointCheck::kSilent)
    GTEST_SKIP() << sys::kSilentBreakpointsReason;
  const auto addr = reinterpret_cast<std::uintptr_t>(&g_watched);
  ParsedEvent ev = parse_one(fmt::format("mem:{:#x}/8:w", addr));
  ASSERT_TRUE(ev.why_not.empty()) << ev.why_not;
  auto set = CounterSet::open(ev.counter_groups, CountTarget::self());
  if (!set && set.error().sys_errno() == ENOSPC) {
    GTEST_SKIP() << "no free debug register: " << set.error().message();
  }
  ASSERT_TRUE(set) << set.error().message();
  auto first = set->read();
  ASSERT_TRUE(first);
  if (!first->events[0].supported) GTEST_SKIP() << first->events[0].error;
  ASSERT_TRUE(set->enable());
  constexpr std::uint64_t kStores = 25;
  std::uint64_t reads = 0;
  for (std::uint64_t i = 0; i < kStores; ++i) {
    g_watched = i;
    reads += g_watched;  // reads do not trigger a write breakpoint
  }
  ASSERT_TRUE(set->disable());
  auto snap = set->read();
  ASSERT_TRUE(snap) << snap.error().message();
  EXPECT_EQ(snap->total(0).trust, Trust::kCounted);
  EXPECT_EQ(snap->total(0).value, static_cast<double>(kStores)) << "reads " << reads;
}

TEST(CounterLive, NoSuchProcessIsExplained) {
  std::vector<CounterGroupSpec> groups{{{sw("task-clock", PERF_COUNT_SW_TASK_CLOCK)}, false}};
  auto set = CounterSet::open(groups, CountTarget::tasks({999999}));
  ASSERT_FALSE(set);
  EXPECT_EQ(set.error().sys_errno(), ESRCH);
  EXPECT_NE(set.error().message().find("no process or thread with id 999999"), std::string::npos)
      << set.error().message();
}

}  // namespace
}  // namespace perfx
