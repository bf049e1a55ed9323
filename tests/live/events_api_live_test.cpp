// The public event API on the running kernel: EventFd/EventHandle ioctls on software
// events (ENABLE/DISABLE/RESET with group scope, ID, REFRESH with overflow signals, PERIOD,
// SET_OUTPUT, PAUSE_OUTPUT, prctl), tracepoints with SET_FILTER and BPF (SET_BPF /
// QUERY_BPF), breakpoints (MODIFY_ATTRIBUTES, the cannot-fire trust state), uprobes via
// their builder, CounterSet's ids/handles/read_format, and EINVAL errors naming a field.

#include <fcntl.h>
#include <gtest/gtest.h>
#include <linux/bpf.h>
#include <linux/perf_event.h>
#include <signal.h>
#include <sys/mman.h>
#include <sys/syscall.h>
#include <unistd.h>

#include <pthread.h>

#include <cerrno>
#include <cstring>
#include <string>
#include <utility>
#include <vector>

#include "live_support.hpp"
#include "perfx/counter.hpp"
#include "perfx/event_handle.hpp"
#include "perfx/events.hpp"
#include "sys/breakpoint_check.hpp"
#include "sys/workload.hpp"

namespace perfx {
namespace {

using live_support::touch_pages;

raw::EventAttr sw_attr(std::uint64_t config) {
  raw::EventAttr a = software_event(static_cast<SoftwareEvent>(config)).attr;
  a.disabled = 1;
  a.exclude_kernel = 1;
  a.exclude_hv = 1;
  return a;
}

TEST(EventsApiLive, EventFdIoctlsAndIds) {
  raw::EventAttr a = sw_attr(PERF_COUNT_SW_PAGE_FAULTS);
  a.read_format = PERF_FORMAT_ID | PERF_FORMAT_TOTAL_TIME_ENABLED | PERF_FORMAT_TOTAL_TIME_RUNNING;
  auto ev = EventFd::open(a, OpenTarget::self(), "page-faults");
  ASSERT_TRUE(ev) << ev.error().message();
  auto id = ev->id();
  ASSERT_TRUE(id) << id.error().message();
  EXPECT_NE(*id, 0u);

  ASSERT_TRUE(ev->enable());
  touch_pages(50);
  ASSERT_TRUE(ev->disable());
  auto r = ev->read();
  ASSERT_TRUE(r) << r.error().message();
  ASSERT_EQ(r->values.size(), 1u);
  EXPECT_GE(r->values[0].value, 50u);
  EXPECT_EQ(r->values[0].id, *id);  // the caller's PERF_FORMAT_ID is in the read
  EXPECT_EQ(r->count(0).trust, Trust::kCounted);

  ASSERT_TRUE(ev->reset());
  auto z = ev->read();
  ASSERT_TRUE(z);
  EXPECT_EQ(z->values[0].value, 0u);

  // A counting event has no period to change and nothing to refresh: typed errors.
  auto p = ev->set_period(1000);
  ASSERT_FALSE(p);
  EXPECT_EQ(p.error().sys_errno(), EINVAL);
  EXPECT_NE(p.error().message().find("PERF_EVENT_IOC_PERIOD"), std::string::npos);
  EXPECT_FALSE(ev->refresh(0));  // rejected before the kernel: count must be > 0
  // MODIFY_ATTRIBUTES is for breakpoints only.
  EXPECT_FALSE(ev->modify_attributes(a));
}

TEST(EventsApiLive, GroupScopeAndNoGroupFlag) {
  raw::EventAttr la = sw_attr(PERF_COUNT_SW_PAGE_FAULTS);
  la.read_format = PERF_FORMAT_GROUP | PERF_FORMAT_ID;
  auto leader = EventFd::open(la, OpenTarget::self());
  ASSERT_TRUE(leader) << leader.error().message();
  raw::EventAttr ma = sw_attr(PERF_COUNT_SW_PAGE_FAULTS_MIN);
  ma.read_format = PERF_FORMAT_GROUP | PERF_FORMAT_ID;
  auto member = EventFd::open(ma, OpenTarget::self().in_group(*leader));
  ASSERT_TRUE(member) << member.error().message();

  // ENABLE with PERF_IOC_FLAG_GROUP through the member enables the whole group.
  ASSERT_TRUE(member->enable(IocScope::kGroup));
  touch_pages(30);
  ASSERT_TRUE(leader->disable(IocScope::kGroup));
  auto r = leader->read(2);
  ASSERT_TRUE(r) << r.error().message();
  ASSERT_EQ(r->values.size(), 2u);
  const ReadEntry* m = r->find_id(*member->id());
  ASSERT_NE(m, nullptr);
  EXPECT_GE(m->value, 30u);
  EXPECT_GE(r->find_id(*leader->id())->value, 30u);

  // PERF_FLAG_FD_NO_GROUP: group_fd is ignored, the event leads itself.
  OpenTarget t = OpenTarget::self().in_group(*leader);
  t.flags = OpenFlags::kFdNoGroup | OpenFlags::kFdCloexec;
  raw::EventAttr lone = sw_attr(PERF_COUNT_SW_PAGE_FAULTS);
  auto alone = EventFd::open(lone, t);
  ASSERT_TRUE(alone) << alone.error().message();
  ASSERT_TRUE(alone->enable());
  touch_pages(10);
  auto ar = alone->read();
  ASSERT_TRUE(ar);
  EXPECT_GE(ar->values[0].value, 10u);  // counts although the group above is disabled
  EXPECT_EQ(::fcntl(alone->fd(), F_GETFD) & FD_CLOEXEC, FD_CLOEXEC);
}

TEST(EventsApiLive, PrctlPairTogglesEveryEvent) {
  raw::EventAttr a = sw_attr(PERF_COUNT_SW_PAGE_FAULTS);
  a.disabled = 0;
  auto ev = EventFd::open(a, OpenTarget::self());
  ASSERT_TRUE(ev) << ev.error().message();
  ASSERT_TRUE(task_events_disable());
  const auto before = ev->read()->values[0].value;
  touch_pages(40);
  const auto during = ev->read()->values[0].value;
  EXPECT_EQ(during, before);  // disabled by prctl
  ASSERT_TRUE(task_events_enable());
  touch_pages(40);
  EXPECT_GE(ev->read()->values[0].value, during + 40);
}

/// Drains the queued (real-time) signal `sig`: how many, and the si_code of the last.
std::pair<int, int> drain_signals(int sig, int fd) {
  sigset_t set;
  sigemptyset(&set);
  sigaddset(&set, sig);
  int got = 0;
  int last_code = 0;
  siginfo_t info{};
  timespec zero{};
  while (::sigtimedwait(&set, &info, &zero) > 0) {
    ++got;
    last_code = info.si_code;
    EXPECT_EQ(info.si_fd, fd);
  }
  return {got, last_code};
}

TEST(EventsApiLive, RefreshStopsAfterNOverflows) {
  const int sig = SIGRTMIN + 2;  // real-time signals queue: none is merged
  sigset_t set;
  sigemptyset(&set);
  sigaddset(&set, sig);
  ASSERT_EQ(::pthread_sigmask(SIG_BLOCK, &set, nullptr), 0);
  raw::EventAttr a = sw_attr(PERF_COUNT_SW_PAGE_FAULTS);
  a.sample_period = 4;
  a.sample_type = PERF_SAMPLE_IP;
  a.wakeup_events = 1;
  auto ev = EventFd::open(a, OpenTarget::self());
  ASSERT_TRUE(ev) << ev.error().message();
  // Overflow signals come from the ring buffer's wakeups: map one.
  const std::size_t len = 2 * 4096;
  void* map = ::mmap(nullptr, len, PROT_READ | PROT_WRITE, MAP_SHARED, ev->fd(), 0);
  ASSERT_NE(map, MAP_FAILED) << std::strerror(errno);
  ASSERT_TRUE(ev->route_signals(sig));
  ASSERT_TRUE(ev->refresh(3));  // enables for 3 overflows
  touch_pages(64);              // 16 periods; the event disables itself after 3
  auto [got, last] = drain_signals(sig, ev->fd());
  EXPECT_EQ(got, 3);
  EXPECT_EQ(last, POLL_HUP);
  ASSERT_TRUE(ev->set_period(2));  // a sampling event takes a new period
  ASSERT_TRUE(ev->refresh(1));
  touch_pages(20);
  auto [again, again_last] = drain_signals(sig, ev->fd());
  EXPECT_EQ(again, 1);
  EXPECT_EQ(again_last, POLL_HUP);
  ASSERT_EQ(::pthread_sigmask(SIG_UNBLOCK, &set, nullptr), 0);
  ::munmap(map, len);
}

TEST(EventsApiLive, PauseOutputAndSetOutput) {
  raw::EventAttr a = sw_attr(PERF_COUNT_SW_PAGE_FAULTS);
  a.sample_period = 1;
  a.sample_type = PERF_SAMPLE_IP;
  auto ev = EventFd::open(a, OpenTarget::self());
  ASSERT_TRUE(ev) << ev.error().message();
  const std::size_t len = 3 * 4096;
  void* map = ::mmap(nullptr, len, PROT_READ | PROT_WRITE, MAP_SHARED, ev->fd(), 0);
  ASSERT_NE(map, MAP_FAILED) << std::strerror(errno);
  auto* page = static_cast<volatile perf_event_mmap_page*>(map);

  ASSERT_TRUE(ev->pause_output());
  ASSERT_TRUE(ev->enable());
  touch_pages(10);
  EXPECT_EQ(page->data_head, 0u);  // paused: nothing written
  ASSERT_TRUE(ev->resume_output());
  touch_pages(10);
  EXPECT_GT(page->data_head, 0u);
  ASSERT_TRUE(ev->disable());

  // A second event writes into the first one's buffer.
  auto other = EventFd::open(a, OpenTarget::self());
  ASSERT_TRUE(other) << other.error().message();
  ASSERT_TRUE(other->set_output(*ev));
  ASSERT_TRUE(other->detach_output());
  EXPECT_FALSE(other->set_output(EventHandle{}));  // an invalid target is refused
  ::munmap(map, len);
}

/// Counts getpid() through raw_syscalls:sys_enter; `filter` empty = no filter.
Result<std::uint64_t> count_getpid(const std::string& filter, int calls) {
  PERFX_TRY(spec, tracepoint_event("raw_syscalls", "sys_enter"));
  raw::EventAttr a = spec.attr;
  a.disabled = 1;
  PERFX_TRY(ev, EventFd::open(a, OpenTarget::self(), spec.name));
  if (!filter.empty()) PERFX_CHECK(ev.set_filter(filter));
  PERFX_CHECK(ev.enable());
  for (int i = 0; i < calls; ++i) ::syscall(SYS_getpid);
  PERFX_CHECK(ev.disable());
  PERFX_TRY(r, ev.read());
  return r.values.at(0).value;
}

TEST(EventsApiLive, TracepointFilter) {
  if (!tracepoint_event("raw_syscalls", "sys_enter")) {
    GTEST_SKIP() << "raw_syscalls:sys_enter unavailable: "
                 << tracepoint_event("raw_syscalls", "sys_enter").error().message();
  }
  auto filtered = count_getpid("id == " + std::to_string(SYS_getpid), 57);
  ASSERT_TRUE(filtered) << filtered.error().message();
  EXPECT_EQ(*filtered, 57u);  // only getpid passes the filter, each call once
  auto all = count_getpid("", 57);
  ASSERT_TRUE(all);
  EXPECT_GT(*all, 57u);  // ioctl(DISABLE) and friends too

  auto bad = count_getpid("no_such_field == 1", 1);
  ASSERT_FALSE(bad);
  EXPECT_NE(bad.error().message().find("PERF_EVENT_IOC_SET_FILTER"), std::string::npos);
}

/// Loads `r0 = 0; exit` as a BPF_PROG_TYPE_TRACEPOINT program; -errno on failure.
int load_trivial_bpf() {
  struct bpf_insn insns[2] = {};
  insns[0].code = BPF_ALU64 | BPF_MOV | BPF_K;  // r0 = 0
  insns[0].dst_reg = BPF_REG_0;
  insns[1].code = BPF_JMP | BPF_EXIT;
  char license[] = "GPL";
  union bpf_attr attr {};
  attr.prog_type = BPF_PROG_TYPE_TRACEPOINT;
  attr.insn_cnt = 2;
  attr.insns = reinterpret_cast<std::uintptr_t>(insns);
  attr.license = reinterpret_cast<std::uintptr_t>(license);
  const long fd = ::syscall(SYS_bpf, BPF_PROG_LOAD, &attr, sizeof(attr));
  return fd < 0 ? -errno : static_cast<int>(fd);
}

TEST(EventsApiLive, SetBpfAndQueryBpf) {
  auto spec = tracepoint_event("raw_syscalls", "sys_enter");
  if (!spec) GTEST_SKIP() << "raw_syscalls:sys_enter unavailable: " << spec.error().message();
  const int prog = load_trivial_bpf();
  if (prog < 0) {
    GTEST_SKIP() << "bpf(BPF_PROG_LOAD) of a trivial tracepoint program failed here: "
                 << std::strerror(-prog);
  }
  raw::EventAttr a = spec->attr;
  a.disabled = 1;
  auto ev = EventFd::open(a, OpenTarget::self(), spec->name);
  ASSERT_TRUE(ev) << ev.error().message();
  auto none = ev->query_bpf();
  ASSERT_TRUE(none) << none.error().message();
  EXPECT_TRUE(none->empty());
  ASSERT_TRUE(ev->set_bpf(prog)) << ev->set_bpf(prog).error().message();
  auto ids = ev->query_bpf();
  ASSERT_TRUE(ids) << ids.error().message();
  ASSERT_EQ(ids->size(), 1u);
  EXPECT_NE((*ids)[0], 0u);
  ::close(prog);
}

alignas(8) volatile std::uint64_t g_watch_a = 0;
alignas(8) volatile std::uint64_t g_watch_b = 0;

TEST(EventsApiLive, BreakpointTrustAndModifyAttributes) {
  auto spec =
      breakpoint_event(reinterpret_cast<std::uintptr_t>(&g_watch_a), BreakpointAccess::kWrite, 8);
  ASSERT_TRUE(spec) << spec.error().message();
  const std::vector<EventGroup> groups = {EventGroup{{*spec}, false}};
  const auto cg = counter_groups(groups);
  auto set = CounterSet::open(cg, CountTarget::self());
  if (!set) GTEST_SKIP() << "breakpoint cannot be opened here: " << set.error().message();
  ASSERT_TRUE(set->enable());
  for (int i = 0; i < 5; ++i) g_watch_a = g_watch_a + 1;
  ASSERT_TRUE(set->disable());
  auto snap = set->read();
  ASSERT_TRUE(snap) << snap.error().message();
  const Count c = snap->total(0);
  if (breakpoints_fire() == BreakpointSupport::kNeverFires) {
    // This VM: opens, runs, counts 0. Never reported as an exact 0.
    EXPECT_EQ(c.trust, Trust::kCannotFire);
    EXPECT_TRUE(snap->events[0].cannot_fire);
    EXPECT_EQ(snap->events[0].note, breakpoint_support_reason(BreakpointSupport::kNeverFires));
    EXPECT_EQ(c.raw, 0u);
  } else {
    EXPECT_EQ(c.trust, Trust::kCounted);
    EXPECT_EQ(c.raw, 5u);
  }

  // MODIFY_ATTRIBUTES moves the open breakpoint to another address.
  auto handles = set->handles(0);
  ASSERT_EQ(handles.size(), 1u);
  raw::EventAttr moved = snap->events[0].attr;  // as opened: the kernel compares the rest
  moved.bp_addr = reinterpret_cast<std::uintptr_t>(&g_watch_b);
  auto m = handles[0].modify_attributes(moved);
  ASSERT_TRUE(m) << m.error().message();
  // Any other field changed is refused.
  moved.exclude_user = !moved.exclude_user;
  EXPECT_FALSE(handles[0].modify_attributes(moved));
}

// Where breakpoints do fire (this VM's do now), the silent path is forced: the set must
// then mark the event cannot-fire whatever it read, never an exact-looking "counted".
TEST(EventsApiLive, SilentBreakpointsAreCannotFire) {
  sys::force_breakpoint_check_for_testing(sys::BreakpointCheck::kSilent);
  auto spec =
      breakpoint_event(reinterpret_cast<std::uintptr_t>(&g_watch_b), BreakpointAccess::kWrite, 8);
  ASSERT_TRUE(spec) << spec.error().message();
  EXPECT_EQ(breakpoints_fire(), BreakpointSupport::kNeverFires);
  const std::vector<EventGroup> groups = {EventGroup{{*spec}, false}};
  auto set = CounterSet::open(counter_groups(groups), CountTarget::self());
  sys::force_breakpoint_check_for_testing(std::nullopt);
  if (!set) GTEST_SKIP() << "breakpoint cannot be opened here: " << set.error().message();
  ASSERT_TRUE(set->enable());
  g_watch_b = g_watch_b + 1;
  ASSERT_TRUE(set->disable());
  auto snap = set->read();
  ASSERT_TRUE(snap) << snap.error().message();
  EXPECT_TRUE(snap->events[0].cannot_fire);
  EXPECT_EQ(snap->events[0].note, sys::kSilentBreakpointsReason);
  EXPECT_EQ(snap->total(0).trust, Trust::kCannotFire);
  EXPECT_NE(explain_count(snap->total(0)).find("cannot fire"), std::string::npos);
}

TEST(EventsApiLive, CounterSetIdsHandlesAndCallerReadFormat) {
  auto groups = parse_events("{cpu-clock,page-faults},task-clock");
  ASSERT_TRUE(groups) << groups.error().message();
  auto cg = counter_groups(*groups);
  cg[0].events[0].attr.read_format = PERF_FORMAT_ID;  // the caller's choice: no LOST
  auto set = CounterSet::open(cg, CountTarget::self());
  ASSERT_TRUE(set) << set.error().message();

  // Never enabled: says so.
  auto idle = set->read();
  ASSERT_TRUE(idle);
  EXPECT_EQ(idle->total(2).trust, Trust::kNotCounted);
  EXPECT_NE(explain_count(idle->total(2)).find("never enabled"), std::string::npos);

  // Through the leaders with group scope.
  for (const EventHandle& l : set->leaders()) ASSERT_TRUE(l.enable(IocScope::kGroup));
  touch_pages(30);
  for (const EventHandle& l : set->leaders()) ASSERT_TRUE(l.disable(IocScope::kGroup));
  auto snap = set->read();
  ASSERT_TRUE(snap) << snap.error().message();
  EXPECT_GE(snap->total(1).value, 30.0);
  EXPECT_EQ(snap->total(0).trust, Trust::kCounted);

  const std::uint64_t rf0 = snap->events[0].attr.read_format;
  EXPECT_NE(rf0 & PERF_FORMAT_ID, 0u);
  EXPECT_NE(rf0 & PERF_FORMAT_GROUP, 0u);
  EXPECT_NE(rf0 & PERF_FORMAT_TOTAL_TIME_RUNNING, 0u);
  EXPECT_EQ(rf0 & (1U << 4), 0u);  // LOST not added over the caller's read_format
  EXPECT_NE(snap->events[2].attr.read_format & (1U << 4), 0u);  // default: LOST added

  for (std::size_t e = 0; e < set->size(); ++e) {
    const auto ids = set->ids(e);
    const auto hs = set->handles(e);
    ASSERT_EQ(ids.size(), 1u);
    ASSERT_EQ(hs.size(), 1u);
    EXPECT_EQ(snap->events[e].ids, ids);
    auto id = hs[0].id();
    ASSERT_TRUE(id);
    EXPECT_EQ(*id, ids[0]);
  }
}

TEST(EventsApiLive, EinvalNamesTheField) {
  raw::EventAttr a = sw_attr(PERF_COUNT_SW_TASK_CLOCK);
  a.use_clockid = 1;
  a.clockid = 99;
  CounterEvent ev{"task-clock", a};
  const std::vector<CounterGroupSpec> g = {CounterGroupSpec{{ev}, false}};
  auto set = CounterSet::open(g, CountTarget::self());
  ASSERT_FALSE(set) << "a bad clockid must not open as <not supported>";
  EXPECT_EQ(set.error().code(), Errc::kInvalidArgument);
  EXPECT_EQ(set.error().sys_errno(), EINVAL);
  EXPECT_NE(set.error().message().find("attr.clockid 99"), std::string::npos)
      << set.error().message();

  auto fd = EventFd::open(a, OpenTarget::self(), "task-clock");
  ASSERT_FALSE(fd);
  EXPECT_EQ(fd.error().code(), Errc::kInvalidArgument);
  EXPECT_NE(fd.error().message().find("attr.clockid 99"), std::string::npos)
      << fd.error().message();
}

TEST(EventsApiLive, UprobeBuilderCountsEveryCall) {
  const std::string fixture = std::string(PERFX_FIXTURE_DIR) + "/uprobe_calls";
  ASSERT_EQ(::access(fixture.c_str(), X_OK), 0) << fixture << " was not built";
  auto spec = uprobe_event(fixture, "uprobe_target");
  if (!spec && spec.error().code() == Errc::kNotFound &&
      ::access("/sys/bus/event_source/devices/uprobe", F_OK) != 0) {
    GTEST_SKIP() << spec.error().message();
  }
  ASSERT_TRUE(spec) << spec.error().message();
  const std::vector<EventGroup> groups = {EventGroup{{*spec}, false}};
  auto w = sys::Workload::prepare({fixture, "23"});
  ASSERT_TRUE(w) << w.error().message();
  auto set = CounterSet::open(counter_groups(groups), CountTarget::workload(w->pid()));
  ASSERT_TRUE(set) << set.error().message();
  ASSERT_TRUE(w->start());
  ASSERT_TRUE(w->wait());
  auto snap = set->read();
  ASSERT_TRUE(snap) << snap.error().message();
  EXPECT_EQ(snap->total(0).trust, Trust::kCounted);
  EXPECT_EQ(snap->total(0).value, 23.0);
}

TEST(EventsApiLive, KprobeNeedsTheKprobePmu) {
  auto spec = kprobe_event("do_sys_openat2");
  if (!spec) {
    ASSERT_EQ(spec.error().code(), Errc::kNotFound);
    GTEST_SKIP() << "no kprobes on this kernel (CONFIG_KPROBES unset): " << spec.error().message();
  }
  raw::EventAttr a = spec->attr_for_open();
  a.disabled = 1;
  auto ev = EventFd::open(a, OpenTarget::self(), spec->name);
  ASSERT_TRUE(ev) << ev.error().message();
}

TEST(EventsApiLive, ListOffersSoftwareEvents) {
  auto list = list_events(ListEventsOptions{"sw", true});
  ASSERT_TRUE(list) << list.error().message();
  bool task_clock = false;
  for (const EventListing& e : *list) {
    if (e.name == "task-clock") task_clock = e.supported && e.probed;
  }
  EXPECT_TRUE(task_clock);
}

}  // namespace
}  // namespace perfx
