// report --tasks / --mmaps: which threads perf 6.1 lists. Its tasks mode replays COMM,
// FORK and EXIT records (and MMAP/MMAP2 with --mmaps) and nothing else, so a thread
// known only from samples, an EXIT or another record's sample_id is not a task; a new
// thread is ":TID" until named, and a new thread of an unknown process adds its leader.
// (tests/interop/report_stats_vs_perf.sh compares the same rules with perf itself.)
#include <gtest/gtest.h>

#include <optional>
#include <sstream>
#include <stdexcept>
#include <vector>

#include "../temp_dir.hpp"
#include "../test_records.hpp"
#include "perfx/perf_text.hpp"
#include "perfx/recording.hpp"
#include "record/perf_data_writer.hpp"

namespace perfx::report {
namespace {

using record::Comm;
using record::Exit;
using record::Fork;
using record::Lost;
using record::Mmap2;
using record::PerfDataWriter;
using record::Record;
using record::U64Array;

raw::EventAttr cpu_clock() {
  auto a = test_support::cpu_clock_attr(PERF_SAMPLE_IP | PERF_SAMPLE_TID | PERF_SAMPLE_TIME |
                                        PERF_SAMPLE_PERIOD);
  a.mmap = 1;
  a.mmap2 = 1;
  a.comm = 1;
  a.task = 1;
  return a;
}

// Writes records in time order, each with its own thread's sample_id.
class Recording {
 public:
  explicit Recording(const std::string& path) {
    auto w = PerfDataWriter::create(path, {{cpu_clock(), "cpu-clock", {}}}, {});
    if (!w) throw std::runtime_error(w.error().message());
    w_.emplace(std::move(*w));
  }
  void put(Record r, std::uint32_t pid, std::uint32_t tid) {
    r.sample_id.pid = pid;
    r.sample_id.tid = tid;
    r.sample_id.time = time_ += 1000;
    ASSERT_TRUE(w_->write(r));
  }
  void comm(std::uint32_t pid, std::uint32_t tid, const char* name) {
    Record r;
    r.body = Comm{pid, tid, name};
    put(r, pid, tid);
  }
  void fork(std::uint32_t pid, std::uint32_t ppid, std::uint32_t tid, std::uint32_t ptid,
            bool synthesized = false) {
    Record r;
    if (synthesized) r.header.misc = PERF_RECORD_MISC_FORK_EXEC;
    r.body = Fork{pid, ppid, tid, ptid, time_ + 1000};
    put(r, pid, tid);
  }
  void exit(std::uint32_t pid, std::uint32_t tid) {
    Record r;
    r.body = Exit{pid, pid, tid, pid, time_ + 1000};
    put(r, pid, tid);
  }
  void sample(std::uint32_t pid, std::uint32_t tid) {
    record::Sample s;
    s.ip = 0x401000;
    s.pid = pid;
    s.tid = tid;
    s.time = time_ + 1000;
    s.period = 1000;
    Record r;
    r.header.misc = PERF_RECORD_MISC_USER;
    r.body = s;
    put(r, pid, tid);
  }
  void mmap(std::uint32_t pid, std::uint32_t tid, std::uint64_t addr) {
    Mmap2 m = test_support::text_mmap2(pid, tid, addr, 0x2000, 0x1000, "/nonexistent/app");
    m.ino = 77;
    Record r;
    r.header.misc = PERF_RECORD_MISC_USER;
    r.body = m;
    put(r, pid, tid);
  }
  void finish() { ASSERT_TRUE(w_->finalize()); }

 private:
  std::optional<PerfDataWriter> w_;
  std::uint64_t time_ = 1'000'000;
};

std::string tasks(const std::string& path, bool mmaps) {
  std::ostringstream out;
  auto rec = perfx::Recording::open(path);
  EXPECT_TRUE(rec.has_value()) << (rec ? "" : rec.error().message());
  if (!rec) return {};
  auto ok = perfx::write_task_tree(*rec, out, mmaps);
  EXPECT_TRUE(ok.has_value()) << (ok ? "" : ok.error().message());
  return out.str();
}

constexpr const char* kHead = "#      pid      tid     ppid  comm\n";
constexpr const char* kSwapper = "         0        0       -1 |swapper\n";

TEST(TaskTree, ThreadsKnownOnlyFromSamplesExitsOrSampleIdsAreNotTasks) {
  test_support::TempDir dir;
  const auto path = dir.file("t.data");
  Recording r(path);
  r.fork(100, 1, 100, 1, true);  // perf record -a's synthesized view of a running process
  r.comm(100, 100, "app");
  r.fork(100, 100, 101, 100, true);
  r.comm(100, 101, "worker");
  r.sample(100, 101);
  r.sample(100, 102);  // a thread of app seen only in samples
  r.sample(700, 700);  // a process seen only in samples
  r.exit(100, 103);    // an EXIT of a thread never announced
  Record lost;
  lost.body = Lost{0, 2};
  r.put(lost, 600, 600);  // a record whose sample_id names an unknown thread
  r.exit(100, 101);       // an exited thread stays listed
  r.finish();
  const std::string want = std::string(kHead) + kSwapper +
                           "         1        1       -1 |:1\n"
                           "       100      100        1 | app\n"
                           "       100      101      100 |  worker\n";
  EXPECT_EQ(tasks(path, false), want);
  EXPECT_EQ(tasks(path, true), want);  // no MMAPs: the same threads, no maps
}

TEST(TaskTree, NewThreadsAreUnnamedAndAddTheirProcessLeader) {
  test_support::TempDir dir;
  const auto path = dir.file("t.data");
  Recording r(path);
  r.comm(200, 201, "lonely");  // leader 200 unknown: perf adds it, unnamed, no parent
  r.fork(401, 400, 401, 400);  // a parent never named: the child is ":401", not ":400"
  r.fork(402, 401, 402, 401);
  r.comm(500, 500, "named");
  r.fork(501, 500, 501, 500);  // a named parent's child takes its name
  r.finish();
  // (perf's order: its thread table's buckets of tid % 256, each by tid.)
  EXPECT_EQ(tasks(path, false), std::string(kHead) + kSwapper +
                                    "       400      400       -1 |:400\n"
                                    "       401      401      400 | :401\n"
                                    "       402      402      401 |  :402\n"
                                    "       200      200       -1 |:200\n"
                                    "       200      201       -1 |lonely\n"
                                    "       500      500       -1 |named\n"
                                    "       501      501      500 | named\n");
}

TEST(TaskTree, MmapsOfUnknownThreadsAreTasksOnlyWithMmaps) {
  test_support::TempDir dir;
  const auto path = dir.file("t.data");
  Recording r(path);
  r.comm(300, 300, "app");
  r.mmap(300, 300, 0x400000);
  r.mmap(310, 311, 0x500000);  // no COMM nor FORK: perf --mmaps creates 310 and 311
  r.finish();
  EXPECT_EQ(tasks(path, false),
            std::string(kHead) + kSwapper + "       300      300       -1 |app\n");
  // With --mmaps, each thread's process maps under it (310 and 311 share theirs).
  const std::string indent(32, ' ');
  const std::string map_400 = indent + "400000-402000 r-xp 00001000 77 /nonexistent/app\n";
  const std::string map_500 = indent + "500000-502000 r-xp 00001000 77 /nonexistent/app\n";
  EXPECT_EQ(tasks(path, true), std::string(kHead) + kSwapper +
                                   "       300      300       -1 |app\n" + map_400 +
                                   "       310      310       -1 |:310\n" + map_500 +
                                   "       310      311       -1 |:311\n" + map_500);
}

}  // namespace
}  // namespace perfx::report
