// perf-stat layouts (text, CSV, JSON) and derived metrics, on fixed numbers.

#include "report/stat_format.hpp"

#include <gtest/gtest.h>
#include <linux/perf_event.h>

#include <cmath>

#include <fmt/format.h>

#include "report/stat_model.hpp"

namespace perfx::report {
namespace {

StatEntry entry(std::string name, std::uint32_t type, std::uint64_t config, double value,
                double ena = 1000000, double run = 1000000) {
  StatEntry e;
  e.name = std::move(name);
  e.type = type;
  e.config = config;
  e.value = value;
  e.time_enabled = ena;
  e.time_running = run;
  return e;
}

StatFormatOptions layout_options(StatLayout layout) {
  StatFormatOptions o;
  o.layout = layout;
  return o;
}

StatReport sample_report() {
  StatReport r;
  r.target = "'true'";
  r.elapsed_ns = 2000000;  // 2 ms
  r.show_rusage = true;
  r.user_s = 0.001;
  r.sys_s = 0;
  r.entries.push_back(entry("task-clock", PERF_TYPE_SOFTWARE, PERF_COUNT_SW_TASK_CLOCK, 1000000));
  r.entries.push_back(entry("page-faults", PERF_TYPE_SOFTWARE, PERF_COUNT_SW_PAGE_FAULTS, 49));
  StatEntry cyc = entry("cycles", PERF_TYPE_HARDWARE, PERF_COUNT_HW_CPU_CYCLES, 0, 0, 0);
  cyc.supported = false;
  r.entries.push_back(cyc);
  return r;
}

TEST(StatFormat, TextMatchesPerfLayout) {
  const std::string out = format_stat(sample_report(), {});
  const std::string expected =
      "\n Performance counter stats for 'true':\n\n"
      "              1.00 msec task-clock                       #    0.500 CPUs utilized    "
      "      \n"
      "                49      page-faults                      #   49.000 K/sec            "
      "      \n"
      "   <not supported>      cycles                                                      \n"
      "\n       0.002000000 seconds time elapsed\n\n"
      "       0.001000000 seconds user\n"
      "       0.000000000 seconds sys\n\n\n";
  EXPECT_EQ(out, expected);
}

TEST(StatFormat, Csv) {
  StatFormatOptions o;
  o.layout = StatLayout::kCsv;
  o.csv_sep = ";";
  EXPECT_EQ(format_stat(sample_report(), o),
            "1.00;msec;task-clock;1000000;100.00;0.500;CPUs utilized\n"
            "49;;page-faults;1000000;100.00;49.000;K/sec\n"
            "<not supported>;;cycles;0;100.00;;\n");
}

TEST(StatFormat, Json) {
  StatFormatOptions o;
  o.layout = StatLayout::kJson;
  EXPECT_EQ(format_stat(sample_report(), o),
            "{\"counter-value\" : \"1.000000\", \"unit\" : \"msec\", \"event\" : \"task-clock\", "
            "\"event-runtime\" : 1000000, \"pcnt-running\" : 100.00, \"metric-value\" : "
            "0.500000, \"metric-unit\" : \"CPUs utilized\"}\n"
            "{\"counter-value\" : \"49.000000\", \"unit\" : \"\", \"event\" : \"page-faults\", "
            "\"event-runtime\" : 1000000, \"pcnt-running\" : 100.00, \"metric-value\" : "
            "49.000000, \"metric-unit\" : \"K/sec\"}\n"
            "{\"counter-value\" : \"<not supported>\", \"unit\" : \"\", \"event\" : \"cycles\", "
            "\"event-runtime\" : 0, \"pcnt-running\" : 100.00, \"metric-value\" : 0.000000, "
            "\"metric-unit\" : \"\"}\n");
}

TEST(StatFormat, MultiplexedAndNotCounted) {
  StatReport r;
  r.target = "'x'";
  r.entries.push_back(
      entry("context-switches", PERF_TYPE_SOFTWARE, PERF_COUNT_SW_CONTEXT_SWITCHES, 40, 1000, 250));
  r.entries.push_back(
      entry("page-faults", PERF_TYPE_SOFTWARE, PERF_COUNT_SW_PAGE_FAULTS, 0, 500, 0));
  const std::string text = format_stat(r, {});
  EXPECT_NE(text.find("                40      context-switches" + std::string(35 + 16, ' ') +
                      "  (25.00%)\n"),
            std::string::npos)
      << text;
  EXPECT_NE(text.find("     <not counted>      page-faults"), std::string::npos) << text;
  EXPECT_NE(text.find("  (0.00%)\n"), std::string::npos) << text;
  auto csv = layout_options(StatLayout::kCsv);
  EXPECT_EQ(format_stat(r, csv),
            "40,,context-switches,250,25.00,,\n<not counted>,,page-faults,0,0.00,,\n");
}

TEST(StatFormat, RunsNoiseAndFooter) {
  StatReport r = sample_report();
  r.runs = 3;
  r.show_rusage = false;
  r.entries[0].noise_pct = 3.83;
  r.elapsed_ns = 1110100;
  r.elapsed_stddev_ns = 47900;
  const std::string text = format_stat(r, {});
  EXPECT_NE(text.find(" Performance counter stats for 'true' (3 runs):"), std::string::npos);
  EXPECT_NE(text.find("CPUs utilized            ( +-  3.83% )\n"), std::string::npos) << text;
  EXPECT_NE(text.find("         0.0011101 +- 0.0000479 seconds time elapsed  ( +-  4.31% )\n\n"),
            std::string::npos)
      << text;
  auto csv = layout_options(StatLayout::kCsv);
  EXPECT_NE(format_stat(r, csv).find("1.00,msec,task-clock,3.83%,1000000,100.00,"),
            std::string::npos);
  auto json = layout_options(StatLayout::kJson);
  EXPECT_NE(format_stat(r, json).find("\"variance\" : 3.83, "), std::string::npos);
}

TEST(StatFormat, DerivedHardwareMetrics) {
  StatReport r;
  r.target = "'x'";
  r.elapsed_ns = 1e9;
  r.entries.push_back(entry("task-clock", PERF_TYPE_SOFTWARE, PERF_COUNT_SW_TASK_CLOCK, 1e9));
  r.entries.push_back(entry("cycles", PERF_TYPE_HARDWARE, PERF_COUNT_HW_CPU_CYCLES, 3e9));
  r.entries.push_back(entry("instructions", PERF_TYPE_HARDWARE, PERF_COUNT_HW_INSTRUCTIONS, 6e9));
  r.entries.push_back(
      entry("branches", PERF_TYPE_HARDWARE, PERF_COUNT_HW_BRANCH_INSTRUCTIONS, 1e9));
  r.entries.push_back(entry("branch-misses", PERF_TYPE_HARDWARE, PERF_COUNT_HW_BRANCH_MISSES, 1e7));
  const StatMetric ghz = compute_metric(r, 1, r.elapsed_ns);
  EXPECT_EQ(ghz.unit, "GHz");
  EXPECT_DOUBLE_EQ(ghz.value, 3.0);
  const StatMetric ipc = compute_metric(r, 2, r.elapsed_ns);
  EXPECT_EQ(ipc.unit, "insn per cycle");
  EXPECT_DOUBLE_EQ(ipc.value, 2.0);
  const StatMetric br = compute_metric(r, 3, r.elapsed_ns);
  EXPECT_EQ(br.unit, "G/sec");  // 1e9 branches in 1 s of task-clock
  EXPECT_DOUBLE_EQ(br.value, 1.0);
  const StatMetric miss = compute_metric(r, 4, r.elapsed_ns);
  EXPECT_EQ(miss.unit, "of all branches");
  EXPECT_DOUBLE_EQ(miss.value, 1.0);
  const std::string text = format_stat(r, {});
  EXPECT_NE(text.find("#    2.00  insn per cycle"), std::string::npos) << text;
  EXPECT_NE(text.find("#    1.00% of all branches"), std::string::npos) << text;
  auto csv = layout_options(StatLayout::kCsv);
  EXPECT_NE(format_stat(r, csv).find(",1.00,of all branches\n"), std::string::npos);
}

// perf's shadow stats average the events of a kind: with task-clock and cpu-clock, a
// rate divides by their mean ("perf stat -e task-clock,cpu-clock,page-faults").
TEST(StatFormat, RatesDivideByTheMeanOfTheClocks) {
  StatReport r;
  r.entries = {entry("task-clock", PERF_TYPE_SOFTWARE, PERF_COUNT_SW_TASK_CLOCK, 2e6),
               entry("cpu-clock", PERF_TYPE_SOFTWARE, PERF_COUNT_SW_CPU_CLOCK, 4e6),
               entry("page-faults", PERF_TYPE_SOFTWARE, PERF_COUNT_SW_PAGE_FAULTS, 30)};
  r.elapsed_ns = 1e7;
  const StatMetric rate = compute_metric(r, 2, r.elapsed_ns);
  EXPECT_EQ(rate.unit, "K/sec");
  EXPECT_DOUBLE_EQ(rate.value, 10.0);  // 30 in 3 ms, not in task-clock's 2 ms
  EXPECT_DOUBLE_EQ(compute_metric(r, 0, r.elapsed_ns).value, 0.2);  // its own CPUs utilized
}

TEST(StatFormat, MissingInputsGiveBlankOrNoMetric) {
  StatReport r;
  r.target = "'x'";
  r.entries.push_back(entry("branch-misses", PERF_TYPE_HARDWARE, PERF_COUNT_HW_BRANCH_MISSES, 5));
  r.entries.push_back(entry("page-faults", PERF_TYPE_SOFTWARE, PERF_COUNT_SW_PAGE_FAULTS, 5));
  EXPECT_TRUE(compute_metric(r, 0, 0).blank);
  EXPECT_FALSE(compute_metric(r, 1, 0).present);  // no task-clock: no rate
}

TEST(StatFormat, PerCpuAndPerThreadPrefixes) {
  StatReport r;
  r.target = "'system wide'";
  r.aggr = StatAggr::kPerCpu;
  r.elapsed_ns = 1e8;
  StatEntry e = entry("task-clock", PERF_TYPE_SOFTWARE, PERF_COUNT_SW_TASK_CLOCK, 101810000);
  e.cpu = 0;
  r.entries.push_back(e);
  EXPECT_NE(format_stat(r, {}).find("CPU0                   101.81 msec task-clock"),
            std::string::npos);
  auto csv = layout_options(StatLayout::kCsv);
  EXPECT_NE(format_stat(r, csv).find("CPU0,101.81,msec,task-clock,"), std::string::npos);
  auto json = layout_options(StatLayout::kJson);
  EXPECT_NE(format_stat(r, json).find("{\"cpu\" : \"0\", \"counter-value\""), std::string::npos);

  r.aggr = StatAggr::kPerThread;
  r.entries[0].cpu = -1;
  r.entries[0].comm = "sleep";
  r.entries[0].tid = 7510;
  r.entries[0].time_running = 0;
  EXPECT_NE(format_stat(r, {}).find("           sleep-7510          <not counted> msec"),
            std::string::npos)
      << format_stat(r, {});
  EXPECT_NE(format_stat(r, json).find("{\"thread\" : \"sleep-7510\", "), std::string::npos);
  // A thread may name itself any bytes: the JSON stays UTF-8 (U+FFFD for bad sequences).
  r.entries[0].comm = "bad\xFF\xC3name";
  EXPECT_NE(format_stat(r, json).find("{\"thread\" : \"bad\xEF\xBF\xBD\xEF\xBF\xBDname-7510\", "),
            std::string::npos)
      << format_stat(r, json);
}

TEST(StatFormat, Interval) {
  StatReport r = sample_report();
  r.elapsed_ns = 100000000;
  const std::string text = format_stat_interval(r, {}, 0.100271704, true);
  EXPECT_EQ(text.substr(0, text.find('\n') + 1),
            "#           time             counts unit events\n");
  EXPECT_NE(text.find("     0.100271704               1.00 msec task-clock"), std::string::npos)
      << text;
  auto csv = layout_options(StatLayout::kCsv);
  EXPECT_EQ(format_stat_interval(r, csv, 0.1002755, true).substr(0, 27),
            "     0.100275500,1.00,msec,");
  auto json = layout_options(StatLayout::kJson);
  EXPECT_EQ(format_stat_interval(r, json, 0.100299816, false).substr(0, 30),
            "{\"interval\" : 0.100299816, \"co");
}

TEST(StatFormat, TableOfRunsAndCsvSummary) {
  StatReport r = sample_report();
  r.runs = 3;
  r.show_rusage = false;
  r.elapsed_ns = 14603000;
  r.elapsed_stddev_ns = 600000;
  r.table = true;
  r.run_elapsed_ns = {14473000, 15702000, 13634000};
  // perf's print_table(): the caption indented like the mean, one '#' plus one per 5%.
  const std::string text = format_stat(r, {});
  EXPECT_NE(text.find("\n\n          # Table of individual measurements:\n"
                      "          0.014473 (-0.000130) #\n"
                      "          0.015702 (+0.001099) ##\n"
                      "          0.013634 (-0.000969) ##\n"
                      "\n          # Final result:\n"
                      "          0.014603 +- 0.000600 seconds time elapsed  ( +-  4.11% )\n"),
            std::string::npos)
      << text;
  r.table = false;
  EXPECT_EQ(format_stat(r, {}).find("Table"), std::string::npos);

  auto csv = layout_options(StatLayout::kCsv);
  r.runs = 1;
  EXPECT_EQ(format_stat_summary(r, csv, true).rfind("         summary,1.00,msec,task-clock,", 0),
            0U);
  EXPECT_EQ(format_stat_summary(r, csv, false), format_stat(r, csv));
  EXPECT_EQ(format_stat_summary(r, {}, true), format_stat(r, {}));  // text: no column
}

TEST(StatFormat, CgroupColumn) {
  StatReport r;
  r.target = "'system wide'";
  r.cgroup = "h2test";
  r.entries.push_back(entry("task-clock", PERF_TYPE_SOFTWARE, PERF_COUNT_SW_TASK_CLOCK, 0, 0, 0));
  EXPECT_NE(format_stat(r, {}).find("     <not counted> msec task-clock                h2test" +
                                    std::string(35, ' ') + "\n"),
            std::string::npos)
      << format_stat(r, {});
  auto csv = layout_options(StatLayout::kCsv);
  EXPECT_EQ(format_stat(r, csv), "<not counted>,msec,task-clock,h2test,0,100.00,,\n");
  auto json = layout_options(StatLayout::kJson);
  EXPECT_NE(format_stat(r, json).find("\"event\" : \"task-clock\", \"cgroup\" : \"h2test\", "),
            std::string::npos);
}

TEST(StatFormat, JsonEscapesNames) {
  StatReport r;
  r.target = "'x'";
  r.entries.push_back(entry("a\"b", PERF_TYPE_TRACEPOINT, 1, 3));
  auto json = layout_options(StatLayout::kJson);
  EXPECT_NE(format_stat(r, json).find("\"event\" : \"a\\\"b\""), std::string::npos);
}

TEST(StatFormat, RunStats) {
  const RunStats s = run_stats({10, 12, 14});
  EXPECT_DOUBLE_EQ(s.mean, 12);
  // sample stddev 2, of the mean 2/sqrt(3)
  EXPECT_NEAR(s.stddev_of_mean, 2 / std::sqrt(3.0), 1e-12);
  EXPECT_NEAR(s.rel_pct, 100 * (2 / std::sqrt(3.0)) / 12, 1e-9);
  EXPECT_DOUBLE_EQ(run_stats({5}).stddev_of_mean, 0);
}

TEST(StatFormat, StartedOn) {
  const std::string s = format_stat_started_on(0);
  EXPECT_EQ(s.rfind("# started on ", 0), 0U);
  EXPECT_EQ(s.substr(s.size() - 2), "\n\n");
}

TEST(StatModel, BuildsEntriesFromRuns) {
  CounterSnapshot a;
  a.cpus = {0, 1};
  a.threads = {-1};
  CounterSnapshot::Event ev;
  ev.name = "page-faults";
  ev.attr.type = PERF_TYPE_SOFTWARE;
  ev.attr.config = PERF_COUNT_SW_PAGE_FAULTS;
  ev.instances = {{10, 5, 5, 0}, {20, 5, 5, 0}};
  a.events.push_back(ev);
  CounterSnapshot b = a;
  b.events[0].instances = {{20, 5, 5, 0}, {30, 5, 5, 0}};
  const auto global = build_stat_entries({a, b}, {});
  ASSERT_EQ(global.size(), 1U);
  EXPECT_DOUBLE_EQ(global[0].value, 40);  // mean of 30 and 50
  EXPECT_GT(global[0].noise_pct, 0);
  StatModelOptions per_cpu;
  per_cpu.aggr = StatAggr::kPerCpu;
  const auto cpus = build_stat_entries({a}, per_cpu);
  ASSERT_EQ(cpus.size(), 2U);
  EXPECT_EQ(cpus[1].cpu, 1);
  EXPECT_DOUBLE_EQ(cpus[1].value, 20);
  CounterSnapshot th;
  th.cpus = {-1};
  th.threads = {100, 101};
  th.events.push_back(ev);
  th.events[0].instances = {{3, 5, 5, 0}, {9, 5, 5, 0}};
  StatModelOptions per_thread;
  per_thread.aggr = StatAggr::kPerThread;
  per_thread.thread_comms = {"a", "b"};
  const auto threads = build_stat_entries({th}, per_thread);
  ASSERT_EQ(threads.size(), 2U);
  EXPECT_EQ(threads[0].tid, 101);  // largest first, as perf sorts
  EXPECT_EQ(threads[0].comm, "b");
  EXPECT_DOUBLE_EQ(threads[1].value, 3);
  EXPECT_EQ(describe_stat_target({"true", "1"}, false, "", "", ""), "'true 1'");
  EXPECT_EQ(describe_stat_target({}, true, "", "", ""), "'system wide'");
  EXPECT_EQ(describe_stat_target({}, false, "0-1", "", ""), "'CPU(s) 0-1'");
  EXPECT_EQ(describe_stat_target({}, false, "", "42", ""), "process id '42'");
}

}  // namespace
}  // namespace perfx::report

namespace perfx::report {
namespace {

TEST(StatFormat, BigNumGroupsDigitsWithTheLocalesSeparator) {
  StatReport r = sample_report();
  r.entries[1].value = 1234567;     // page-faults
  r.entries[0].value = 12345678.9;  // task-clock, ns: 12,345.68 msec
  StatFormatOptions o;
  o.thousands_sep = ",";
  const std::string out = format_stat(r, o);
  EXPECT_NE(out.find("         1,234,567      page-faults"), std::string::npos) << out;
  EXPECT_NE(out.find("             12.35 msec task-clock"), std::string::npos) << out;
  r.entries[0].value = 1234567890.0;
  EXPECT_NE(format_stat(r, o).find("          1,234.57 msec task-clock"), std::string::npos);
  // CSV is never grouped (perf's csv_output formats).
  o.layout = StatLayout::kCsv;
  EXPECT_NE(format_stat(r, o).find("1234567,,page-faults"), std::string::npos);
}

}  // namespace
}  // namespace perfx::report

namespace perfx::report {
namespace {

// Two sockets of two cores each; CPU 3 is the second hyperthread of core 0 on socket 0.
std::vector<CpuPlace> two_socket_places() {
  return {{0, 0, 0, 0}, {0, 0, 1, 0}, {1, 0, 0, 1}, {0, 0, 0, 0}, {1, 0, 1, 1}};
}

CounterSnapshot five_cpus(std::vector<double> counts) {
  CounterSnapshot s;
  s.cpus = {0, 1, 2, 3, 4};
  s.threads = {-1};
  for (const char* name : {"task-clock", "page-faults"}) {
    CounterSnapshot::Event ev;
    ev.name = name;
    ev.attr.type = PERF_TYPE_SOFTWARE;
    ev.attr.config = name[0] == 't' ? PERF_COUNT_SW_TASK_CLOCK : PERF_COUNT_SW_PAGE_FAULTS;
    for (double c : counts) ev.instances.push_back({static_cast<std::uint64_t>(c), 5, 5, 0});
    s.events.push_back(ev);
  }
  return s;
}

TEST(StatModel, SumsCpusPerSocketDieCoreAndNodeInPerfsOrder) {
  const CounterSnapshot a = five_cpus({1, 10, 100, 1000, 10000});
  StatModelOptions o;
  o.cpu_places = two_socket_places();
  o.aggr = StatAggr::kPerSocket;
  auto e = build_stat_entries({a}, o);
  // Aggregate-major: both events of socket 0, then of socket 1.
  ASSERT_EQ(e.size(), 4U);
  EXPECT_EQ(e[0].name, "task-clock");
  EXPECT_EQ(e[1].name, "page-faults");
  EXPECT_EQ(e[0].place.socket, 0);
  EXPECT_EQ(e[0].aggr_cpus, 3);
  EXPECT_DOUBLE_EQ(e[0].value, 1011);
  EXPECT_EQ(e[2].place.socket, 1);
  EXPECT_EQ(e[2].aggr_cpus, 2);
  EXPECT_DOUBLE_EQ(e[3].value, 10100);
  EXPECT_EQ(e[2].place.core, -1);

  o.aggr = StatAggr::kPerCore;
  e = build_stat_entries({a}, o);
  ASSERT_EQ(e.size(), 8U);  // S0-C0 (CPUs 0 and 3), S0-C1, S1-C0, S1-C1
  EXPECT_EQ(e[0].place, (CpuPlace{0, 0, 0, -1}));
  EXPECT_DOUBLE_EQ(e[0].value, 1001);
  EXPECT_EQ(e[0].aggr_cpus, 2);
  EXPECT_EQ(e[2].place, (CpuPlace{0, 0, 1, -1}));
  EXPECT_EQ(e[4].place, (CpuPlace{1, 0, 0, -1}));
  EXPECT_DOUBLE_EQ(e[6].value, 10000);

  o.aggr = StatAggr::kPerNode;
  e = build_stat_entries({a}, o);
  ASSERT_EQ(e.size(), 4U);
  EXPECT_EQ(e[2].place, (CpuPlace{-1, -1, -1, 1}));
  EXPECT_DOUBLE_EQ(e[2].value, 10100);

  // A CPU sysfs says nothing about is its own "nowhere" aggregate, sorted first (-1).
  o.aggr = StatAggr::kPerSocket;
  o.cpu_places.resize(4);
  e = build_stat_entries({a}, o);
  ASSERT_EQ(e.size(), 6U);
  EXPECT_EQ(e[0].place.socket, -1);
  EXPECT_DOUBLE_EQ(e[0].value, 10000);
}

TEST(StatModel, OnlyTotalsCarryRunToRunNoise) {
  const CounterSnapshot a = five_cpus({1, 10, 100, 1000, 10000});
  const CounterSnapshot b = five_cpus({3, 30, 300, 3000, 30000});
  StatModelOptions o;
  o.cpu_places = two_socket_places();
  EXPECT_GT(build_stat_entries({a, b}, o)[0].noise_pct, 0);
  for (auto mode : {StatAggr::kPerCpu, StatAggr::kPerSocket, StatAggr::kPerCore}) {
    o.aggr = mode;
    const auto e = build_stat_entries({a, b}, o);
    EXPECT_DOUBLE_EQ(e[0].value, mode == StatAggr::kPerCpu      ? 2
                                 : mode == StatAggr::kPerSocket ? 2022
                                                                : 2002);
    for (const auto& x : e) EXPECT_EQ(x.noise_pct, 0) << static_cast<int>(mode);
  }
}

TEST(StatFormat, PerSocketDieCoreNodePrefixes) {
  StatReport r;
  r.target = "'system wide'";
  r.elapsed_ns = 1e8;
  StatEntry e = entry("task-clock", PERF_TYPE_SOFTWARE, PERF_COUNT_SW_TASK_CLOCK, 209930000);
  e.place = {0, 0, 1, -1};
  e.aggr_cpus = 2;
  r.entries.push_back(e);
  auto csv = layout_options(StatLayout::kCsv);
  auto json = layout_options(StatLayout::kJson);
  struct Case {
    StatAggr aggr;
    const char *text, *csv, *json, *header;
  };
  // perf 6.1's aggr_printout() and interval headers.
  const Case cases[] = {
      {StatAggr::kPerSocket, "S0        2             209.93 msec task-clock", "S0,2,209.93,msec,",
       "{\"socket\" : \"S0\", \"aggregate-number\" : 2, \"counter-value\"",
       "#           time socket cpus             counts unit events\n"},
      {StatAggr::kPerDie, "S0-D0           2             209.93 msec", "S0-D0,2,209.93,",
       "{\"die\" : \"S0-D0\", \"aggregate-number\" : 2, ",
       "#           time die          cpus             counts unit events\n"},
      {StatAggr::kPerCore, "S0-D0-C1           2             209.93 msec", "S0-D0-C1,2,209.93,",
       "{\"core\" : \"S0-D0-C1\", \"aggregate-number\" : 2, ",
       "#           time core            cpus             counts unit events\n"},
      {StatAggr::kPerNode, "N-1       2             209.93 msec", "N-1,2,209.93,",
       "{\"node\" : \"N-1\", \"aggregate-number\" : 2, ",
       "#           time node   cpus             counts unit events\n"},
  };
  for (const Case& c : cases) {
    r.aggr = c.aggr;
    EXPECT_NE(format_stat(r, {}).find(c.text), std::string::npos) << format_stat(r, {});
    EXPECT_NE(format_stat(r, csv).find(c.csv), std::string::npos) << format_stat(r, csv);
    EXPECT_NE(format_stat(r, json).find(c.json), std::string::npos) << format_stat(r, json);
    EXPECT_EQ(format_stat_interval(r, {}, 0.1, true).rfind(c.header, 0), 0U);
    // "CPUs utilized" divides the aggregate's task-clock by the wall time.
    EXPECT_NE(format_stat(r, {}).find("#    2.099 CPUs utilized"), std::string::npos);
  }
}

TEST(StatModel, EachEventKeepsItsCgroup) {
  CounterSnapshot a = five_cpus({1, 10, 100, 1000, 10000});
  StatModelOptions o;
  o.event_cgroups = {"web", "db"};
  auto e = build_stat_entries({a}, o);
  ASSERT_EQ(e.size(), 2U);
  EXPECT_EQ(e[0].cgroup, "web");
  EXPECT_EQ(e[1].cgroup, "db");
  o.aggr = StatAggr::kPerCpu;
  e = build_stat_entries({a}, o);
  EXPECT_EQ(e[4].cgroup, "web");
  EXPECT_EQ(e[5].cgroup, "db");
  // The cgroup column shows each line's own; a metric pairs events of one cgroup only.
  StatReport r;
  r.target = "'system wide'";
  r.elapsed_ns = 1e8;
  StatEntry tc = entry("task-clock", PERF_TYPE_SOFTWARE, PERF_COUNT_SW_TASK_CLOCK, 5e7);
  tc.cgroup = "web";
  StatEntry cs = entry("context-switches", PERF_TYPE_SOFTWARE, PERF_COUNT_SW_CONTEXT_SWITCHES, 10);
  cs.cgroup = "db";
  r.entries = {tc, cs};
  const std::string text = format_stat(r, {});
  EXPECT_NE(text.find("msec task-clock                       web #    0.500 CPUs utilized"),
            std::string::npos)
      << text;
  // No task-clock in db: no rate (web's task-clock is another cgroup's), as perf.
  EXPECT_NE(text.find("context-switches                 db   "), std::string::npos) << text;
  EXPECT_EQ(text.find("/sec"), std::string::npos) << text;
}

// --metric-only: a units line and a values line; rate metrics ("CPUs utilized", "/sec")
// show nothing, a counter not counted an empty 21-column cell (perf 6.1 on this VM).
TEST(StatFormat, MetricOnly) {
  StatReport r = sample_report();
  StatFormatOptions o;
  o.metric_only = true;
  std::string text = format_stat(r, o);
  EXPECT_NE(text.find(":\n\n\n" + std::string(21, ' ') + "\n\n"), std::string::npos) << text;
  EXPECT_EQ(text.find("page-faults"), std::string::npos);
  // A counted IPC: its unit in the header, its value under it.
  r.entries.push_back(entry("instructions", PERF_TYPE_HARDWARE, PERF_COUNT_HW_INSTRUCTIONS, 3000));
  r.entries[2].supported = true;
  r.entries[2].value = 2000;
  r.entries[2].time_enabled = r.entries[2].time_running = 1000000;
  text = format_stat(r, o);
  EXPECT_NE(text.find(fmt::format("{:>20} {:>20} \n", "GHz", "insn per cycle")), std::string::npos)
      << text;
  EXPECT_NE(text.find(fmt::format("{:>20} {:>20} \n", "   0.002", "   1.50 ")), std::string::npos)
      << text;
}

TEST(StatPlan, ToolEventsGoAfterTheEventsListedBeforeThem) {
  StatReport r = sample_report();  // task-clock, page-faults, cycles
  std::vector<StatToolSlot> tools(3);
  tools[0] = {StatToolEvent::kDurationTime, "duration_time", 0};
  tools[1] = {StatToolEvent::kUserTime, "user_time", 2};
  tools[2] = {StatToolEvent::kSystemTime, "system_time", 3};
  add_stat_tool_entries(r, tools, 3, 5e6, 2e6, 0);
  ASSERT_EQ(r.entries.size(), 6u);
  EXPECT_EQ(r.entries[0].name, "duration_time");
  EXPECT_EQ(r.entries[3].name, "user_time");
  EXPECT_EQ(r.entries[5].name, "system_time");
  EXPECT_EQ(stat_unit(r.entries[0].type, r.entries[0].config).unit, "ns");
  const std::string text = format_stat(r, {});
  // ns counts, the generic rate next to task-clock, and 0 is "<not counted>" as perf.
  EXPECT_NE(text.find("           5000000 ns   duration_time                    #    5.000 G/sec"),
            std::string::npos)
      << text;
  EXPECT_NE(text.find("     <not counted> ns   system_time"), std::string::npos) << text;
}

TEST(StatPlan, ExitStatusAsPerf) {
  EXPECT_EQ(stat_exit_code({}), 0);
  StatRun run;
  run.exit = ExitStatus{};
  run.exit->code = 3;
  EXPECT_EQ(stat_exit_code({run}), 3);
  run.exit->signaled = true;  // the workload killed: perf prints the signal, exits 0
  run.exit->signal = 9;
  run.exit->code = 137;
  EXPECT_EQ(stat_exit_code({run}), 0);
  run.stop_signal = 2;  // Ctrl-C reached perf itself: it dies by it
  EXPECT_EQ(stat_exit_code({run}), 130);
}

TEST(StatPlan, DefaultEventsAndMessages) {
  EXPECT_EQ(default_stat_events(false).rfind("task-clock,context-switches,", 0), 0u);
  EXPECT_EQ(default_stat_events(true).rfind("cpu-clock,context-switches,", 0), 0u);
  EXPECT_EQ(detailed_stat_events(1),
            "L1-dcache-loads,L1-dcache-load-misses,LLC-loads,LLC-load-misses");
  EXPECT_EQ(detailed_stat_events(9), detailed_stat_events(3));
  EXPECT_EQ(stat_metric_notice("IPC,TopdownL1"), "Cannot find metric or group `IPC'");
  EXPECT_EQ(stat_metric_notice(""), "");
  auto td = check_stat_topdown(false);
  ASSERT_FALSE(td);
  EXPECT_EQ(td.error().message(), "top down event configuration requires system-wide mode (-a)");
  EXPECT_EQ(check_stat_topdown(true).error().message(), "System does not support topdown");
}

TEST(StatPlan, ToolEventsAreSplitFromTheList) {
  auto plan = plan_stat_events("duration_time,task-clock,{page-faults,minor-faults},user_time");
  ASSERT_TRUE(plan) << plan.error().message();
  ASSERT_EQ(plan->groups.size(), 2u);
  ASSERT_EQ(plan->tools.size(), 2u);
  EXPECT_EQ(plan->tools[0].events_before, 0u);
  EXPECT_EQ(plan->tools[1].event, StatToolEvent::kUserTime);
  EXPECT_EQ(plan->tools[1].events_before, 3u);
  auto only = plan_stat_events("system_time");
  ASSERT_TRUE(only);
  EXPECT_TRUE(only->groups.empty());
  EXPECT_FALSE(plan_stat_events(""));  // an empty list is still the parser's error
  EXPECT_FALSE(plan_stat_events("duration_time,,task-clock"));
}

}  // namespace
}  // namespace perfx::report
