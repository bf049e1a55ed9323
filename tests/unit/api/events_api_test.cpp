// perfx/events.hpp on a fake sysfs/tracefs tree: the one-call parse of perf's syntax,
// the typed builders (hardware, software, cache, raw, sysfs PMU, tracepoint, breakpoint,
// uprobe, kprobe), attr_for_open and the -vv style attr dump. No kernel calls.

#include <gtest/gtest.h>
#include <linux/hw_breakpoint.h>
#include <linux/perf_event.h>

#include <filesystem>
#include <fstream>
#include <string>

#include "../temp_dir.hpp"
#include "../test_files.hpp"
#include "perfx/events.hpp"

namespace perfx {
namespace {

namespace fs = std::filesystem;

constexpr auto write = test_support::write_tree_file;

/// A fake system: sysfs with uprobe, kprobe and a made-up PMU; tracefs with one tracepoint.
class FakeSystem : public ::testing::Test {
 protected:
  void SetUp() override {
    add_pmu("uprobe", {{"type", "7\n"}, {"format/retprobe", "config:0\n"}});
    add_pmu("kprobe", {{"type", "8\n"}, {"format/retprobe", "config:0\n"}});
    add_pmu("fakepmu", {{"type", "42\n"},
                        {"format/event", "config:0-7\n"},
                        {"format/umask", "config:8-15\n"},
                        {"format/ext", "config1:0-3\n"},
                        {"events/loads", "event=0x3c,umask=0x01\n"}});
    write(dir_.file("tracing/events/sched/sched_switch/id"), "316\n");
    paths_.sysfs = dir_.file("sys");
    paths_.tracefs = dir_.file("tracing");
  }
  // A PMU directory in the fake sysfs with these files (path below it, text).
  void add_pmu(const std::string& name,
               std::initializer_list<std::pair<const char*, const char*>> files) {
    for (const auto& [file, text] : files) {
      write(dir_.file("sys/bus/event_source/devices/" + name + "/" + file), text);
    }
  }
  void remove_pmu(const std::string& name) {
    fs::remove_all(dir_.file("sys/bus/event_source/devices/" + name));
  }

  test_support::TempDir dir_{"perfx_events_api"};
  SystemPaths paths_;
};

TEST_F(FakeSystem, ParsesTheIssueSpecInOneCall) {
  auto groups =
      parse_events("task-clock:u,{cpu-clock,page-faults},sched:sched_switch,mem:0x1000:w", paths_);
  ASSERT_TRUE(groups) << groups.error().message();
  ASSERT_EQ(groups->size(), 4u);

  const EventSpec& tc = (*groups)[0].events.at(0);
  EXPECT_FALSE((*groups)[0].is_group);
  EXPECT_EQ(tc.kind, EventKind::kSoftware);
  EXPECT_EQ(tc.attr.type, PERF_TYPE_SOFTWARE);
  EXPECT_EQ(tc.attr.config, PERF_COUNT_SW_TASK_CLOCK);
  EXPECT_EQ(tc.attr.exclude_kernel, 1u);
  EXPECT_TRUE(tc.explicit_privilege);
  EXPECT_EQ(tc.name, "task-clock:u");

  ASSERT_TRUE((*groups)[1].is_group);
  ASSERT_EQ((*groups)[1].events.size(), 2u);
  EXPECT_EQ((*groups)[1].events[0].attr.config, PERF_COUNT_SW_CPU_CLOCK);
  EXPECT_EQ((*groups)[1].events[1].attr.config, PERF_COUNT_SW_PAGE_FAULTS);

  const EventSpec& tp = (*groups)[2].events.at(0);
  EXPECT_EQ(tp.kind, EventKind::kTracepoint);
  EXPECT_EQ(tp.attr.type, PERF_TYPE_TRACEPOINT);
  EXPECT_EQ(tp.attr.config, 316u);
  EXPECT_EQ(tp.default_period, 1u);

  const EventSpec& bp = (*groups)[3].events.at(0);
  EXPECT_EQ(bp.kind, EventKind::kBreakpoint);
  EXPECT_EQ(bp.attr.type, PERF_TYPE_BREAKPOINT);
  EXPECT_EQ(bp.attr.bp_addr, 0x1000u);
  EXPECT_EQ(bp.attr.bp_type, static_cast<unsigned>(HW_BREAKPOINT_W));

  // The same groups as CounterSet input.
  auto cg = counter_groups(*groups);
  ASSERT_EQ(cg.size(), 4u);
  EXPECT_TRUE(cg[1].grouped);
  EXPECT_FALSE(cg[0].events[0].allow_user_only_fallback);  // :u was explicit
  EXPECT_TRUE(cg[1].events[0].allow_user_only_fallback);
}

TEST_F(FakeSystem, ParseErrorsNameTheToken) {
  auto bad = parse_events("task-clock,no_such_event", paths_);
  ASSERT_FALSE(bad);
  EXPECT_NE(bad.error().message().find("no_such_event"), std::string::npos);
  auto tp = parse_event("sched:no_such_tp", paths_);
  ASSERT_FALSE(tp);
  EXPECT_EQ(tp.error().code(), Errc::kNotFound);
}

// perf's --all-user/--all-kernel over each event's modifiers (perf evlist -v of
// `perf stat record --all-user -e page-faults,cpu-clock:k`): exclude_hv/guest stay.
TEST_F(FakeSystem, PrivilegeScopeOverridesModifiers) {
  auto groups = parse_events("page-faults,cpu-clock:k,{task-clock:u,page-faults}", paths_);
  ASSERT_TRUE(groups);
  restrict_privilege(*groups, PrivilegeScope::kUserOnly);
  for (const auto& g : *groups)
    for (const auto& e : g.events) {
      EXPECT_EQ(e.attr.exclude_kernel, 1u) << e.name;
      EXPECT_EQ(e.attr.exclude_user, 0u) << e.name;
    }
  EXPECT_EQ((*groups)[1].events[0].attr.exclude_hv, 1u);     // from :k
  EXPECT_EQ((*groups)[0].events[0].attr.exclude_guest, 1u);  // no modifiers
  restrict_privilege(*groups, PrivilegeScope::kKernelOnly);
  EXPECT_EQ((*groups)[2].events[0].attr.exclude_kernel, 0u);
  EXPECT_EQ((*groups)[2].events[0].attr.exclude_user, 1u);
  raw::EventAttr a{};
  a.exclude_user = 1;
  restrict_privilege(a, PrivilegeScope::kAsWritten);
  EXPECT_EQ(a.exclude_user, 1u);
  EXPECT_EQ(a.exclude_kernel, 0u);
}

TEST(EventBuilders, SymbolicKinds) {
  const EventSpec hw = hardware_event(HardwareEvent::kInstructions);
  EXPECT_EQ(hw.kind, EventKind::kHardware);
  EXPECT_EQ(hw.attr.type, PERF_TYPE_HARDWARE);
  EXPECT_EQ(hw.attr.config, PERF_COUNT_HW_INSTRUCTIONS);
  EXPECT_EQ(hw.name, "instructions");
  EXPECT_EQ(hw.attr.size, raw::kAttrSizeVer8);

  const EventSpec sw = software_event(SoftwareEvent::kContextSwitches);
  EXPECT_EQ(sw.attr.type, PERF_TYPE_SOFTWARE);
  EXPECT_EQ(sw.attr.config, PERF_COUNT_SW_CONTEXT_SWITCHES);
  EXPECT_EQ(sw.name, "context-switches");

  const EventSpec c = cache_event(CacheLevel::kL1d, CacheOp::kRead, CacheResult::kMiss);
  EXPECT_EQ(c.attr.type, PERF_TYPE_HW_CACHE);
  EXPECT_EQ(c.attr.config, PERF_COUNT_HW_CACHE_L1D | (PERF_COUNT_HW_CACHE_OP_READ << 8) |
                               (PERF_COUNT_HW_CACHE_RESULT_MISS << 16));
  EXPECT_EQ(c.name, "L1-dcache-load-misses");
  // The builder and the parser agree.
  auto parsed = parse_event("L1-dcache-load-misses");
  ASSERT_TRUE(parsed) << parsed.error().message();
  EXPECT_EQ(parsed->attr.config, c.attr.config);

  const EventSpec r = raw_event(0x1a8);
  EXPECT_EQ(r.attr.type, PERF_TYPE_RAW);
  EXPECT_EQ(r.attr.config, 0x1a8u);
  EXPECT_EQ(r.name, "r1a8");
}

TEST_F(FakeSystem, PmuEventFromFormatFields) {
  const PmuTerm terms[] = {{"event", 0x12}, {"umask", 0x3}, {"ext", 5}};
  auto e = pmu_event("fakepmu", terms, paths_);
  ASSERT_TRUE(e) << e.error().message();
  EXPECT_EQ(e->kind, EventKind::kPmu);
  EXPECT_EQ(e->attr.type, 42u);
  EXPECT_EQ(e->attr.config, 0x312u);
  EXPECT_EQ(e->attr.config1, 5u);

  const PmuTerm alias[] = {{"loads", 1}};
  auto a = pmu_event("fakepmu", alias, paths_);
  ASSERT_TRUE(a) << a.error().message();
  EXPECT_EQ(a->attr.config, 0x13cu);

  const PmuTerm too_wide[] = {{"umask", 0x1ff}};
  EXPECT_FALSE(pmu_event("fakepmu", too_wide, paths_));
  const PmuTerm unknown[] = {{"nope", 1}};
  EXPECT_FALSE(pmu_event("fakepmu", unknown, paths_));
  EXPECT_EQ(pmu_event("nopmu", {}, paths_).error().code(), Errc::kNotFound);

  auto d = describe_pmu("fakepmu", paths_);
  ASSERT_TRUE(d) << d.error().message();
  EXPECT_EQ(d->type, 42u);
  ASSERT_EQ(d->format.size(), 3u);
  EXPECT_EQ(d->format[0].name, "event");
  EXPECT_EQ(d->format[1].word, 1u);  // ext -> config1
  ASSERT_EQ(d->aliases.size(), 1u);
  EXPECT_EQ(d->aliases[0].first, "loads");
  const auto names = pmu_names(paths_);
  EXPECT_EQ(names, (std::vector<std::string>{"fakepmu", "kprobe", "uprobe"}));
  EXPECT_FALSE(d->rdpmc.has_value());  // no rdpmc file
  EXPECT_TRUE(d->cpumask.empty());     // no cpumask file
}

TEST_F(FakeSystem, PmuRdpmcAndCpumask) {
  add_pmu("cpu", {{"type", "4\n"}, {"rdpmc", "2\n"}});
  add_pmu("uncore_imc", {{"type", "17\n"}, {"cpumask", "0,4-5\n"}});
  add_pmu("cpu_core", {{"type", "8\n"}, {"cpus", "0-3\n"}});
  add_pmu("broken", {{"type", "9\n"}, {"rdpmc", "yes\n"}, {"cpumask", "x\n"}});

  auto cpu = describe_pmu("cpu", paths_);
  ASSERT_TRUE(cpu) << cpu.error().message();
  ASSERT_TRUE(cpu->rdpmc.has_value());
  EXPECT_EQ(*cpu->rdpmc, 2);
  EXPECT_TRUE(cpu->cpumask.empty());

  auto imc = describe_pmu("uncore_imc", paths_);
  ASSERT_TRUE(imc) << imc.error().message();
  EXPECT_FALSE(imc->rdpmc.has_value());
  EXPECT_EQ(imc->cpumask, (std::vector<int>{0, 4, 5}));

  auto core = describe_pmu("cpu_core", paths_);
  ASSERT_TRUE(core);
  EXPECT_EQ(core->cpumask, (std::vector<int>{0, 1, 2, 3}));

  auto broken = describe_pmu("broken", paths_);  // unreadable values are left unset
  ASSERT_TRUE(broken);
  EXPECT_FALSE(broken->rdpmc.has_value());
  EXPECT_TRUE(broken->cpumask.empty());
}

TEST_F(FakeSystem, TracepointByName) {
  auto tp = tracepoint_event("sched", "sched_switch", paths_);
  ASSERT_TRUE(tp) << tp.error().message();
  EXPECT_EQ(tp->attr.config, 316u);
  EXPECT_EQ(tp->canonical, "sched:sched_switch");
  EXPECT_FALSE(tracepoint_event("sched", "sched_*", paths_));  // no globs here
  EXPECT_FALSE(tracepoint_event("sched", "nope", paths_));
}

TEST(EventBuilders, Breakpoint) {
  auto w = breakpoint_event(0x1000, BreakpointAccess::kWrite, 8);
  ASSERT_TRUE(w) << w.error().message();
  EXPECT_EQ(w->attr.type, PERF_TYPE_BREAKPOINT);
  EXPECT_EQ(w->attr.bp_type, static_cast<unsigned>(HW_BREAKPOINT_W));
  EXPECT_EQ(w->attr.bp_len, 8u);
  EXPECT_EQ(w->attr.bp_addr, 0x1000u);
  auto x = breakpoint_event(0x2000, BreakpointAccess::kExecute, sizeof(long));
  ASSERT_TRUE(x) << x.error().message();
  EXPECT_EQ(x->attr.bp_type, static_cast<unsigned>(HW_BREAKPOINT_X));

  auto bad_len = breakpoint_event(0x1000, BreakpointAccess::kWrite, 3);
  ASSERT_FALSE(bad_len);
  EXPECT_NE(bad_len.error().message().find("attr.bp_len"), std::string::npos);
  auto unaligned = breakpoint_event(0x1001, BreakpointAccess::kWrite, 4);
  ASSERT_FALSE(unaligned);
  EXPECT_NE(unaligned.error().message().find("attr.bp_addr"), std::string::npos);
  EXPECT_FALSE(breakpoint_event(0x1000, BreakpointAccess::kExecute, 4));
}

TEST_F(FakeSystem, UprobeThroughItsPmu) {
  auto u = uprobe_event("/usr/bin/true", "", ProbeOptions{0x1234, false}, paths_);
  ASSERT_TRUE(u) << u.error().message();
  EXPECT_EQ(u->kind, EventKind::kUprobe);
  EXPECT_EQ(u->attr.type, 7u);
  EXPECT_EQ(u->attr.config, 0u);
  EXPECT_EQ(u->attr.config1, 0u);  // the pointer is set only by attr_for_open
  EXPECT_EQ(u->attr.config2, 0x1234u);
  EXPECT_EQ(u->probe_target, "/usr/bin/true");
  const raw::EventAttr open = u->attr_for_open();
  EXPECT_EQ(open.config1, reinterpret_cast<std::uintptr_t>(u->probe_target.c_str()));

  auto r = uprobe_event("/usr/bin/true", "", ProbeOptions{0x10, true}, paths_);
  ASSERT_TRUE(r) << r.error().message();
  EXPECT_EQ(r->attr.config, 1u);  // format/retprobe = config:0

  remove_pmu("uprobe");
  auto none = uprobe_event("/usr/bin/true", "", ProbeOptions{0x10, false}, paths_);
  ASSERT_FALSE(none);
  EXPECT_NE(none.error().message().find("CONFIG_UPROBE_EVENTS"), std::string::npos);
}

TEST_F(FakeSystem, KprobeThroughItsPmu) {
  auto k = kprobe_event("do_sys_openat2", ProbeOptions{0x10, false}, paths_);
  ASSERT_TRUE(k) << k.error().message();
  EXPECT_EQ(k->kind, EventKind::kKprobe);
  EXPECT_EQ(k->attr.type, 8u);
  EXPECT_EQ(k->attr.config, 0u);
  EXPECT_EQ(k->attr.config2, 0x10u);  // probe_offset
  EXPECT_EQ(k->name, "kprobe:do_sys_openat2+0x10");
  const raw::EventAttr open = k->attr_for_open();
  EXPECT_EQ(open.config1, reinterpret_cast<std::uintptr_t>(k->probe_target.c_str()));
  EXPECT_STREQ(reinterpret_cast<const char*>(open.config1), "do_sys_openat2");

  auto ret = kprobe_event("do_sys_openat2", ProbeOptions{0, true}, paths_);
  ASSERT_TRUE(ret) << ret.error().message();
  EXPECT_EQ(ret->attr.config, 1u);
  EXPECT_EQ(ret->name, "kretprobe:do_sys_openat2");

  auto at = kprobe_event_at(0xffffffff81000000ULL, false, paths_);
  ASSERT_TRUE(at) << at.error().message();
  EXPECT_EQ(at->attr.config2, 0xffffffff81000000ULL);  // kprobe_addr
  EXPECT_EQ(at->attr_for_open().config1, 0u);          // no function name

  EXPECT_FALSE(kprobe_event("bad name", {}, paths_));

  remove_pmu("kprobe");
  auto none = kprobe_event("do_sys_openat2", {}, paths_);
  ASSERT_FALSE(none);
  EXPECT_EQ(none.error().code(), Errc::kNotFound);
  EXPECT_NE(none.error().message().find("CONFIG_KPROBE_EVENTS"), std::string::npos);
}

TEST(DescribeAttr, PerfVvStyle) {
  raw::EventAttr a{};
  a.type = PERF_TYPE_SOFTWARE;
  a.size = raw::kAttrSizeVer8;
  a.config = PERF_COUNT_SW_TASK_CLOCK;
  a.sample_period = 4000;
  a.freq = 1;
  a.sample_type = PERF_SAMPLE_IP | PERF_SAMPLE_TID | PERF_SAMPLE_TIME;
  a.read_format = PERF_FORMAT_ID | PERF_FORMAT_GROUP;
  a.disabled = 1;
  a.exclude_kernel = 1;
  a.use_clockid = 1;
  a.clockid = 1;
  const std::string d = describe_attr(a);
  EXPECT_EQ(d.rfind("perf_event_attr:\n", 0), 0u) << d;
  EXPECT_NE(d.find("  type                             1 (PERF_TYPE_SOFTWARE)\n"),
            std::string::npos)
      << d;
  EXPECT_NE(d.find("0x1 (task-clock)"), std::string::npos) << d;
  EXPECT_NE(d.find("sample_freq                      4000"), std::string::npos) << d;
  EXPECT_NE(d.find("IP|TID|TIME\n"), std::string::npos) << d;
  EXPECT_NE(d.find("ID|GROUP\n"), std::string::npos) << d;
  EXPECT_NE(d.find("exclude_kernel                   1"), std::string::npos) << d;
  EXPECT_NE(d.find("clockid                          1"), std::string::npos) << d;
  EXPECT_EQ(d.find("exclude_user"), std::string::npos) << d;  // zero fields are left out

  raw::EventAttr bp{};
  bp.type = PERF_TYPE_BREAKPOINT;
  bp.bp_type = HW_BREAKPOINT_W;
  bp.bp_addr = 0x1000;
  bp.bp_len = 8;
  const std::string b = describe_attr(bp);
  EXPECT_NE(b.find("bp_type                          2 (w)"), std::string::npos) << b;
  EXPECT_NE(b.find("bp_addr                          0x1000"), std::string::npos) << b;
}

TEST(EventKinds, Names) {
  EXPECT_STREQ(event_kind_name(EventKind::kKprobe), "kprobe");
  EXPECT_STREQ(event_kind_name(EventKind::kHwCache), "hw_cache");
}

}  // namespace
}  // namespace perfx
