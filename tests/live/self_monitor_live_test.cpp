// Self-monitoring and the metadata page on real events. This VM has no hardware PMU, so
// the rdpmc instruction itself is not exercised here (the loop around it is unit-tested
// with simulated pages); what runs is everything around it: the page of a software event,
// the reason for each unavailable fast path, and the read(2) fallback.

#include <linux/perf_event.h>
#include <signal.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>

#include <gtest/gtest.h>

#include <string>

#include "perfx/mmap_page.hpp"
#include "perfx/self_monitor.hpp"
#include "sys/perf_event_open.hpp"

namespace perfx {
namespace {

void burn() {
  volatile std::uint64_t x = 0;
  for (int i = 0; i < 20'000'000; ++i) x = x + static_cast<std::uint64_t>(i);
}

raw::EventAttr task_clock() {
  raw::EventAttr a{};
  a.type = PERF_TYPE_SOFTWARE;
  a.config = PERF_COUNT_SW_TASK_CLOCK;
  return a;
}

bool contains(const std::string& s, const char* what) { return s.find(what) != std::string::npos; }

TEST(SelfMonitorLive, SoftwareEventPageIsReadableAndFallsBackWithAReason) {
  auto mon = SelfMonitor::open(task_clock());
  ASSERT_TRUE(mon) << mon.error().message();
  EXPECT_EQ(mon->fast_path_unavailable(), RdpmcUnavailable::kSoftwareEvent);
  EXPECT_TRUE(contains(mon->fast_path_reason(), "software event")) << mon->fast_path_reason();

  ASSERT_TRUE(mon->enable());
  burn();
  auto first = mon->read();
  ASSERT_TRUE(first) << first.error().message();
  burn();
  ASSERT_TRUE(mon->disable());
  auto second = mon->read();
  ASSERT_TRUE(second) << second.error().message();

  EXPECT_FALSE(first->fast_path);
  EXPECT_EQ(first->why, RdpmcUnavailable::kSoftwareEvent);
  EXPECT_FALSE(first->reason.empty());
  EXPECT_GT(first->raw.value, 0u);
  EXPECT_GT(second->raw.value, first->raw.value);  // a live counter, read through read(2)
  EXPECT_EQ(second->scaled.trust, Trust::kCounted);
  EXPECT_EQ(second->raw.time_enabled, second->raw.time_running);

  // The kernel writes the page's self-monitoring fields at each update (schedule-in,
  // enable ...): they are the count and times of some moment before our last read.
  auto snap = mon->page().snapshot();
  ASSERT_TRUE(snap) << snap.error().message();
  EXPECT_EQ(snap->lock % 2, 0u);
  EXPECT_GT(snap->lock, 0u);                           // updated at least once (enable/disable)
  EXPECT_TRUE(snap->capabilities.bit0_is_deprecated);  // every kernel >= 3.12
  EXPECT_FALSE(snap->capabilities.bit0);
  EXPECT_FALSE(snap->capabilities.user_rdpmc);  // no hardware counter behind a software event
  EXPECT_EQ(snap->index, 0u);
  EXPECT_GE(snap->size, 72u);  // the header reaches at least time_zero
  EXPECT_LE(static_cast<std::uint64_t>(snap->offset), second->raw.value);
  EXPECT_LE(snap->time_enabled, second->raw.time_enabled);
  EXPECT_EQ(snap->data_offset, static_cast<std::uint64_t>(::sysconf(_SC_PAGESIZE)));
  EXPECT_EQ(snap->data_size, 0u);  // one page, no data area
  EXPECT_EQ(snap->aux_size, 0u);
}

TEST(SelfMonitorLive, MissingHardwarePmuIsReportedOrTheFastPathIsTried) {
  raw::EventAttr a{};
  a.type = PERF_TYPE_HARDWARE;
  a.config = PERF_COUNT_HW_INSTRUCTIONS;
  a.exclude_kernel = 1;
  a.exclude_hv = 1;
  auto mon = SelfMonitor::open(a);
  if (!mon) {
    EXPECT_EQ(mon.error().code(), Errc::kNotSupported) << mon.error().message();
    EXPECT_TRUE(contains(mon.error().message(), "no hardware PMU")) << mon.error().message();
    GTEST_SKIP() << "no hardware PMU here, so the rdpmc instruction cannot run: "
                 << mon.error().message();
  }
  ASSERT_TRUE(mon->enable());
  burn();
  auto r = mon->read();
  ASSERT_TRUE(r) << r.error().message();
  if (!r->fast_path) {
    EXPECT_FALSE(r->reason.empty());  // cap_user_rdpmc = 0 or index = 0, said so
  }
  EXPECT_GT(r->raw.value, 0u);
  auto sys = mon->read_syscall();
  ASSERT_TRUE(sys);
  EXPECT_GE(sys->value, r->raw.value);  // read later, while still counting
}

TEST(SelfMonitorLive, EventOfAnotherTaskIsNotReadWithRdpmc) {
  const pid_t child = ::fork();
  ASSERT_GE(child, 0);
  if (child == 0) {
    ::pause();
    ::_exit(0);
  }
  raw::EventAttr a = task_clock();
  a.read_format = PERF_FORMAT_TOTAL_TIME_ENABLED | PERF_FORMAT_TOTAL_TIME_RUNNING;
  auto fd = sys::perf_event_open(a, child, -1, -1);
  ASSERT_TRUE(fd) << fd.error().message();
  {
    auto mon = SelfMonitor::attach(fd->get(), a, child, -1);
    ASSERT_TRUE(mon) << mon.error().message();
    EXPECT_EQ(mon->fast_path_unavailable(), RdpmcUnavailable::kOtherTask);
    EXPECT_TRUE(contains(mon->fast_path_reason(), "another task")) << mon->fast_path_reason();
    auto r = mon->read();
    ASSERT_TRUE(r) << r.error().message();
    EXPECT_FALSE(r->fast_path);
    EXPECT_EQ(r->why, RdpmcUnavailable::kOtherTask);
  }
  ::kill(child, SIGKILL);
  ::waitpid(child, nullptr, 0);
}

TEST(SelfMonitorLive, InheritedEventCannotBeMappedButStillReads) {
  raw::EventAttr a = task_clock();
  a.inherit = 1;
  a.read_format = PERF_FORMAT_TOTAL_TIME_ENABLED | PERF_FORMAT_TOTAL_TIME_RUNNING;
  auto fd = sys::perf_event_open(a, 0, -1, -1);
  ASSERT_TRUE(fd) << fd.error().message();
  auto mon = SelfMonitor::attach(fd->get(), a, 0, -1);
  ASSERT_TRUE(mon) << mon.error().message();
  EXPECT_EQ(mon->fast_path_unavailable(), RdpmcUnavailable::kNotMapped);
  EXPECT_TRUE(contains(mon->fast_path_reason(), "inherit")) << mon->fast_path_reason();
  EXPECT_FALSE(mon->page().valid());
  burn();
  auto r = mon->read();
  ASSERT_TRUE(r) << r.error().message();
  EXPECT_EQ(r->why, RdpmcUnavailable::kNotMapped);
  EXPECT_GT(r->raw.value, 0u);  // the event was created enabled
}

TEST(SelfMonitorLive, GroupReadFormatFindsTheValueById) {
  raw::EventAttr leader = task_clock();
  leader.disabled = 1;
  leader.read_format = PERF_FORMAT_GROUP | PERF_FORMAT_ID | PERF_FORMAT_TOTAL_TIME_ENABLED |
                       PERF_FORMAT_TOTAL_TIME_RUNNING;
  raw::EventAttr member = leader;
  member.disabled = 0;
  member.config = PERF_COUNT_SW_PAGE_FAULTS;
  auto lfd = sys::perf_event_open(leader, 0, -1, -1);
  ASSERT_TRUE(lfd) << lfd.error().message();
  auto mfd = sys::perf_event_open(member, 0, -1, lfd->get());
  ASSERT_TRUE(mfd) << mfd.error().message();
  auto lead_mon = SelfMonitor::attach(lfd->get(), leader, 0, -1);
  auto member_mon = SelfMonitor::attach(mfd->get(), member, 0, -1);
  ASSERT_TRUE(lead_mon) << lead_mon.error().message();
  ASSERT_TRUE(member_mon) << member_mon.error().message();
  ASSERT_TRUE(lead_mon->enable());
  burn();
  std::vector<char> touch(1 << 22);  // page faults for the member
  for (std::size_t i = 0; i < touch.size(); i += 4096) touch[i] = 1;
  ASSERT_TRUE(lead_mon->disable());
  auto l = lead_mon->read_syscall();
  auto m = member_mon->read_syscall();
  ASSERT_TRUE(l) << l.error().message();
  ASSERT_TRUE(m) << m.error().message();
  EXPECT_GT(l->value, 1'000'000u);  // ns of task-clock
  EXPECT_GE(m->value, 1000u);       // 4 MiB touched: about 1024 faults
  EXPECT_LT(m->value, 100'000u);

  raw::EventAttr no_id = leader;
  no_id.read_format &= ~static_cast<std::uint64_t>(PERF_FORMAT_ID);
  auto bad = SelfMonitor::attach(lfd->get(), no_id, 0, -1);
  ASSERT_FALSE(bad);
  EXPECT_EQ(bad.error().code(), Errc::kInvalidArgument);
}

// The per-read decision: an event that is not known to be software at open (here a
// task-clock fd described to attach() as a raw PMU event) is read through the page, which
// says cap_user_rdpmc = 0, so the read falls back with that reason.
TEST(SelfMonitorLive, PerReadReasonComesFromThePage) {
  raw::EventAttr a = task_clock();
  a.read_format = PERF_FORMAT_TOTAL_TIME_ENABLED | PERF_FORMAT_TOTAL_TIME_RUNNING;
  auto fd = sys::perf_event_open(a, 0, -1, -1);
  ASSERT_TRUE(fd) << fd.error().message();
  raw::EventAttr described = a;
  described.type = PERF_TYPE_RAW;
  auto mon = SelfMonitor::attach(fd->get(), described, 0, -1);
  ASSERT_TRUE(mon) << mon.error().message();
  EXPECT_EQ(mon->fast_path_unavailable(), RdpmcUnavailable::kNone);
  EXPECT_TRUE(mon->fast_path_reason().empty());
  burn();
  auto r = mon->read();
  ASSERT_TRUE(r) << r.error().message();
  EXPECT_FALSE(r->fast_path);
  EXPECT_EQ(r->why, RdpmcUnavailable::kNoCapability);
  EXPECT_TRUE(contains(r->reason, "cap_user_rdpmc is 0")) << r->reason;
  EXPECT_GT(r->raw.value, 0u);
}

}  // namespace
}  // namespace perfx
