// The record plan (event/record_plan.hpp): the attrs perf record and perf top ask for,
// per option, planned against canned sysfs/tracefs data (no kernel).

#include "event/record_plan.hpp"

#include <gtest/gtest.h>
#include <linux/perf_event.h>

#include "event/parse.hpp"
#include "fake_resolver.hpp"
#include "perfx/regs.hpp"

namespace perfx::event {
namespace {

using testing::FakeResolver;

constexpr std::uint64_t kBase = PERF_SAMPLE_IP | PERF_SAMPLE_TID | PERF_SAMPLE_TIME;

RecordPlan plan_of(RecordOptions o, std::optional<long long> max_rate = 100000) {
  PlanEnvironment env;
  env.max_sample_rate = max_rate;
  env.self_pid = 4242;  // --exclude-perf's filter names it
  auto p = plan_record(o, FakeResolver(), env);
  EXPECT_TRUE(p.has_value()) << (p ? "" : p.error().message());
  return p ? *p : RecordPlan{};
}

Error error_of(RecordOptions o) {
  auto p = plan_record(o, FakeResolver(), PlanEnvironment{});
  EXPECT_FALSE(p.has_value());
  return p ? Error(Errc::kSystem, "planned") : p.error();
}

RecordOptions with_command(std::vector<std::string> events = {"cpu-clock"}) {
  RecordOptions o;
  o.events = std::move(events);
  o.command = {"true"};
  return o;
}

TEST(RecordPlan, SystemWideAddsTheTrackingDummyWithTheSideBand) {
  RecordOptions o;
  o.system_wide = true;  // -a, default event
  const auto p = plan_of(o);
  ASSERT_EQ(p.events.size(), 2u);
  EXPECT_TRUE(p.default_event);
  EXPECT_TRUE(p.system_wide);
  EXPECT_TRUE(p.tracking_event);
  const auto& cyc = p.events[0].attr;
  EXPECT_EQ(cyc.type, PERF_TYPE_HARDWARE);
  EXPECT_EQ(cyc.config, PERF_COUNT_HW_CPU_CYCLES);
  EXPECT_EQ(cyc.sample_type, kBase | PERF_SAMPLE_CPU | PERF_SAMPLE_IDENTIFIER | PERF_SAMPLE_PERIOD);
  EXPECT_EQ(cyc.read_format, PERF_FORMAT_ID | PERF_FORMAT_LOST);
  EXPECT_EQ(cyc.disabled, 1u);
  EXPECT_EQ(cyc.inherit, 1u);
  EXPECT_EQ(cyc.sample_id_all, 1u);
  EXPECT_EQ(cyc.freq, 1u);
  EXPECT_EQ(cyc.sample_freq, 4000u);
  EXPECT_EQ(cyc.exclude_guest, 0u);  // perf's default event
  EXPECT_EQ(cyc.mmap, 0u);           // the side-band is the dummy's
  EXPECT_EQ(cyc.enable_on_exec, 0u);

  const auto& d = p.events[1];
  EXPECT_TRUE(d.tracking);
  EXPECT_EQ(d.name, "dummy:HG");
  EXPECT_EQ(d.attr.type, PERF_TYPE_SOFTWARE);
  EXPECT_EQ(d.attr.config, PERF_COUNT_SW_DUMMY);
  EXPECT_EQ(d.attr.sample_type, kBase | PERF_SAMPLE_CPU | PERF_SAMPLE_IDENTIFIER);
  EXPECT_EQ(d.attr.freq, 0u);
  EXPECT_EQ(d.attr.sample_period, 1u);
  EXPECT_EQ(d.attr.disabled, 0u);
  EXPECT_EQ(d.attr.mmap + d.attr.mmap2 + d.attr.comm + d.attr.comm_exec + d.attr.task, 5u);
  EXPECT_EQ(d.attr.ksymbol + d.attr.bpf_event, 2u);
  EXPECT_TRUE(p.synthesis.all_processes);
  EXPECT_TRUE(p.enable_on_start);
}

TEST(RecordPlan, NoCommandAndNoTargetIsSystemWide) {
  const auto p = plan_of(RecordOptions{});
  EXPECT_TRUE(p.implicit_system_wide);
  EXPECT_TRUE(p.system_wide);
  EXPECT_TRUE(p.options.system_wide);
}

// perf record -e X, perf evlist -v: exclude_guest as the parser gives it (set without
// modifiers, cleared by :k), precise_ip 3 for :P (lowered at open where it fails).
TEST(RecordPlan, ModifiersSetExcludeGuestAndPreciseMaxAsPerf) {
  const auto p = plan_of(with_command({"page-faults:k", "task-clock", "cpu-clock:P"}));
  ASSERT_EQ(p.events.size(), 3u);
  EXPECT_EQ(p.events[0].attr.exclude_guest, 0u);
  EXPECT_EQ(p.events[1].attr.exclude_guest, 1u);
  EXPECT_EQ(p.events[1].attr.precise_ip, 0u);
  EXPECT_EQ(p.events[2].attr.exclude_guest, 0u);
  EXPECT_EQ(p.events[2].attr.precise_ip, 3u);
  EXPECT_TRUE(p.events[2].precise_max);
}

TEST(RecordPlan, PidTargetFollowsTasksWithTheSideBandOnTheEvent) {
  RecordOptions o;
  o.events = {"cpu-clock"};
  o.pids = "42";
  const auto p = plan_of(o);
  ASSERT_EQ(p.events.size(), 1u);
  EXPECT_TRUE(p.task_target);
  EXPECT_FALSE(p.system_wide);
  EXPECT_FALSE(p.tracking_event);
  const auto& a = p.events[0].attr;
  EXPECT_EQ(a.sample_type, kBase | PERF_SAMPLE_PERIOD);  // one attr: no id, no CPU
  EXPECT_EQ(a.exclude_guest, 1u);
  EXPECT_EQ(a.mmap + a.mmap2 + a.comm + a.comm_exec + a.task, 5u);
  EXPECT_EQ(a.enable_on_exec, 0u);
  EXPECT_TRUE(p.enable_on_start);
  EXPECT_FALSE(p.synthesis.all_processes);
}

TEST(RecordPlan, WorkloadIsEnabledAtExecAndDelayUsesADummy) {
  auto p = plan_of(with_command());
  EXPECT_TRUE(p.follows_workload_only);
  EXPECT_EQ(p.events.size(), 1u);
  EXPECT_EQ(p.events[0].attr.enable_on_exec, 1u);
  EXPECT_FALSE(p.enable_on_start);
  EXPECT_TRUE(p.synthesis.workload_comm);

  auto o = with_command();
  o.delay_ms = 100;  // -D: the dummy follows the exec, the events wait
  p = plan_of(o);
  ASSERT_EQ(p.events.size(), 2u);
  EXPECT_EQ(p.events[0].attr.enable_on_exec, 0u);
  EXPECT_EQ(p.events[1].attr.enable_on_exec, 1u);
  EXPECT_EQ(p.events[1].attr.disabled, 1u);
  EXPECT_EQ(p.events[0].attr.sample_type & PERF_SAMPLE_IDENTIFIER, PERF_SAMPLE_IDENTIFIER);
}

TEST(RecordPlan, FramePointerAndDwarfCallGraphs) {
  auto o = with_command();
  o.call_graph = "fp";  // -g
  auto p = plan_of(o);
  EXPECT_EQ(p.events[0].attr.sample_type, kBase | PERF_SAMPLE_PERIOD | PERF_SAMPLE_CALLCHAIN);
  EXPECT_EQ(p.events[0].attr.sample_stack_user, 0u);

  o.call_graph = "dwarf";
  p = plan_of(o);
  const auto& a = p.events[0].attr;
  EXPECT_EQ(a.sample_type, kBase | PERF_SAMPLE_PERIOD | PERF_SAMPLE_CALLCHAIN | PERF_SAMPLE_ADDR |
                               PERF_SAMPLE_DATA_SRC | PERF_SAMPLE_REGS_USER |
                               PERF_SAMPLE_STACK_USER);
  EXPECT_EQ(a.exclude_callchain_user, 1u);
  EXPECT_EQ(a.sample_regs_user, kX86_64RegsMask);
  EXPECT_EQ(a.sample_stack_user, 8192u);
  EXPECT_EQ(a.mmap_data, 1u);
  EXPECT_TRUE(p.synthesis.mmap_data);

  o.call_graph = "dwarf,4001";  // rounded up to 8 bytes
  EXPECT_EQ(plan_of(o).events[0].attr.sample_stack_user, 4008u);
  o.call_graph = "dwarf,0";
  EXPECT_NE(error_of(o).message().find("8..65528"), std::string::npos);
  o.call_graph = "lbr";
  EXPECT_EQ(error_of(o).code(), Errc::kNotSupported);
  o.call_graph = "frames";
  EXPECT_EQ(error_of(o).code(), Errc::kInvalidArgument);
}

TEST(RecordPlan, PeriodAndFrequency) {
  auto o = with_command();
  o.period = 1000;  // -c
  auto p = plan_of(o);
  EXPECT_EQ(p.events[0].attr.freq, 0u);
  EXPECT_EQ(p.events[0].attr.sample_period, 1000u);
  EXPECT_EQ(p.events[0].attr.sample_type & PERF_SAMPLE_PERIOD, 0u);

  o.period.reset();
  o.freq = 999;  // -F
  p = plan_of(o);
  EXPECT_EQ(p.events[0].attr.freq, 1u);
  EXPECT_EQ(p.events[0].attr.sample_freq, 999u);
  EXPECT_EQ(p.events[0].attr.sample_type & PERF_SAMPLE_PERIOD, PERF_SAMPLE_PERIOD);
  EXPECT_FALSE(p.freq_capped);

  o.freq = 5000;  // above the kernel's maximum: capped, and said so
  p = plan_of(o, 1000);
  EXPECT_EQ(p.events[0].attr.sample_freq, 1000u);
  ASSERT_TRUE(p.freq_capped);
  EXPECT_EQ(p.freq_capped->first, 5000u);
  EXPECT_EQ(p.freq_capped->second, 1000u);

  o.period = 10;
  EXPECT_NE(error_of(o).message().find("exclusive"), std::string::npos);
  o.freq.reset();
  o.period = 0;
  EXPECT_NE(error_of(o).message().find("-c must be > 0"), std::string::npos);
}

TEST(RecordPlan, TracepointsSampleEveryHitWithRawDataAndTheirFormats) {
  auto o = with_command({"sched:sched_switch"});
  auto p = plan_of(o);
  const auto& a = p.events[0].attr;
  EXPECT_EQ(a.type, PERF_TYPE_TRACEPOINT);
  EXPECT_EQ(a.config, 316u);
  EXPECT_EQ(a.freq, 0u);
  EXPECT_EQ(a.sample_period, 1u);
  // perf's evsel__newtp(): CPU and PERIOD too (perf evlist -v of a perf recording).
  EXPECT_EQ(a.sample_type, kBase | PERF_SAMPLE_PERIOD | PERF_SAMPLE_RAW | PERF_SAMPLE_CPU);
  ASSERT_EQ(p.tracepoints.size(), 1u);
  EXPECT_EQ(p.tracepoints[0].first, "sched");
  EXPECT_EQ(p.tracepoints[0].second, "sched_switch");

  o.period = 5;  // -c wins over the every-hit default; perf keeps PERIOD in the samples
  p = plan_of(o);
  EXPECT_EQ(p.events[0].attr.sample_period, 5u);
  EXPECT_EQ(p.events[0].attr.sample_type,
            kBase | PERF_SAMPLE_PERIOD | PERF_SAMPLE_RAW | PERF_SAMPLE_CPU);
}

TEST(RecordPlan, GroupsHaveLeadersIdsAndAGroupDescription) {
  auto p = plan_of(with_command({"{cpu-clock,task-clock}", "page-faults"}));
  ASSERT_EQ(p.events.size(), 3u);
  EXPECT_EQ(p.events[0].group_leader, -1);
  EXPECT_EQ(p.events[1].group_leader, 0);
  EXPECT_EQ(p.events[2].group_leader, -1);
  for (const auto& e : p.events)  // several attrs, no tracking event: PERF_SAMPLE_ID
    EXPECT_EQ(e.attr.sample_type & (PERF_SAMPLE_ID | PERF_SAMPLE_IDENTIFIER), PERF_SAMPLE_ID);
  ASSERT_EQ(p.groups.size(), 1u);
  EXPECT_EQ(p.groups[0].name, "{anon_group}");
  EXPECT_EQ(p.groups[0].leader, 0u);
  EXPECT_EQ(p.groups[0].members, 2u);
}

TEST(RecordPlan, SampleFieldSwitches) {
  auto o = with_command();
  o.data = true;          // -d
  o.raw_samples = true;   // -R
  o.user_regs = "ip,sp";  // --user-regs
  o.intr_regs = "";       // -I: every register
  o.inherit = false;      // -i
  o.all_user = true;      // --all-user
  o.clockid = "CLOCK_MONOTONIC_RAW";
  o.sample_cpu = true;
  const auto p = plan_of(o);
  const auto& a = p.events[0].attr;
  EXPECT_EQ(a.sample_type & (PERF_SAMPLE_ADDR | PERF_SAMPLE_DATA_SRC | PERF_SAMPLE_RAW |
                             PERF_SAMPLE_CPU | PERF_SAMPLE_REGS_USER | PERF_SAMPLE_REGS_INTR),
            PERF_SAMPLE_ADDR | PERF_SAMPLE_DATA_SRC | PERF_SAMPLE_RAW | PERF_SAMPLE_CPU |
                PERF_SAMPLE_REGS_USER | PERF_SAMPLE_REGS_INTR);
  EXPECT_EQ(a.mmap_data, 1u);
  EXPECT_NE(a.sample_regs_user, 0u);
  EXPECT_EQ(a.sample_regs_intr, kX86_64RegsMask);
  EXPECT_EQ(a.inherit, 0u);
  EXPECT_EQ(a.exclude_kernel, 1u);
  EXPECT_EQ(a.exclude_user, 0u);
  EXPECT_EQ(a.use_clockid, 1u);
  EXPECT_EQ(a.clockid, CLOCK_MONOTONIC_RAW);

  o.all_kernel = true;
  EXPECT_NE(error_of(o).message().find("--all-kernel"), std::string::npos);
  o = with_command();
  o.user_regs = "nosuchreg";
  EXPECT_EQ(error_of(o).code(), Errc::kInvalidArgument);
  o = with_command();
  o.clockid = "lunar";
  EXPECT_NE(error_of(o).message().find("unknown clock"), std::string::npos);
}

TEST(RecordPlan, FileChoices) {
  auto o = with_command();
  o.mmap_pages = "3";
  o.max_size = "2M";
  o.switch_output = "30s";
  o.compression_level = 3;
  auto p = plan_of(o);
  EXPECT_EQ(p.data_pages, 4u);
  EXPECT_TRUE(p.data_pages_rounded);
  EXPECT_EQ(p.max_size, 2u << 20);
  EXPECT_TRUE(p.switch_output.on);
  EXPECT_EQ(p.switch_output.seconds, 30u);
  EXPECT_TRUE(p.options.timestamp_filename);
  EXPECT_EQ(p.compression_level, 3);

  o.output = "-";
  EXPECT_NE(error_of(o).message().find("-o -"), std::string::npos);
  o = with_command();
  o.mmap_pages = "12Q";
  EXPECT_NE(error_of(o).message().find("unknown unit"), std::string::npos);
  o = with_command();
  o.compression_level = 23;
  EXPECT_EQ(error_of(o).code(), Errc::kInvalidArgument);
  o = with_command();
  o.cgroup = "system.slice";  // -G without -a/-C
  EXPECT_NE(error_of(o).message().find("-G needs"), std::string::npos);
}

TEST(RecordPlan, TopStyle) {
  RecordOptions o;
  o.style = RecordStyle::kTop;
  o.events = {"cpu-clock", "page-faults"};
  auto p = plan_of(o);
  ASSERT_EQ(p.events.size(), 2u);  // no tracking event
  EXPECT_TRUE(p.system_wide);
  EXPECT_FALSE(p.implicit_system_wide);
  const auto& a = p.events[0].attr;
  EXPECT_EQ(a.sample_type, kBase | PERF_SAMPLE_PERIOD | PERF_SAMPLE_CPU | PERF_SAMPLE_IDENTIFIER);
  EXPECT_EQ(a.read_format, PERF_FORMAT_ID);
  EXPECT_EQ(a.inherit, 0u);
  EXPECT_EQ(a.mmap + a.comm + a.task + a.mmap2 + a.comm_exec, 5u);
  EXPECT_EQ(p.events[1].attr.mmap, 0u);

  o.pids = "7";
  o.events = {"cpu-clock"};
  p = plan_of(o);
  EXPECT_EQ(p.events[0].attr.inherit, 1u);
  EXPECT_EQ(p.events[0].attr.sample_type, kBase | PERF_SAMPLE_PERIOD);
  EXPECT_FALSE(p.synthesis.all_processes);
  o.inherit = false;  // perf top -i/--no-inherit
  EXPECT_EQ(plan_of(o).events[0].attr.inherit, 0u);
}

TEST(RecordPlan, AddedEventsGetThePolicyAndTheDummyStaysLast) {
  RecordOptions o;
  o.system_wide = true;
  o.events = {"cpu-clock"};
  auto p = plan_of(o);
  auto groups = parse_event_list("sched:sched_switch", FakeResolver());
  ASSERT_TRUE(groups);
  ASSERT_TRUE(add_requested_events(p, requested_events(*groups, false)));
  ASSERT_EQ(p.events.size(), 3u);
  EXPECT_EQ(p.events[1].name, "sched:sched_switch");
  EXPECT_EQ(p.events[1].attr.sample_period, 1u);
  EXPECT_EQ(p.events[1].attr.sample_type & PERF_SAMPLE_RAW, PERF_SAMPLE_RAW);
  EXPECT_TRUE(p.events[2].tracking);
  ASSERT_EQ(p.tracepoints.size(), 1u);
  // Two attrs and a tracking event now: every event has the identifier.
  EXPECT_EQ(p.events[0].attr.sample_type & PERF_SAMPLE_IDENTIFIER, PERF_SAMPLE_IDENTIFIER);
}

TEST(RecordPlan, UserOnlyNames) {
  EXPECT_EQ(user_only_name("cpu-clock"), "cpu-clock:u");
  EXPECT_EQ(user_only_name("msr/tsc/"), "msr/tsc/u");
  EXPECT_EQ(user_only_name("cpu-clock:k"), "cpu-clock:k");
}

// ---- the options perf users type by habit (issue #25), as perf 6.1's evlist shows them

TEST(RecordPlan, FreqMaxUsesTheKernelMaximum) {
  auto o = with_command();
  o.max_freq = true;  // -F max
  auto p = plan_of(o);
  ASSERT_TRUE(p.max_freq_used);
  EXPECT_EQ(*p.max_freq_used, 100000u);
  EXPECT_EQ(p.events[0].attr.freq, 1u);
  EXPECT_EQ(p.events[0].attr.sample_freq, 100000u);
  EXPECT_FALSE(p.freq_capped);
  auto unknown = plan_record(o, FakeResolver(), PlanEnvironment{});  // rate unknown
  ASSERT_FALSE(unknown);
  EXPECT_NE(unknown.error().message().find("perf_event_max_sample_rate"), std::string::npos);
}

TEST(RecordPlan, PeriodTermsOnNamedEventsAndTracepoints) {
  auto p = plan_of(with_command({"cpu-clock/period=10000/"}));
  const auto& a = p.events[0].attr;
  EXPECT_EQ(p.events[0].name, "cpu-clock/period=10000/");  // perf names it as written
  EXPECT_EQ(a.type, PERF_TYPE_SOFTWARE);
  EXPECT_EQ(a.config, PERF_COUNT_SW_CPU_CLOCK);
  EXPECT_EQ(a.freq, 0u);
  EXPECT_EQ(a.sample_period, 10000u);
  EXPECT_EQ(a.sample_type, PERF_SAMPLE_IP | PERF_SAMPLE_TID | PERF_SAMPLE_TIME);

  auto o = with_command({"task-clock/freq=99/u"});
  o.period = 5;  // -c leaves a term alone
  p = plan_of(o);
  EXPECT_EQ(p.events[0].attr.freq, 1u);
  EXPECT_EQ(p.events[0].attr.sample_freq, 99u);
  EXPECT_EQ(p.events[0].attr.exclude_kernel, 1u);

  o = with_command({"sched:sched_switch/period=3/"});
  o.freq = 1000;  // -F too
  p = plan_of(o);
  EXPECT_EQ(p.events[0].attr.type, PERF_TYPE_TRACEPOINT);
  EXPECT_EQ(p.events[0].attr.freq, 0u);
  EXPECT_EQ(p.events[0].attr.sample_period, 3u);
  EXPECT_EQ(p.events[0].canonical, "sched:sched_switch");

  EXPECT_NE(error_of(with_command({"cpu-clock/bogus=1/"})).message().find("unknown term 'bogus=1'"),
            std::string::npos);
  EXPECT_NE(error_of(with_command({"nosuch/period=1/"})).message().find("unknown PMU 'nosuch'"),
            std::string::npos);
}

TEST(RecordPlan, DefaultEventIsPerfsPreciseCycles) {
  RecordOptions o;
  o.command = {"true"};
  const auto p = plan_of(o);
  EXPECT_EQ(p.events[0].attr.precise_ip, 3u);  // perf's cycles:P, "cpu-clock:ppp" here
  EXPECT_EQ(name_with_modifiers("cpu-clock", p.events[0].attr), "cpu-clock:ppp");
  raw::EventAttr a{};
  a.exclude_guest = 1;
  EXPECT_EQ(name_with_modifiers("cpu-clock", a), "cpu-clock");  // -e cycles
  a.exclude_kernel = 1;
  a.exclude_hv = 1;
  EXPECT_EQ(name_with_modifiers("cpu-clock", a), "cpu-clock:uH");  // -e cycles:u, as perf
}

TEST(RecordPlan, OverwriteStatAndNoSamples) {
  auto o = with_command();
  o.system_wide = true;
  o.overwrite = true;     // --overwrite
  o.inherit_stat = true;  // -s
  auto p = plan_of(o);
  ASSERT_EQ(p.events.size(), 2u);
  for (const auto& e : p.events) {  // the tracking dummy too, as perf
    EXPECT_EQ(e.attr.write_backward, 1u) << e.name;
    EXPECT_EQ(e.attr.inherit_stat, 1u) << e.name;
    EXPECT_EQ(e.attr.read_format, PERF_FORMAT_TOTAL_TIME_ENABLED | PERF_FORMAT_TOTAL_TIME_RUNNING |
                                      PERF_FORMAT_ID | PERF_FORMAT_LOST);
  }
  o = with_command();
  o.no_samples = true;  // -n: freq stays, the frequency is 0 (perf's sample_freq = 0)
  p = plan_of(o);
  EXPECT_EQ(p.events[0].attr.freq, 1u);
  EXPECT_EQ(p.events[0].attr.sample_freq, 0u);
  EXPECT_NE(p.events[0].attr.sample_type & PERF_SAMPLE_PERIOD, 0u);
  o.period = 1000;
  p = plan_of(o);
  EXPECT_EQ(p.events[0].attr.freq, 0u);
  EXPECT_EQ(p.events[0].attr.sample_period, 0u);
  EXPECT_EQ(p.events[0].attr.sample_type & PERF_SAMPLE_PERIOD, 0u);
}

TEST(RecordPlan, PerThreadIsNotInheritedAndHasNoTime) {
  auto o = with_command({"cpu-clock", "sched:sched_switch"});
  o.per_thread = true;
  auto p = plan_of(o);
  ASSERT_EQ(p.events.size(), 2u);
  EXPECT_EQ(p.events[0].attr.inherit, 0u);
  EXPECT_EQ(p.events[0].attr.sample_type,
            PERF_SAMPLE_IP | PERF_SAMPLE_TID | PERF_SAMPLE_PERIOD | PERF_SAMPLE_IDENTIFIER);
  EXPECT_NE(p.events[1].attr.sample_type & PERF_SAMPLE_TIME, 0u);  // tracepoints keep it
  o.sample_time = true;                                            // -T
  p = plan_of(o);
  EXPECT_NE(p.events[0].attr.sample_type & PERF_SAMPLE_TIME, 0u);
}

TEST(RecordPlan, UserCallchainsExcludeTheKernelPart) {
  auto o = with_command();
  o.user_callchains = true;
  EXPECT_EQ(plan_of(o).events[0].attr.exclude_callchain_kernel, 0u);  // no -g: nothing
  o.call_graph = "fp";
  EXPECT_EQ(plan_of(o).events[0].attr.exclude_callchain_kernel, 1u);
  o.call_graph = "dwarf";
  const auto a = plan_of(o).events[0].attr;
  EXPECT_EQ(a.exclude_callchain_kernel, 1u);
  EXPECT_EQ(a.exclude_callchain_user, 1u);
}

TEST(RecordPlan, BranchFilterIsEncodedAsPerf) {
  auto o = with_command();
  o.system_wide = true;
  o.branch_filter = "any";  // -b
  auto p = plan_of(o);
  EXPECT_NE(p.events[0].attr.sample_type & PERF_SAMPLE_BRANCH_STACK, 0u);
  EXPECT_EQ(p.events[0].attr.branch_sample_type, PERF_SAMPLE_BRANCH_ANY);
  EXPECT_EQ(p.events[1].attr.sample_type & PERF_SAMPLE_BRANCH_STACK, 0u);  // not the dummy
  EXPECT_EQ(p.events[1].attr.branch_sample_type, 0u);

  EXPECT_EQ(*parse_branch_filter("u,k"), PERF_SAMPLE_BRANCH_USER | PERF_SAMPLE_BRANCH_KERNEL |
                                             PERF_SAMPLE_BRANCH_ANY);  // perf adds any
  EXPECT_EQ(*parse_branch_filter("any_call,u"),
            PERF_SAMPLE_BRANCH_ANY_CALL | PERF_SAMPLE_BRANCH_USER);
  EXPECT_EQ(*parse_branch_filter("stack,save_type,hw_index"), PERF_SAMPLE_BRANCH_CALL_STACK |
                                                                  PERF_SAMPLE_BRANCH_TYPE_SAVE |
                                                                  PERF_SAMPLE_BRANCH_HW_INDEX);
  EXPECT_EQ(*parse_branch_filter("ind_jmp,cond,call,ind_call,any_ret"),
            PERF_SAMPLE_BRANCH_IND_JUMP | PERF_SAMPLE_BRANCH_COND | PERF_SAMPLE_BRANCH_CALL |
                PERF_SAMPLE_BRANCH_IND_CALL | PERF_SAMPLE_BRANCH_ANY_RETURN);
  EXPECT_FALSE(parse_branch_filter("anything"));
  o.branch_filter = "bogus";
  EXPECT_NE(error_of(o).message().find("unknown branch filter bogus"), std::string::npos);
}

TEST(RecordPlan, FiltersFollowTheirEvent) {
  auto o = with_command({"cpu-clock", "sched:sched_switch,sched:sched_wakeup"});
  o.filters = {{1, "prev_pid > 0", false}, {1, "", true}};  // --filter, --exclude-perf
  auto p = plan_of(o);
  EXPECT_EQ(p.events[0].filter, "");
  EXPECT_EQ(p.events[1].filter, "(prev_pid > 0) && (common_pid != 4242)");
  EXPECT_EQ(p.events[2].filter, "(prev_pid > 0) && (common_pid != 4242)");

  o.filters = {{0, "x", false}};  // after -e cpu-clock: perf's address filter, no tracer
  EXPECT_NE(error_of(o).message().find("does not support address filtering"), std::string::npos);
  o.filters = {{0, "", true}};
  EXPECT_EQ(error_of(o).message(), "--exclude-perf option should follow a -e tracepoint option");
  o.filters = {{2, "x", false}};  // before any -e (or past the last): perf's message
  EXPECT_EQ(error_of(o).message(),
            "--filter option should follow a -e tracepoint or HW tracer option");
}

TEST(RecordPlan, ReadingKnobs) {
  auto o = with_command();
  o.mmap_flush = "4K";
  o.aio = 9;
  o.affinity = "node";
  o.control = "fifo:/tmp/ctl,/tmp/ack";
  auto p = plan_of(o);
  EXPECT_EQ(p.mmap_flush, 4096u);
  EXPECT_EQ(p.aio_blocks, 4u);  // perf's maximum
  EXPECT_TRUE(p.control.fifo);
  EXPECT_EQ(p.control.ctl_path, "/tmp/ctl");
  EXPECT_EQ(p.control.ack_path, "/tmp/ack");
  // At most a quarter of the buffer (128 data pages + 1), as perf.
  EXPECT_EQ(*parse_mmap_flush("1G", 0, 4096), 129u * 4096 / 4);
  EXPECT_EQ(*parse_mmap_flush("", 0, 4096), 1u);
  EXPECT_EQ(*parse_mmap_flush("0", 0, 4096), 1u);
  EXPECT_EQ(*parse_mmap_flush("300", 0, 4096), 300u);
  EXPECT_FALSE(parse_mmap_flush("lots", 0, 4096));
  auto fd = parse_control("fd:5,6");
  ASSERT_TRUE(fd);
  EXPECT_FALSE(fd->fifo);
  EXPECT_EQ(fd->ctl_fd, 5);
  EXPECT_EQ(fd->ack_fd, 6);
  EXPECT_EQ(parse_control("fd:7")->ack_fd, -1);
  EXPECT_FALSE(parse_control("pipe:x"));
  EXPECT_FALSE(parse_control("fd:x"));
  o.affinity = "socket";
  EXPECT_NE(error_of(o).message().find("--affinity"), std::string::npos);
}

TEST(RecordPlan, StartDisabledWaitsWithATrackingDummy) {
  auto o = with_command();
  o.start_disabled = true;  // -D -1
  const auto p = plan_of(o);
  EXPECT_FALSE(p.enable_on_start);
  ASSERT_EQ(p.events.size(), 2u);
  EXPECT_EQ(p.events[0].attr.enable_on_exec, 0u);
  EXPECT_TRUE(p.events[1].tracking);
  EXPECT_EQ(p.events[1].attr.enable_on_exec, 1u);
}

}  // namespace
}  // namespace perfx::event
