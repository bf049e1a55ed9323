// Time order across rounds and read-ahead batches (file, zstd and pipe mode), stopping
// early, and a repeated callchain that resolves differently after a new mmap (the
// stack cache must not hand out the stack of the old mapping).
#pragma GCC diagnostic ignored "-Wnull-dereference"

#include <gtest/gtest.h>
#include <unistd.h>

#include <filesystem>
#include <random>
#include <stdexcept>
#include <vector>

#include "../temp_dir.hpp"
#include "../test_records.hpp"
#include "profile/load.hpp"
#include "profile/ordered_records.hpp"
#include "record/decoder.hpp"
#include "record/perf_data_reader.hpp"
#include "record/perf_data_writer.hpp"

namespace perfx::profile {
namespace {

namespace fs = std::filesystem;
using record::Comm;
using record::Mmap2;
using record::PerfDataReader;
using record::PerfDataWriter;
using record::RawRecord;
using record::Record;
using record::U64Array;
using record::WriterOptions;

constexpr std::uint64_t kSampleType = PERF_SAMPLE_IP | PERF_SAMPLE_TID | PERF_SAMPLE_TIME |
                                      PERF_SAMPLE_PERIOD | PERF_SAMPLE_CALLCHAIN;

raw::EventAttr cpu_clock() {
  auto a = test_support::cpu_clock_attr(kSampleType);
  a.mmap = 1;
  a.comm = 1;
  return a;
}

using TempDir = test_support::TempDir;

Record with_id(Record r, std::uint64_t time) {
  r.sample_id.pid = 7;
  r.sample_id.tid = 7;
  r.sample_id.time = time;
  return r;
}

Record mmap2(std::uint64_t time, const std::string& file) {
  Record r;
  r.body = test_support::mmap2_of(7, 7, 0x400000, 0x10000, file);
  return with_id(r, time);
}

Record sample(std::uint64_t time, const std::vector<std::uint64_t>& chain) {
  record::Sample s;
  s.ip = chain.back();
  s.pid = 7;
  s.tid = 7;
  s.time = time;
  s.period = 1000;
  s.callchain = U64Array::of(chain);
  Record r;
  r.header.misc = PERF_RECORD_MISC_USER;
  r.body = s;
  return r;
}

// A recording of `prog` (pid 7, mapped at 0x400000) with its COMM and MMAP2 written.
PerfDataWriter prog_writer(const std::string& path, const WriterOptions& opts = {}) {
  auto w = PerfDataWriter::create(path, {{cpu_clock(), "cpu-clock", {}}}, opts);
  if (!w) throw std::runtime_error(w.error().message());
  Record comm;
  comm.body = Comm{7, 7, "prog"};
  EXPECT_TRUE(w->write(with_id(comm, 1)));
  EXPECT_TRUE(w->write(mmap2(2, "/nonexistent/prog")));
  return std::move(*w);
}

// `rounds` rounds of `per_round` samples whose times are shuffled within the round and
// overlap the previous round's (as two per-CPU buffers do), so ordering is exercised
// both inside a round and across round boundaries; 30k samples span several batches.
std::uint64_t write_shuffled(const std::string& path, const WriterOptions& opts, int rounds,
                             int per_round) {
  auto w = prog_writer(path, opts);
  std::mt19937 rng(42);
  std::uint64_t n = 0;
  const std::vector<std::uint64_t> chain{PERF_CONTEXT_USER, 0x400100, 0x400200};
  for (int r = 0; r < rounds; ++r) {
    std::vector<std::uint64_t> times;
    for (int i = 0; i < per_round; ++i)
      times.push_back(1000 + static_cast<std::uint64_t>(r * per_round + i - per_round / 2));
    std::shuffle(times.begin(), times.end(), rng);
    for (auto t : times) {
      EXPECT_TRUE(w.write(sample(t, chain)));
      ++n;
    }
    EXPECT_TRUE(w.finish_round());
  }
  EXPECT_TRUE(w.finalize());
  return n;
}

std::vector<std::uint64_t> sample_times(const std::string& path) {
  auto reader = PerfDataReader::open(path);
  EXPECT_TRUE(reader) << (reader ? "" : reader.error().message());
  std::vector<std::uint64_t> times;
  auto done = for_each_ordered(*reader, [&](const RawRecord& raw) {
    auto rec = reader->decode(raw);
    if (rec)
      if (const auto* s = rec->get<record::Sample>()) times.push_back(s->time);
    return true;
  });
  EXPECT_TRUE(done);
  return times;
}

TEST(OrderedRecords, SamplesComeInTimeOrderAcrossRoundsAndBatches) {
  TempDir dir;
  const auto n = write_shuffled(dir.file("plain.data"), {}, 30, 1000);
  const auto times = sample_times(dir.file("plain.data"));
  ASSERT_EQ(times.size(), n);
  EXPECT_TRUE(std::is_sorted(times.begin(), times.end()));
}

TEST(OrderedRecords, CompressedAndPipeFilesGiveTheSameOrder) {
  TempDir dir;
  const auto n = write_shuffled(dir.file("plain.data"), {}, 12, 1000);
  write_shuffled(dir.file("zstd.data"), {.compress_level = 1}, 12, 1000);
  write_shuffled(dir.file("pipe.data"), {.pipe = true}, 12, 1000);
  const auto plain = sample_times(dir.file("plain.data"));
  ASSERT_EQ(plain.size(), n);
  EXPECT_EQ(sample_times(dir.file("zstd.data")), plain);
  EXPECT_EQ(sample_times(dir.file("pipe.data")), plain);
}

TEST(OrderedRecords, StopsWhenTheConsumerSaysSo) {
  TempDir dir;
  write_shuffled(dir.file("plain.data"), {}, 30, 1000);
  auto reader = PerfDataReader::open(dir.file("plain.data"));
  ASSERT_TRUE(reader);
  int seen = 0;
  auto done = for_each_ordered(*reader, [&](const RawRecord&) { return ++seen < 10; });
  EXPECT_TRUE(done);
  EXPECT_EQ(seen, 10);  // and the reader thread was stopped and joined
}

// perf's -D order: a round record comes before the records it releases, and a record
// without a time (0) at once, not sorted among the queued ones.
TEST(OrderedRecords, AsPerfSeesDeliversRoundsAndTimelessRecordsInPerfsOrder) {
  TempDir dir;
  {
    auto w = PerfDataWriter::create(dir.file("r.data"), {{cpu_clock(), "cpu-clock", {}}});
    ASSERT_TRUE(w);
    const std::vector<std::uint64_t> chain{PERF_CONTEXT_USER, 0x400100};
    EXPECT_TRUE(w->write(sample(10, chain)));
    EXPECT_TRUE(w->finish_round());
    EXPECT_TRUE(w->write(sample(20, chain)));
    Record comm;
    comm.body = Comm{7, 7, "prog"};
    EXPECT_TRUE(w->write(with_id(comm, 0)));
    EXPECT_TRUE(w->finish_round());
    EXPECT_TRUE(w->write(sample(15, chain)));
    EXPECT_TRUE(w->finalize());
  }
  auto order_of = [&](bool as_perf_sees) {
    auto reader = PerfDataReader::open(dir.file("r.data"));
    EXPECT_TRUE(reader);
    std::vector<std::string> seen;
    auto done = for_each_ordered(
        *reader,
        [&](const RawRecord& raw) {
          const std::uint64_t t = reader->attrs().time_of_record(raw.bytes, false);
          seen.push_back(std::string(record::record_type_name(raw.header.type)) + "@" +
                         std::to_string(t));
          return true;
        },
        as_perf_sees);
    EXPECT_TRUE(done);
    return seen;
  };
  using V = std::vector<std::string>;
  EXPECT_EQ(order_of(false), (V{"COMM@0", "SAMPLE@10", "SAMPLE@15", "SAMPLE@20"}));
  EXPECT_EQ(order_of(true), (V{"FINISHED_ROUND@0", "COMM@0", "FINISHED_ROUND@0", "SAMPLE@10",
                               "SAMPLE@15", "SAMPLE@20"}));
}

TEST(OrderedRecords, TruncatedFileStillReportsTheOffset) {
  TempDir dir;
  write_shuffled(dir.file("plain.data"), {}, 30, 1000);
  // Cut the data section in the middle of a record (the header's data size stays).
  auto reader0 = PerfDataReader::open(dir.file("plain.data"));
  ASSERT_TRUE(reader0);
  const auto cut = reader0->data_offset() + reader0->data_size() / 2 + 3;
  fs::resize_file(dir.file("plain.data"), cut);
  auto reader = PerfDataReader::open(dir.file("plain.data"));
  ASSERT_TRUE(reader);
  std::size_t seen = 0;
  auto done = for_each_ordered(*reader, [&](const RawRecord&) { return ++seen, true; });
  ASSERT_FALSE(done);
  EXPECT_NE(done.error().message().find("offset"), std::string::npos) << done.error().message();
  EXPECT_GT(seen, 1000u);  // what came before the damage was delivered
}

TEST(LoadProfile, RepeatedCallchainFollowsANewMapping) {
  TempDir dir;
  const std::string path = dir.file("remap.data");
  {
    auto w = PerfDataWriter::create(path, {{cpu_clock(), "cpu-clock", {}}}, {});
    ASSERT_TRUE(w);
    Record comm;
    comm.body = Comm{7, 7, "prog"};
    ASSERT_TRUE(w->write(with_id(comm, 1)));
    const std::vector<std::uint64_t> chain{PERF_CONTEXT_USER, 0x400100, 0x400200};
    ASSERT_TRUE(w->write(mmap2(2, "/nonexistent/first.so")));
    for (std::uint64_t i = 0; i < 3; ++i) ASSERT_TRUE(w->write(sample(10 + i, chain)));
    // The same addresses now belong to another file (dlclose + dlopen, a JIT reusing
    // its code area): the same callchain bytes must resolve to the new DSO.
    ASSERT_TRUE(w->write(mmap2(20, "/nonexistent/second.so")));
    for (std::uint64_t i = 0; i < 2; ++i) ASSERT_TRUE(w->write(sample(30 + i, chain)));
    ASSERT_TRUE(w->finalize());
  }
  LoadOptions opts;
  opts.aggregate = true;
  auto prof = load_profile(path, opts);
  ASSERT_TRUE(prof) << prof.error().message();
  std::map<std::string, std::uint64_t> by_leaf_dso;
  for (const auto& s : prof->samples)
    by_leaf_dso[prof->frames[prof->stacks[s.stack].back()].dso] += s.count;
  EXPECT_EQ(by_leaf_dso["first.so"], 3u);
  EXPECT_EQ(by_leaf_dso["second.so"], 2u);
}

// A callchain with a value in the context-marker range that is no context (a
// frame-pointer walk through code built without frame pointers) is corrupt: perf discards
// it whole (add_callchain_ip()) and the sample counts at its ip alone. Two samples with
// the same corrupt chain but other ips get stacks of their own.
TEST(LoadProfile, CorruptCallchainLeavesTheSampleIpAloneLikePerf) {
  TempDir dir;
  const std::string path = dir.file("corrupt.data");
  const std::uint64_t bogus = 0xffffffffffffff00u;  // -256: no PERF_CONTEXT_*
  const std::vector<std::uint64_t> chain{PERF_CONTEXT_USER, 0x400100, bogus, 0x400200};
  {
    auto w = prog_writer(path);
    std::uint64_t time = 10;
    for (std::uint64_t ip : {0x400300u, 0x400400u, 0x400300u}) {
      Record r = sample(time++, chain);
      std::get<record::Sample>(r.body).ip = ip;
      ASSERT_TRUE(w.write(r));
    }
    ASSERT_TRUE(w.finalize());
  }
  auto prof = load_profile(path, {});
  ASSERT_TRUE(prof) << prof.error().message();
  ASSERT_EQ(prof->samples.size(), 3u);
  std::vector<std::uint64_t> leaves;
  for (const auto& smp : prof->samples) {
    const auto& stack = prof->stacks[smp.stack];
    ASSERT_EQ(stack.size(), 1u);
    leaves.push_back(prof->frames[stack[0]].map_address);
  }
  EXPECT_EQ(leaves, (std::vector<std::uint64_t>{0x300, 0x400, 0x300}));
}

TEST(LoadProfile, MergeRunsKeepsEachThreadsRunsInTimeOrder) {
  TempDir dir;
  const std::string path = dir.file("runs.data");
  const std::vector<std::uint64_t> a{PERF_CONTEXT_USER, 0x400100, 0x400200};
  const std::vector<std::uint64_t> b{PERF_CONTEXT_USER, 0x400300, 0x400200};
  {
    auto w = prog_writer(path);
    // a a b a a a: three runs, the stack of the first run comes back later.
    const std::vector<const std::vector<std::uint64_t>*> order{&a, &a, &b, &a, &a, &a};
    for (std::size_t i = 0; i < order.size(); ++i) ASSERT_TRUE(w.write(sample(10 + i, *order[i])));
    ASSERT_TRUE(w.finalize());
  }
  LoadOptions opts;
  opts.merge_runs = true;
  auto prof = load_profile(path, opts);
  ASSERT_TRUE(prof) << prof.error().message();
  ASSERT_EQ(prof->samples.size(), 3u);
  const auto& s = prof->samples;
  EXPECT_EQ(s[0].count, 2u);
  EXPECT_EQ(s[0].period, 2000u);
  EXPECT_EQ(s[0].time_ns, 10u);  // the run's first sample
  EXPECT_EQ(s[1].count, 1u);
  EXPECT_NE(s[1].stack, s[0].stack);
  EXPECT_EQ(s[2].count, 3u);
  EXPECT_EQ(s[2].stack, s[0].stack);
  EXPECT_EQ(s[2].time_ns, 13u);
  EXPECT_EQ(prof->events.at(0).total_samples, 6u);
}

}  // namespace
}  // namespace perfx::profile
