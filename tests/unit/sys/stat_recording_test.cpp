// stat record / stat report without a kernel counter: made-up snapshots written by
// StatRecorder, read back by read_stat_recording, printed through the live stat's model.
#include <gtest/gtest.h>
#include <linux/perf_event.h>

#include <filesystem>
#include <fstream>
#include <string>
#include <vector>

#include "../temp_dir.hpp"
#include "perfx/perf_data.hpp"
#include "perfx/stat_record.hpp"

namespace perfx {
namespace {

raw::EventAttr sw_attr(std::uint64_t config) {
  raw::EventAttr a{};
  a.size = raw::kAttrSizeVer7;
  a.type = PERF_TYPE_SOFTWARE;
  a.config = config;
  a.read_format = PERF_FORMAT_TOTAL_TIME_ENABLED | PERF_FORMAT_TOTAL_TIME_RUNNING;
  return a;
}

// task-clock and page-faults on `cpus` x `threads`, every instance counting `scale` x
// its index + 1 (task-clock in ns).
CounterSnapshot snapshot(std::vector<int> cpus, std::vector<pid_t> threads, std::uint64_t scale) {
  CounterSnapshot s;
  s.cpus = std::move(cpus);
  s.threads = std::move(threads);
  const std::size_t n = s.cpus.size() * s.threads.size();
  std::uint64_t id = 100;
  for (auto [name, config] : {std::pair{"task-clock", PERF_COUNT_SW_TASK_CLOCK},
                              std::pair{"page-faults", PERF_COUNT_SW_PAGE_FAULTS}}) {
    CounterSnapshot::Event ev;
    ev.name = name;
    ev.attr = sw_attr(config);
    for (std::size_t i = 0; i < n; ++i) {
      ev.instances.push_back({scale * (i + 1), 1000000 * scale, 1000000 * scale, 0});
      ev.ids.push_back(id++);
    }
    s.events.push_back(std::move(ev));
  }
  return s;
}

StatRun run_of(CounterSnapshot s, std::int64_t elapsed_ns) {
  StatRun r;
  r.counts = std::move(s);
  r.elapsed = std::chrono::nanoseconds(elapsed_ns);
  return r;
}

TEST(StatRecording, FinalRoundRebuildsTheLiveModel) {
  test_support::TempDir dir;
  const std::string path = dir.file("perf.data");
  const auto snap = snapshot({0, 1}, {-1}, 1000);
  {
    StatRecorder rec(path, {StatAggr::kPerCpu, 0, {"stat", "record", "-a", "-A"}, {}, "perfx"});
    ASSERT_TRUE(rec.finish({run_of(snap, 5000000)}));
  }
  auto file = read_stat_recording(path);
  ASSERT_TRUE(file) << file.error().message();
  EXPECT_EQ(file->aggr, StatAggr::kPerCpu);
  EXPECT_EQ(file->interval_ms, 0u);
  EXPECT_EQ(file->cpus, (std::vector<int>{0, 1}));
  ASSERT_EQ(file->rounds.size(), 1u);
  EXPECT_TRUE(file->rounds[0].final);
  EXPECT_EQ(file->rounds[0].time_ns, 5000000u);
  ASSERT_FALSE(file->cmdline.empty());
  EXPECT_EQ(file->cmdline.back(), "-A");
  const auto& counts = file->rounds[0].counts;
  ASSERT_EQ(counts.events.size(), 2u);
  EXPECT_EQ(counts.events[1].name, "page-faults");
  for (std::size_t e = 0; e < 2; ++e) {
    for (std::size_t i = 0; i < 2; ++i) {
      EXPECT_EQ(counts.events[e].instances[i].value, snap.events[e].instances[i].value);
      EXPECT_EQ(counts.events[e].instances[i].time_running,
                snap.events[e].instances[i].time_running);
    }
  }
  // The report's entries are the live stat's entries of the same snapshot.
  auto printouts = stat_recording_printouts(*file, std::nullopt);
  ASSERT_EQ(printouts.size(), 1u);
  StatModelOptions live;
  live.aggr = StatAggr::kPerCpu;
  const auto expect = build_stat_entries({snap}, live);
  const auto& got = printouts[0].report.entries;
  ASSERT_EQ(got.size(), expect.size());
  for (std::size_t i = 0; i < got.size(); ++i) {
    EXPECT_EQ(got[i].name, expect[i].name);
    EXPECT_EQ(got[i].cpu, expect[i].cpu);
    EXPECT_DOUBLE_EQ(got[i].value, expect[i].value);
  }
  EXPECT_DOUBLE_EQ(printouts[0].report.elapsed_ns, 5e6);
  const std::string text = format_stat(printouts[0].report, {});
  EXPECT_NE(text.find("CPU1"), std::string::npos) << text;
  EXPECT_NE(text.find("0.005000000 seconds time elapsed"), std::string::npos) << text;
  // The report may ask for another aggregation: global sums the CPUs.
  auto global = stat_recording_printouts(*file, StatAggr::kGlobal);
  ASSERT_EQ(global[0].report.entries.size(), 2u);
  EXPECT_DOUBLE_EQ(global[0].report.entries[1].value, 1000.0 + 2000.0);
}

TEST(StatRecording, IntervalRoundsAreDeltas) {
  test_support::TempDir dir;
  const std::string path = dir.file("i.data");
  StatRecorder rec(path, {StatAggr::kGlobal, 100, {"stat", "record", "-I", "100"}, {}, "perfx"});
  StatSessionConfig cfg;
  rec.attach(cfg);
  ASSERT_TRUE(cfg.on_read);
  cfg.on_read(snapshot({-1}, {4242}, 10), 0.1);
  cfg.on_read(snapshot({-1}, {4242}, 25), 0.2);
  ASSERT_TRUE(rec.finish({run_of(snapshot({-1}, {4242}, 30), 250000000)}));
  auto file = read_stat_recording(path);
  ASSERT_TRUE(file) << file.error().message();
  EXPECT_EQ(file->threads, (std::vector<std::int64_t>{4242}));
  ASSERT_EQ(file->rounds.size(), 2u);  // the last reading has no round (as perf -I)
  EXPECT_FALSE(file->rounds[1].final);
  EXPECT_EQ(file->rounds[1].time_ns, 200000000u);
  auto p = stat_recording_printouts(*file, std::nullopt);
  ASSERT_EQ(p.size(), 2u);
  EXPECT_TRUE(p[0].interval && p[0].header);
  EXPECT_FALSE(p[1].header);
  EXPECT_DOUBLE_EQ(p[1].time_s, 0.2);
  EXPECT_DOUBLE_EQ(p[0].report.entries[1].value, 10.0);
  EXPECT_DOUBLE_EQ(p[1].report.entries[1].value, 15.0);  // 25 - 10
  const std::string text = format_stat_interval(p[1].report, {}, p[1].time_s, false);
  EXPECT_NE(text.find("0.200000000"), std::string::npos) << text;
}

TEST(StatRecording, KeepsTheOldFileAndRefusesSymlinks) {
  test_support::TempDir dir;
  const std::string path = dir.file("perf.data");
  { std::ofstream(path) << "old"; }
  const std::string target = dir.file("victim");
  { std::ofstream(target) << "victim"; }
  StatRecorder rec(path, {});
  ASSERT_TRUE(rec.finish({run_of(snapshot({-1}, {1}, 1), 1000)}));
  EXPECT_TRUE(std::filesystem::exists(path + ".old"));
  std::filesystem::remove(path);
  std::filesystem::create_symlink(target, path);
  StatRecorder again(path, {});
  ASSERT_TRUE(again.finish({run_of(snapshot({-1}, {1}, 1), 1000)}));
  EXPECT_FALSE(std::filesystem::is_symlink(path));
  std::ifstream v(target);
  std::string content;
  v >> content;
  EXPECT_EQ(content, "victim");
}

TEST(StatRecording, SamplingRecordingIsNotStatData) {
  test_support::TempDir dir;
  const std::string path = dir.file("samples.data");
  raw::EventAttr a = sw_attr(PERF_COUNT_SW_CPU_CLOCK);
  a.sample_type = PERF_SAMPLE_IP;
  auto w = PerfDataWriter::create(path, {{"cpu-clock", a, {}}});
  ASSERT_TRUE(w) << w.error().message();
  record::Record s;
  s.body = record::Sample{};
  ASSERT_TRUE(w->write(s));
  ASSERT_TRUE(w->finalize());
  auto file = read_stat_recording(path);
  ASSERT_FALSE(file);
  EXPECT_NE(file.error().message().find("no stat data"), std::string::npos)
      << file.error().message();
  EXPECT_FALSE(read_stat_recording(dir.file("missing.data")));
}

TEST(StatRecording, AggrCodesArePerf61s) {
  EXPECT_EQ(stat_aggr_code(StatAggr::kPerCpu), 0u);
  EXPECT_EQ(stat_aggr_code(StatAggr::kGlobal), 1u);
  EXPECT_EQ(stat_aggr_code(StatAggr::kPerThread), 5u);
  EXPECT_EQ(stat_aggr_code(StatAggr::kPerNode), 7u);
  EXPECT_EQ(stat_aggr_from_code(3), StatAggr::kPerDie);
  EXPECT_FALSE(stat_aggr_from_code(6));  // AGGR_UNSET
}

}  // namespace
}  // namespace perfx
