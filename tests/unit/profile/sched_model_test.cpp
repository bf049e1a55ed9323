// perfx sched latency/timehist math on synthetic scheduler events (include/perfx/sched.hpp).

#include <gtest/gtest.h>

#include "perfx/sched.hpp"

namespace perfx {
namespace {

constexpr std::uint64_t kMs = 1000000;

SchedEvent sw(std::uint64_t t, int cpu, int prev, char state, int next) {
  SchedEvent e;
  e.kind = SchedEventKind::kSwitch;
  e.time = t;
  e.cpu = cpu;
  e.task = prev;
  e.sample_tid = prev;
  e.state = state;
  e.prev_state = state == 'R' ? 0 : (state == 'S' ? 1 : 2);
  e.other = next;
  e.comm = prev == 0 ? "swapper/0" : "t" + std::to_string(prev);
  e.other_comm = next == 0 ? "swapper/0" : "t" + std::to_string(next);
  return e;
}
SchedEvent wake(std::uint64_t t, int cpu, int task, SchedEventKind kind = SchedEventKind::kWaking) {
  SchedEvent e;
  e.kind = kind;
  e.time = t;
  e.cpu = cpu;
  e.task = task;
  e.comm = "t" + std::to_string(task);
  return e;
}
SchedEvent runtime(std::uint64_t t, int task, std::uint64_t ns) {
  SchedEvent e;
  e.kind = SchedEventKind::kRuntime;
  e.time = t;
  e.cpu = 0;
  e.task = task;
  e.runtime_ns = ns;
  e.comm = "t" + std::to_string(task);
  return e;
}

// Task 10 runs 0..2 ms, sleeps; 11 preempts nothing: 10 is woken at 5 ms, runs at 6 ms.
// Task 11 is preempted (R) at 2 ms and back at 4 ms.
SchedTrace sample_trace() {
  SchedTrace t;
  t.nr_cpus = 1;
  t.has_waking = true;
  t.events = {
      sw(1 * kMs, 0, 0, 'R', 10),   // 10 first seen: runnable since now, delay 0
      sw(2 * kMs, 0, 10, 'S', 11),  // 10 sleeps; 11 first seen
      sw(3 * kMs, 0, 11, 'R', 0),   // 11 preempted (runnable)
      sw(4 * kMs, 0, 0, 'R', 11),   // 11 back: delay 1 ms
      wake(5 * kMs, 0, 10),         // 10 woken
      sw(6 * kMs, 0, 11, 'S', 10),  // 10 in: delay 1 ms
      sw(7 * kMs, 0, 10, 'S', 0),
  };
  return t;
}

TEST(SchedLatency, CountsEverySwitchInWithItsDelay) {
  SchedTrace t = sample_trace();
  SchedLatencyOptions o;
  o.per_pid = true;
  const SchedLatency lat = sched_latency(t, o);
  ASSERT_EQ(lat.rows.size(), 2U);
  const SchedLatencyRow* r10 = lat.rows[0].tid == 10 ? &lat.rows[0] : &lat.rows[1];
  const SchedLatencyRow* r11 = lat.rows[0].tid == 11 ? &lat.rows[0] : &lat.rows[1];
  EXPECT_EQ(r10->switches, 2U);
  EXPECT_EQ(r10->total_delay_ns, 1 * kMs);
  EXPECT_EQ(r10->max_delay_ns, 1 * kMs);
  EXPECT_EQ(r10->max_delay_start, 5 * kMs);
  EXPECT_EQ(r10->max_delay_end, 6 * kMs);
  EXPECT_EQ(r11->switches, 2U);
  EXPECT_EQ(r11->max_delay_ns, 1 * kMs);
  EXPECT_EQ(r11->max_delay_start, 3 * kMs);  // runnable since its preemption
  // No sched_stat_runtime: run time from the switch intervals (10: 1+1 ms, 11: 1+2 ms).
  EXPECT_EQ(r10->runtime_ns, 2 * kMs);
  EXPECT_EQ(r11->runtime_ns, 3 * kMs);
  EXPECT_EQ(lat.total_switches, 4U);
}

TEST(SchedLatency, RuntimeFromStatRuntimeAndSortedByAvg) {
  SchedTrace t = sample_trace();
  t.has_runtime = true;
  t.events.push_back(runtime(8 * kMs, 10, 123456));
  t.events.push_back(runtime(8 * kMs, 11, 7));
  const SchedLatency lat = sched_latency(t);
  ASSERT_EQ(lat.rows.size(), 2U);
  // Averages: 10 has (0 + 1 ms)/2, 11 has (0 + 1 ms)/2: tie; then max, switch, runtime.
  EXPECT_EQ(lat.rows[0].comm, "t10");  // larger runtime first
  EXPECT_EQ(lat.rows[0].runtime_ns, 123456U);
  EXPECT_EQ(lat.rows[1].runtime_ns, 7U);
  EXPECT_EQ(lat.rows[0].avg_delay_ns(), kMs / 2);
}

TEST(SchedLatency, MergesThreadsOfOneName) {
  SchedTrace t = sample_trace();
  for (auto& e : t.events) {
    if (e.comm == "t11") e.comm = "t10";
    if (e.other_comm == "t11") e.other_comm = "t10";
  }
  const SchedLatency lat = sched_latency(t);
  ASSERT_EQ(lat.rows.size(), 1U);
  EXPECT_EQ(lat.rows[0].merged, 2U);
  EXPECT_EQ(lat.rows[0].switches, 4U);
  EXPECT_NE(format_sched_latency(lat).find("  t10:(2) "), std::string::npos);
}

TEST(SchedLatency, WakeupIgnoredWhenWakingWasRecorded) {
  SchedTrace t = sample_trace();
  // A later sched_wakeup for task 10 must not move its wakeup time.
  t.events.insert(t.events.begin() + 5, wake(5 * kMs + 500000, 0, 10, SchedEventKind::kWakeup));
  SchedLatencyOptions o;
  o.per_pid = true;
  const SchedLatency lat = sched_latency(t, o);
  for (const auto& r : lat.rows) {
    if (r.tid == 10) {
      EXPECT_EQ(r.max_delay_start, 5 * kMs);
    }
  }
  t.has_waking = false;  // sched_wakeup counts then, but 10 is already runnable: no change
  EXPECT_EQ(sched_latency(t, o).total_switches, 4U);
}

TEST(SchedLatency, SortKeysAreChecked) {
  EXPECT_TRUE(check_sched_latency_sort({"avg", "pid", "runtime"}));
  EXPECT_FALSE(check_sched_latency_sort({"bogus"}));
}

TEST(SchedState, LettersFromReportedBits) {
  EXPECT_EQ(sched_state_letter(0), 'R');
  EXPECT_EQ(sched_state_letter(0x100), 'R');  // TASK_REPORT_MAX: preempted
  EXPECT_EQ(sched_state_letter(1), 'S');
  EXPECT_EQ(sched_state_letter(2), 'D');
  EXPECT_EQ(sched_state_letter(0x80), 'I');
  EXPECT_EQ(sched_state_letter(0x10), 'X');
}

TEST(SchedTimehist, WaitDelayAndRunPerSwitch) {
  const SchedTimehist th = sched_timehist(sample_trace());
  ASSERT_EQ(th.lines.size(), 6U);
  // Line 0: idle out at 1 ms, no previous switch on the cpu: all zero.
  EXPECT_EQ(th.lines[0].task, "<idle>");
  EXPECT_EQ(th.lines[0].run_ns, 0U);
  // Line 1: 10 out at 2 ms after running 1 ms.
  EXPECT_EQ(th.lines[1].tid, 10);
  EXPECT_EQ(th.lines[1].run_ns, 1 * kMs);
  // Line 3: idle out at 4 ms. Line 4: 11 out at 6 ms: ran 2 ms (4..6), preempted at 3 ms so
  // waited 1 ms (3..4) of which 1 ms was run-queue delay.
  EXPECT_EQ(th.lines[4].tid, 11);
  EXPECT_EQ(th.lines[4].run_ns, 2 * kMs);
  EXPECT_EQ(th.lines[4].wait_ns, 1 * kMs);
  EXPECT_EQ(th.lines[4].delay_ns, 1 * kMs);
  // Line 5: 10 out at 7 ms: slept 2..6 (4 ms), woken at 5: delay 1 ms, ran 1 ms.
  EXPECT_EQ(th.lines[5].tid, 10);
  EXPECT_EQ(th.lines[5].wait_ns, 4 * kMs);
  EXPECT_EQ(th.lines[5].delay_ns, 1 * kMs);
  EXPECT_EQ(th.lines[5].run_ns, 1 * kMs);
  // Idle: switched out at 1 ms (nothing before) and at 4 ms after 1 ms (3..4).
  ASSERT_EQ(th.idle_ns.size(), 1U);
  EXPECT_EQ(th.idle_ns[0], 1 * kMs);
  const std::string text = format_sched_timehist(th, true, false);
  EXPECT_NE(text.find("Runtime summary"), std::string::npos);
  EXPECT_NE(text.find("t10[10]"), std::string::npos);
}

TEST(SchedModels, ImpossibleCpusAreSkipped) {
  SchedTrace t = sample_trace();
  t.nr_cpus = UINT32_MAX;  // a damaged NRCPUS header
  t.events.push_back(sw(8 * kMs, -1, 0, 'R', 10));
  t.events.push_back(sw(9 * kMs, 1 << 30, 0, 'R', 10));
  EXPECT_EQ(sched_timehist(t).lines.size(), 6U);
  EXPECT_EQ(sched_latency(t).total_switches, 4U);
  EXPECT_FALSE(format_sched_map(t).empty());
}

TEST(SchedTimehist, WakeupAndMigrationLines) {
  SchedTrace t = sample_trace();
  SchedEvent m;
  m.kind = SchedEventKind::kMigrate;
  m.time = 5 * kMs;
  m.cpu = 0;
  m.task = 10;
  m.sample_tid = 11;
  m.orig_cpu = 1;
  m.dest_cpu = 0;
  t.events.insert(t.events.begin() + 5, m);
  SchedTimehistOptions o;
  o.wakeups = true;
  o.migrations = true;
  const std::string text = format_sched_timehist(sched_timehist(t, o), false, false);
  EXPECT_NE(text.find("awakened: t10[10]"), std::string::npos);
  EXPECT_NE(text.find("migrated: t10[10] cpu 1 => 0"), std::string::npos);
}

// -t/-p (perf's thread__is_filtered()): only task 11's switches; its statistics are those
// of its own switches (the cpu's time still moves on at the filtered ones); a wakeup line
// goes only when both its tasks are filtered; the summary stops after the task lists.
TEST(SchedTimehist, PidAndTidFilters) {
  SchedTimehistOptions o;
  o.tids = {11};
  o.wakeups = true;
  SchedTrace trace = sample_trace();
  EXPECT_EQ(sched_timehist(trace, o).lines.size(), 2U);  // a wakeup of 10 by no task: hidden
  trace.events[4].sample_tid = 11;                       // 11 wakes 10: shown
  const SchedTimehist th = sched_timehist(trace, o);
  ASSERT_EQ(th.lines.size(), 3U);
  EXPECT_EQ(th.lines[0].tid, 11);
  EXPECT_EQ(th.lines[0].run_ns, 1 * kMs);  // 2..3: the filtered switch at 2 ms counted time
  EXPECT_EQ(th.lines[1].kind, SchedEventKind::kWaking);
  EXPECT_EQ(th.lines[2].tid, 11);
  EXPECT_EQ(th.lines[2].run_ns, 2 * kMs);
  EXPECT_TRUE(th.skipped);
  ASSERT_EQ(th.tasks.size(), 1U);
  EXPECT_EQ(th.tasks[0].tid, 11);
  const std::string text = format_sched_timehist(th, false, true);
  EXPECT_NE(text.find("Terminated tasks:\n<no terminated tasks>\n"), std::string::npos) << text;
  EXPECT_EQ(text.find("Idle stats"), std::string::npos) << text;
  EXPECT_EQ(text.find("Total number"), std::string::npos) << text;

  o = {};
  o.pids = {0};  // the idle task only
  const SchedTimehist idle = sched_timehist(sample_trace(), o);
  ASSERT_EQ(idle.lines.size(), 2U);
  EXPECT_EQ(idle.lines[0].task, "<idle>");
  EXPECT_TRUE(idle.tasks.empty());

  o = {};
  o.cpus = {1};  // -C: lines of cpu 1 only; the statistics count cpu 0's switches
  const SchedTimehist other_cpu = sched_timehist(sample_trace(), o);
  EXPECT_TRUE(other_cpu.lines.empty());
  EXPECT_EQ(other_cpu.tasks.size(), 2U);
  EXPECT_FALSE(other_cpu.skipped);
}

}  // namespace
}  // namespace perfx
