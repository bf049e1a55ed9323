// Issue 23 ("no silent data loss"): what the reader, load_profile() and annotate say when
// they leave data out: an impossible attr_size, an unfinished (killed) recording and its
// torn last record, samples that do not decode, pipe-mode attrs read through, and an
// annotate symbol whose DSO lookup fails. Each warning carries its count.
#pragma GCC diagnostic ignored "-Wnull-dereference"

#include <fcntl.h>
#include <fmt/format.h>
#include <gtest/gtest.h>

#include <algorithm>
#include <cstring>
#include <fstream>
#include <sstream>
#include <vector>

#include "../temp_dir.hpp"
#include "../test_files.hpp"
#include "../test_records.hpp"
#include "profile/load.hpp"
#include "profile/replay.hpp"
#include "record/perf_data_reader.hpp"
#include "record/perf_data_writer.hpp"
#include "report/annotate.hpp"

namespace perfx {
namespace {

using record::PerfDataReader;
using record::PerfDataWriter;
using record::RawRecord;
using record::WriterAttr;
using test_support::slurp_bytes;
using test_support::spit;
using test_support::TempDir;

constexpr std::uint64_t kSampleType = PERF_SAMPLE_IDENTIFIER | PERF_SAMPLE_IP | PERF_SAMPLE_TID |
                                      PERF_SAMPLE_TIME | PERF_SAMPLE_PERIOD | PERF_SAMPLE_CALLCHAIN;

std::vector<WriterAttr> one_event() {
  return {{test_support::cpu_clock_attr(kSampleType), "cpu-clock", {41}}};
}

record::Record sample(std::uint64_t i) {
  static const std::vector<std::uint64_t> chain = {PERF_CONTEXT_USER, 0x400100, 0x400200};
  record::Sample s;
  s.identifier = 41;
  s.ip = 0x400100;
  s.pid = 7;
  s.tid = 7;
  s.time = 1000 + i;
  s.period = 1000;
  s.callchain = record::U64Array::of(chain);
  record::Record r;
  r.header.misc = PERF_RECORD_MISC_USER;
  r.body = s;
  return r;
}

// n samples; finalized or left as a killed recorder leaves it (flushed, no features).
void write_file(const std::string& path, int n, bool finalize) {
  auto w = PerfDataWriter::create(path, one_event(), {});
  ASSERT_TRUE(w) << w.error().message();
  for (int i = 0; i < n; ++i) ASSERT_TRUE(w->write(sample(static_cast<std::uint64_t>(i))));
  if (finalize) {
    ASSERT_TRUE(w->finalize());
  } else {
    ASSERT_TRUE(w->flush());
    // The header's data size covers what was flushed; nothing is written after this.
    std::ofstream keep(path + ".copy", std::ios::binary);
    std::ifstream in(path, std::ios::binary);
    keep << in.rdbuf();
  }
}

bool has(const std::vector<std::string>& lines, const std::string& text) {
  return std::any_of(lines.begin(), lines.end(),
                     [&](const std::string& l) { return l.find(text) != std::string::npos; });
}

std::string joined(const std::vector<std::string>& lines) {
  std::string out;
  for (const auto& l : lines) out += l + "\n";
  return out;
}

int count_records(PerfDataReader& r) {
  RawRecord raw;
  int n = 0;
  while (r.next(raw)) ++n;
  return n;
}

TEST(NoSilentLoss, AttrSizeBeyondTheAttrsSectionIsAnError) {
  TempDir dir;
  const auto path = dir.file("a.data");
  write_file(path, 5, true);
  auto bytes = slurp_bytes(path);
  for (const std::uint64_t attr_size : {std::uint64_t{1} << 32, (std::uint64_t{1} << 32) + 136}) {
    std::memcpy(bytes.data() + 16, &attr_size, 8);
    auto r = PerfDataReader::from_memory(bytes, "a.data");
    ASSERT_FALSE(r) << "attr_size " << attr_size << " read as a file with no events";
    EXPECT_NE(r.error().message().find(fmt::format("attr size {} at offset 0x10", attr_size)),
              std::string::npos)
        << r.error().message();
    EXPECT_NE(r.error().message().find("no event can be read"), std::string::npos);
  }
}

TEST(NoSilentLoss, FinalizedFileHasNoWarnings) {
  TempDir dir;
  const auto path = dir.file("f.data");
  write_file(path, 10, true);
  auto r = PerfDataReader::open(path);
  ASSERT_TRUE(r);
  EXPECT_EQ(count_records(*r), 10);
  EXPECT_FALSE(r->unfinished());
  EXPECT_TRUE(profile::describe_skipped(*r).empty()) << joined(profile::describe_skipped(*r));
}

TEST(NoSilentLoss, KilledRecordingIsReadToItsEndAndSaysItWasCutShort) {
  TempDir dir;
  const auto path = dir.file("k.data");
  write_file(path, 10, false);
  auto bytes = slurp_bytes(path + ".copy");

  // The header's data size as of the last flush, no feature sections.
  {
    auto r = PerfDataReader::from_memory(bytes, "k.data");
    ASSERT_TRUE(r) << r.error().message();
    EXPECT_TRUE(r->unfinished());
    EXPECT_EQ(count_records(*r), 10);
    EXPECT_FALSE(r->error());
    ASSERT_TRUE(has(r->stats().warnings, "cut short")) << joined(r->stats().warnings);
    EXPECT_TRUE(has(r->stats().warnings, "never finalized"));
  }
  // Records flushed after the last header update, and a torn last record: all whole
  // records are read, the torn bytes are counted and warned, and it is no error.
  {
    auto more = bytes;
    const auto one = std::vector<std::byte>(bytes.end() - 80, bytes.end());
    std::uint16_t last_size = 0;
    std::memcpy(&last_size, bytes.data() + bytes.size() - 80 + 6, 2);
    ASSERT_EQ(last_size, 80u) << "a sample of this layout is 80 bytes";
    more.insert(more.end(), one.begin(), one.end());         // a whole record past data.size
    more.insert(more.end(), one.begin(), one.begin() + 20);  // and 20 bytes of one more
    auto r = PerfDataReader::from_memory(more, "k.data");
    ASSERT_TRUE(r);
    EXPECT_EQ(count_records(*r), 11);
    EXPECT_FALSE(r->error()) << r->error()->message();
    EXPECT_EQ(r->stats().cut_short_bytes, 20u);
    EXPECT_EQ(r->stats().skipped_bytes, 0u);
    EXPECT_TRUE(has(r->stats().warnings, "100 past the header's data size"))
        << joined(r->stats().warnings);
    EXPECT_TRUE(has(r->stats().warnings, "the last 20 bytes"));
  }
  // perf's own unfinished header: data size 0.
  {
    auto zero = bytes;
    std::memset(zero.data() + 48, 0, 8);
    auto r = PerfDataReader::from_memory(zero, "k.data");
    ASSERT_TRUE(r);
    EXPECT_EQ(count_records(*r), 10);
    EXPECT_TRUE(r->unfinished());
    EXPECT_TRUE(has(r->stats().warnings, "data size field is 0")) << joined(r->stats().warnings);
    EXPECT_TRUE(has(r->stats().warnings, "not properly terminated"));
  }
  // load_profile() keeps every sample and passes the warning on.
  {
    spit(path, bytes);
    auto prof = profile::load_profile(path);
    ASSERT_TRUE(prof) << prof.error().message();
    EXPECT_EQ(prof->samples.size(), 10u);
    EXPECT_TRUE(prof->damage.empty()) << prof->damage;
    EXPECT_TRUE(has(prof->warnings, "cut short")) << joined(prof->warnings);
  }
}

TEST(NoSilentLoss, SamplesThatDoNotDecodeAreCountedAndWarned) {
  TempDir dir;
  const auto path = dir.file("m.data");
  write_file(path, 10, true);
  auto bytes = slurp_bytes(path);
  std::uint64_t data_offset = 0;
  std::memcpy(&data_offset, bytes.data() + 40, 8);
  // Samples 3 and 6: callchain nr 2^32 (id, ip, tid, time, period come first).
  for (const std::size_t victim : {std::size_t{3}, std::size_t{6}}) {
    const std::size_t at = static_cast<std::size_t>(data_offset) + 80u * victim;
    std::uint32_t type = 0;
    std::memcpy(&type, bytes.data() + at, 4);
    ASSERT_EQ(type, static_cast<std::uint32_t>(PERF_RECORD_SAMPLE));
    const std::uint64_t nr = std::uint64_t{1} << 32;
    std::memcpy(bytes.data() + at + 48, &nr, 8);
  }
  spit(path, bytes);
  auto prof = profile::load_profile(path);
  ASSERT_TRUE(prof) << prof.error().message();
  std::uint64_t kept = 0;
  for (const auto& s : prof->samples) kept += s.count;
  EXPECT_EQ(kept, 8u);
  EXPECT_TRUE(has(prof->warnings, "2 records could not be decoded and were left out"))
      << joined(prof->warnings);
  EXPECT_TRUE(has(prof->warnings, "callchain")) << joined(prof->warnings);
}

TEST(NoSilentLoss, PipeModeAttrsAreReadThrough) {
  TempDir dir;
  const auto path = dir.file("p.data");
  {
    record::WriterOptions o;
    o.pipe = true;
    auto w = PerfDataWriter::create_fd(::open(path.c_str(), O_WRONLY | O_CREAT | O_EXCL, 0600),
                                       true, path, one_event(), o);
    ASSERT_TRUE(w) << w.error().message();
    record::Features f;
    f.hostname = "pipehost";
    ASSERT_TRUE(w->set_features(f));
    for (int i = 0; i < 3; ++i) ASSERT_TRUE(w->write(sample(static_cast<std::uint64_t>(i))));
    ASSERT_TRUE(w->finalize());
  }
  auto r = PerfDataReader::open(path);
  ASSERT_TRUE(r);
  ASSERT_TRUE(r->is_pipe());
  ASSERT_TRUE(r->read_to_end());
  ASSERT_EQ(r->attrs().size(), 1u);
  EXPECT_EQ(r->event_name(0), "cpu-clock");
  EXPECT_EQ(r->features().hostname, "pipehost");
}

TEST(NoSilentLoss, AnnotateSaysWhichSymbolHasNoCodeAndWhy) {
  profile::Profile p;
  p.events.push_back({"cpu-clock", "nanoseconds", false, false, 5, 5000});
  profile::Frame f;
  f.function = "ghost_function";
  f.dso = "libghost.so";
  f.dso_path = "/nonexistent/libghost.so";
  f.kind = profile::FrameKind::kUser;
  f.map_address = 0x1234;
  f.address = 0x1234;
  p.frames.push_back(f);
  p.stacks.push_back({0});
  p.threads.push_back({7, 7, "ghost"});
  profile::Sample s;
  s.count = 5;
  s.period = 5000;
  p.samples.push_back(s);
  std::ostringstream out;
  auto summary = report::write_annotations(p, out, {});
  ASSERT_TRUE(summary) << summary.error().message();
  EXPECT_EQ(summary->annotated, 0u);
  ASSERT_EQ(summary->problems.size(), 1u) << out.str();
  const std::string& why = summary->problems[0];
  EXPECT_NE(why.find("cannot annotate ghost_function (5 samples)"), std::string::npos) << why;
  EXPECT_NE(why.find("no symbol at 0x"), std::string::npos) << why;
  EXPECT_NE(why.find("/nonexistent/libghost.so"), std::string::npos) << why;
}

}  // namespace
}  // namespace perfx
