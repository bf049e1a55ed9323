// perfx::Recording (include/perfx/recording.hpp), the one front door to a perf.data: what
// it opens, the passes it allows (a file: any number; a pipe: one), the samples and the
// profile it gives, and the text views that read through it (perf_text.hpp).
#include "perfx/recording.hpp"

#include <gtest/gtest.h>

#include <sstream>
#include <string>
#include <vector>

#include "../temp_dir.hpp"
#include "../test_records.hpp"
#include "perfx/exporters.hpp"
#include "perfx/perf_data.hpp"
#include "perfx/perf_text.hpp"

namespace perfx {
namespace {

raw::EventAttr cpu_clock() {
  auto a = test_support::cpu_clock_attr(PERF_SAMPLE_IP | PERF_SAMPLE_TID | PERF_SAMPLE_TIME |
                                        PERF_SAMPLE_CPU);
  a.comm = 1;
  return a;
}

// A COMM for two threads, then `n` samples alternating between them on CPUs 0 and 1 (no
// PERIOD in the samples: the attr's 1000 counts for each).
void write_recording(const std::string& path, int n, bool pipe = false) {
  PerfDataWriterOptions o;
  o.pipe = pipe;
  auto w = PerfDataWriter::create(path, {{"cpu-clock", cpu_clock(), {}}}, o);
  ASSERT_TRUE(w) << w.error().message();
  std::uint64_t t = 1'000'000'000;
  for (std::uint32_t tid : {100u, 101u}) {
    record::Record r;
    r.body = record::Comm{100, tid, tid == 100 ? "main" : "worker"};
    r.sample_id.pid = 100;
    r.sample_id.tid = tid;
    r.sample_id.time = t++;
    ASSERT_TRUE(w->write(r));
  }
  for (int i = 0; i < n; ++i) {
    record::Sample s;
    s.ip = 0x401000 + static_cast<std::uint64_t>(i);
    s.pid = 100;
    s.tid = (i % 2) ? 101 : 100;
    s.time = t += 1'000'000;
    s.cpu = static_cast<std::uint32_t>(i % 2);
    record::Record r;
    r.header.misc = PERF_RECORD_MISC_USER;
    r.body = s;
    ASSERT_TRUE(w->write(r));
  }
  ASSERT_TRUE(w->finalize());
}

// write_recording(), then the recording opened.
Result<Recording> recorded(const std::string& path, int n, bool pipe = false) {
  write_recording(path, n, pipe);
  return Recording::open(path);
}

TEST(Recording, OpensAFileAndGivesItsEventsAndEveryPassItsSamples) {
  test_support::TempDir dir;
  const auto path = dir.file("r.data");
  auto rec = recorded(path, 6);
  ASSERT_TRUE(rec) << rec.error().message();
  EXPECT_FALSE(rec->is_pipe());
  EXPECT_EQ(rec->path(), path);
  ASSERT_EQ(rec->info().events.size(), 1u);
  EXPECT_EQ(rec->info().events[0].name, "cpu-clock");

  auto prof = rec->load_profile();
  ASSERT_TRUE(prof) << prof.error().message();
  ASSERT_EQ(prof->samples.size(), 6u);
  EXPECT_EQ(prof->events[0].total_samples, 6u);
  EXPECT_EQ(prof->events[0].total_period, 6000u);

  // A file allows another pass: it is opened anew.
  std::vector<SymbolizedSample> seen;
  std::vector<std::string> comms;
  auto ok = rec->for_each_sample({}, [&](const SymbolizedSample& s) {
    seen.push_back(s);
    comms.emplace_back(s.comm);
    EXPECT_EQ(s.frames.size(), 1u);  // no callchain: the sampled ip
    if (!s.frames.empty()) {
      EXPECT_EQ(s.frames[0].function, "[unknown]");  // no map holds it
    }
    return true;
  });
  ASSERT_TRUE(ok) << ok.error().message();
  ASSERT_EQ(seen.size(), 6u);
  EXPECT_EQ(seen[1].tid, 101);
  EXPECT_EQ(seen[1].period, 1000u);  // the attr's period
  EXPECT_EQ(seen[1].cpu, 1u);
  EXPECT_EQ(comms[0], "main");
  EXPECT_EQ(comms[1], "worker");
  EXPECT_LT(seen[0].time, seen[1].time);
}

TEST(Recording, SelectionsFilterByThreadCpuAndTimeAndStopWhenAsked) {
  test_support::TempDir dir;
  const auto path = dir.file("r.data");
  auto rec = recorded(path, 8);
  ASSERT_TRUE(rec) << rec.error().message();
  auto count = [&](const SampleSelection& sel) {
    int n = 0;
    auto ok = rec->for_each_sample(sel, [&](const SymbolizedSample&) {
      ++n;
      return true;
    });
    EXPECT_TRUE(ok) << (ok ? "" : ok.error().message());
    return n;
  };
  SampleSelection by_comm;
  by_comm.threads.comms = {"worker"};
  EXPECT_EQ(count(by_comm), 4);
  SampleSelection by_cpu;
  by_cpu.cpus = {0};
  EXPECT_EQ(count(by_cpu), 4);
  SampleSelection first_half;
  first_half.time = "0%-50%";
  const int half = count(first_half);
  EXPECT_GT(half, 0);
  EXPECT_LT(half, 8);
  int stopped = 0;
  ASSERT_TRUE(rec->for_each_sample({}, [&](const SymbolizedSample&) { return ++stopped < 3; }));
  EXPECT_EQ(stopped, 3);

  ProfileOptions po;
  po.thread_filter.tids = {100};
  po.aggregate = true;
  auto prof = rec->load_profile(po);
  ASSERT_TRUE(prof);
  std::uint64_t n = 0;
  for (const auto& s : prof->samples) n += s.count;
  EXPECT_EQ(n, 4u);
  EXPECT_EQ(prof->events[0].total_samples, 8u);  // --tid hides entries, not totals (perf)
}

TEST(Recording, APipeHasOnePass) {
  test_support::TempDir dir;
  const auto path = dir.file("p.data");
  auto rec = recorded(path, 3, /*pipe=*/true);
  ASSERT_TRUE(rec) << rec.error().message();
  EXPECT_TRUE(rec->is_pipe());
  std::ostringstream out;
  ASSERT_TRUE(write_record_stats(*rec, out));
  EXPECT_NE(out.str().find("SAMPLE events:          3"), std::string::npos) << out.str();
  auto again = rec->load_profile();
  ASSERT_FALSE(again);
  EXPECT_EQ(again.error().code(), Errc::kInvalidArgument);
  EXPECT_NE(again.error().message().find("a pipe can be read once"), std::string::npos);
}

TEST(Recording, BadInputAndBadTimeWindowsAreErrorsNotCrashes) {
  test_support::TempDir dir;
  auto missing = Recording::open(dir.file("none.data"));
  ASSERT_FALSE(missing);
  EXPECT_NE(missing.error().message().find("none.data"), std::string::npos);
  EXPECT_TRUE(check_time_windows("1.5,2"));
  EXPECT_TRUE(check_time_windows("10%/2"));  // checked once the recording is read
  EXPECT_FALSE(check_time_windows("soon,later"));
}

TEST(Recording, TextViewsAndExportsReadThroughIt) {
  test_support::TempDir dir;
  const auto path = dir.file("r.data");
  auto rec = recorded(path, 4);
  ASSERT_TRUE(rec) << rec.error().message();
  auto evlist = evlist_text(*rec, {});
  ASSERT_TRUE(evlist) << evlist.error().message();
  EXPECT_EQ(*evlist, "cpu-clock\n");
  std::ostringstream tasks;
  ASSERT_TRUE(write_task_tree(*rec, tasks, false));
  EXPECT_NE(tasks.str().find("|worker"), std::string::npos) << tasks.str();
  std::ostringstream script;
  ScriptOptions so;
  so.fields = {"tid", "cpu"};
  ASSERT_TRUE(write_script(*rec, script, so));
  EXPECT_EQ(script.str(), "  100 [000] \n  101 [001] \n  100 [000] \n  101 [001] \n");

  auto prof = rec->load_profile();
  ASSERT_TRUE(prof);
  std::ostringstream folded;
  ASSERT_TRUE(export_profile("folded", *prof, folded));
  EXPECT_NE(folded.str().find("worker;[unknown] 2"), std::string::npos) << folded.str();
  EXPECT_TRUE(is_export_format("speedscope"));
  EXPECT_FALSE(is_export_format("bogus"));
  std::ostringstream none;
  EXPECT_FALSE(export_profile("bogus", *prof, none));
}

}  // namespace
}  // namespace perfx
