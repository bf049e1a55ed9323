// stat record / stat report without a kernel counter: made-up snapshots written by
// StatRecorder, read back by read_stat_recording, printed through the live stat's model.
#include <gtest/gtest.h>
#include <linux/perf_event.h>

#include <cstring>
#include <filesystem>
#include <fstream>
#include <string>
#include <vector>

#include "../temp_dir.hpp"
#include "perfx/perf_data.hpp"
#include "perfx/stat_record.hpp"
#include "record/features.hpp"
#include "record/perf_data_reader.hpp"
#include "record/perf_data_writer.hpp"

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

record::Record user(record::Record::Body body) {
  record::Record r;
  r.body = std::move(body);
  return r;
}

// A `stat record -a` file of task-clock on CPUs 0-3 (CPU c counts c + 1 ms) as recorded
// on a machine unlike this one: CPUs 0 and 1 are SMT siblings of core 0 on socket 0,
// CPUs 2 and 3 cores 0 and 1 of socket 1; NUMA nodes 0 (CPUs 0-1) and 4 (CPUs 2-3).
void write_four_cpu_file(const std::string& path) {
  raw::EventAttr a = sw_attr(PERF_COUNT_SW_TASK_CLOCK);
  a.sample_type = PERF_SAMPLE_IDENTIFIER;
  auto w = record::PerfDataWriter::create(path, {{a, "task-clock", {100, 101, 102, 103}}}, {});
  ASSERT_TRUE(w) << w.error().message();
  record::Features f;
  f.nrcpus = record::NrCpus{4, 4};
  record::CpuTopology topo;
  topo.core_siblings = {"0-1", "2-3"};
  topo.thread_siblings = {"0-1", "2", "3"};
  topo.cpus = {{0, 0, 0}, {0, 0, 0}, {0, 1, 0}, {1, 1, 0}};  // core, socket, die
  topo.die_siblings = {"0-1", "2-3"};
  topo.has_dies = true;
  f.cpu_topology = topo;
  f.numa_topology = {{0, 1 << 20, 1 << 19, "0-1"}, {4, 1 << 20, 1 << 19, "2-3"}};
  ASSERT_TRUE(w->set_features(f));
  std::vector<std::byte> thread(24);
  const std::uint64_t any = ~std::uint64_t{0};
  std::memcpy(thread.data(), &any, 8);
  ASSERT_TRUE(w->write(user(record::ThreadMap{1, thread, false})));
  const std::uint16_t cpus[] = {4, 0, 1, 2, 3};  // the list form: nr, cpu[nr]
  ASSERT_TRUE(w->write(user(record::CpuMap{0, std::as_bytes(std::span(cpus)), false})));
  const std::uint64_t terms[] = {0, 1, 1, 0, 2, 1};  // aggr global, no interval, scale
  ASSERT_TRUE(w->write(user(record::StatConfig{3, record::U64Array::of(terms)})));
  for (std::uint32_t c = 0; c < 4; ++c) {
    const std::uint64_t ns = (c + 1) * 1000000ull;
    ASSERT_TRUE(w->write(user(record::Stat{100 + c, c, 0, ns, ns, ns})));
  }
  ASSERT_TRUE(w->write(user(record::StatRound{record::kStatRoundFinal, 10000000})));
  ASSERT_TRUE(w->finalize());
}

// perf stat report's --per-* group by the recording machine's topology (the file's
// CPU_TOPOLOGY / NUMA_TOPOLOGY), never by this machine's.
TEST(StatRecording, AggregatesWithTheFilesTopology) {
  test_support::TempDir dir;
  const std::string path = dir.file("four.data");
  write_four_cpu_file(path);
  if (::testing::Test::HasFatalFailure()) return;
  auto file = read_stat_recording(path);
  ASSERT_TRUE(file) << file.error().message();
  ASSERT_EQ(file->cpu_places.size(), 4u);
  EXPECT_EQ(file->cpu_places[3], (CpuPlace{1, 0, 1, 1}));  // node: index 1, not 4 (perf)
  // This machine's places are ignored when the file has a topology.
  const std::vector<CpuPlace> here(4, CpuPlace{7, 7, 7, 7});
  const auto rows = [&](StatAggr aggr) {
    std::vector<std::tuple<int, int, int, int, int, double>> out;
    const auto printouts = stat_recording_printouts(*file, aggr, here);
    for (const auto& e : printouts.at(0).report.entries)
      out.emplace_back(e.place.socket, e.place.die, e.place.core, e.place.node, e.aggr_cpus,
                       e.value);
    return out;
  };
  using Row = std::tuple<int, int, int, int, int, double>;
  EXPECT_EQ(
      rows(StatAggr::kPerCore),
      (std::vector<Row>{{0, 0, 0, -1, 2, 3e6}, {1, 0, 0, -1, 1, 3e6}, {1, 0, 1, -1, 1, 4e6}}));
  EXPECT_EQ(rows(StatAggr::kPerSocket),
            (std::vector<Row>{{0, -1, -1, -1, 2, 3e6}, {1, -1, -1, -1, 2, 7e6}}));
  EXPECT_EQ(rows(StatAggr::kPerDie),
            (std::vector<Row>{{0, 0, -1, -1, 2, 3e6}, {1, 0, -1, -1, 2, 7e6}}));
  EXPECT_EQ(rows(StatAggr::kPerNode),
            (std::vector<Row>{{-1, -1, -1, 0, 2, 3e6}, {-1, -1, -1, 1, 2, 7e6}}));
  const std::string text =
      format_stat(stat_recording_printouts(*file, StatAggr::kPerCore).at(0).report, {});
  EXPECT_NE(text.find("S0-D0-C0"), std::string::npos) << text;
  EXPECT_NE(text.find("S1-D0-C1"), std::string::npos) << text;
}

// Without a topology (a pipe), perf takes this machine's sockets, dies and cores, and no
// NUMA node.
TEST(StatRecording, PipeTakesTheLiveTopologyWithoutNodes) {
  StatRecording rec;  // as read from a pipe: no cpu_places
  rec.cpus = {0, 1};
  StatRecordingRound round;
  round.counts = snapshot({0, 1}, {-1}, 1000);
  round.final = true;
  rec.rounds.push_back(round);
  const std::vector<CpuPlace> here{{0, 0, 0, 3}, {0, 0, 0, 3}};
  const auto p = stat_recording_printouts(rec, StatAggr::kPerCore, here);
  ASSERT_EQ(p.at(0).report.entries.size(), 2u);  // one core, two events
  EXPECT_EQ(p[0].report.entries[0].aggr_cpus, 2);
  const auto n = stat_recording_printouts(rec, StatAggr::kPerNode, here);
  ASSERT_EQ(n.at(0).report.entries.size(), 2u);
  EXPECT_EQ(n[0].report.entries[0].place.node, -1);
}

// What perf stat record writes besides the counts: EVENT_UPDATE unit and scale records
// sized as perf's (40-byte struct + payload), and the placeholder kernel MMAP before the
// FINAL round when kallsyms shows addresses.
TEST(StatRecording, WritesPerfsUnitScaleAndKernelMmap) {
  test_support::TempDir dir;
  const std::string path = dir.file("x.data");
  {
    StatRecorder rec(path, {});
    ASSERT_TRUE(rec.finish({run_of(snapshot({-1}, {1}, 1), 1000)}));
  }
  auto reader = record::PerfDataReader::open(path);
  ASSERT_TRUE(reader) << reader.error().message();
  EXPECT_TRUE(reader->features().cpu_topology);
  std::vector<std::uint32_t> types;
  std::vector<std::uint16_t> sizes;
  record::RawRecord rr;
  record::Record r;
  std::string unit;
  double scale = 0;
  std::string mmap_name;
  while (reader->next(rr)) {
    types.push_back(rr.header.type);
    sizes.push_back(rr.header.size);
    ASSERT_TRUE(reader->decode(rr, r));
    if (const auto* u = std::get_if<record::EventUpdate>(&r.body)) {
      EXPECT_EQ(u->id, 100u);  // task-clock's first id
      if (u->type == static_cast<std::uint64_t>(record::EventUpdateType::kUnit)) unit = u->text();
      if (u->type == static_cast<std::uint64_t>(record::EventUpdateType::kScale))
        scale = u->scale();
    }
    if (const auto* m = std::get_if<record::Mmap>(&r.body)) {
      mmap_name = std::string(m->filename);
      EXPECT_EQ(m->pid, static_cast<std::uint32_t>(-1));
      EXPECT_EQ(rr.header.misc, PERF_RECORD_MISC_KERNEL);
    }
  }
  // unit "msec" (48 bytes), scale 1e-6 (48), then THREAD_MAP ...; page-faults has neither.
  ASSERT_GE(types.size(), 7u);
  EXPECT_EQ(types[0], raw::PERF_RECORD_EVENT_UPDATE);
  EXPECT_EQ(sizes[0], 48u);
  EXPECT_EQ(sizes[1], 48u);
  EXPECT_EQ(types[2], raw::PERF_RECORD_THREAD_MAP);
  EXPECT_EQ(unit, "msec");
  EXPECT_DOUBLE_EQ(scale, 1e-6);
  EXPECT_EQ(types.back(), raw::PERF_RECORD_STAT_ROUND);
  std::ifstream kallsyms("/proc/kallsyms");
  std::string first_address;
  kallsyms >> first_address;
  if (first_address.find_first_not_of('0') == std::string::npos)
    GTEST_SKIP() << "kallsyms hides kernel addresses here: no MMAP (perf writes none either)";
  EXPECT_EQ(mmap_name, "[kernel.kallsyms]_text");
  EXPECT_EQ(types[types.size() - 2], static_cast<std::uint32_t>(PERF_RECORD_MMAP));
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
