// The record plan's attrs for the options perf users type by habit (issue #25): each
// compared with what `perf evlist -v` shows for a perf 6.1 recording with the same option
// (tests/interop/record_options_vs_perf.sh and options_table/record.tsv check the files).

#include <gtest/gtest.h>
#include <linux/perf_event.h>

#include "event/parse.hpp"
#include "event/record_plan.hpp"
#include "fake_resolver.hpp"

namespace perfx::event {
namespace {

using testing::FakeResolver;

Result<RecordPlan> try_plan(const RecordOptions& o, std::optional<long long> max_rate = 100000) {
  PlanEnvironment env;
  env.max_sample_rate = max_rate;
  env.self_pid = 4242;
  return plan_record(o, FakeResolver(), env);
}

RecordPlan plan_of(const RecordOptions& o) {
  auto p = try_plan(o);
  EXPECT_TRUE(p.has_value()) << (p ? "" : p.error().message());
  return p ? *p : RecordPlan{};
}

std::string error_of(const RecordOptions& o) {
  auto p = try_plan(o);
  EXPECT_FALSE(p.has_value());
  return p ? "planned" : p.error().message();
}

RecordOptions with_command(std::vector<std::string> events = {"cpu-clock"}) {
  RecordOptions o;
  o.events = std::move(events);
  o.command = {"true"};
  return o;
}

TEST(RecordPlan, FreqMaxUsesTheKernelMaximum) {
  auto o = with_command();
  o.max_freq = true;  // -F max
  auto p = plan_of(o);
  ASSERT_TRUE(p.max_freq_used);
  EXPECT_EQ(*p.max_freq_used, 100000u);
  EXPECT_EQ(p.events[0].attr.freq, 1u);
  EXPECT_EQ(p.events[0].attr.sample_freq, 100000u);
  EXPECT_FALSE(p.freq_capped);
  auto unknown = try_plan(o, std::nullopt);
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

  EXPECT_NE(error_of(with_command({"cpu-clock/bogus=1/"})).find("unknown term 'bogus=1'"),
            std::string::npos);
  EXPECT_NE(error_of(with_command({"nosuch/period=1/"})).find("unknown PMU 'nosuch'"),
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
  EXPECT_NE(error_of(o).find("unknown branch filter bogus"), std::string::npos);
}

TEST(RecordPlan, FiltersFollowTheirEvent) {
  auto o = with_command({"cpu-clock", "sched:sched_switch,sched:sched_wakeup"});
  o.filters = {{1, "prev_pid > 0", false}, {1, "", true}};  // --filter, --exclude-perf
  auto p = plan_of(o);
  EXPECT_EQ(p.events[0].filter, "");
  EXPECT_EQ(p.events[1].filter, "(prev_pid > 0) && (common_pid != 4242)");
  EXPECT_EQ(p.events[2].filter, "(prev_pid > 0) && (common_pid != 4242)");

  o.filters = {{0, "x", false}};  // after -e cpu-clock: perf's address filter, no tracer
  EXPECT_NE(error_of(o).find("does not support address filtering"), std::string::npos);
  o.filters = {{0, "", true}};
  EXPECT_EQ(error_of(o), "--exclude-perf option should follow a -e tracepoint option");
  o.filters = {{2, "x", false}};  // before any -e (or past the last): perf's message
  EXPECT_EQ(error_of(o), "--filter option should follow a -e tracepoint or HW tracer option");
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
  EXPECT_NE(error_of(o).find("--affinity"), std::string::npos);
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
