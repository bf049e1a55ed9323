// profile::LiveCounts (perfx top's model) on records made here: a MMAP2 of this test
// binary and samples at two of its functions; perf top's decay (7/8 of what was shown,
// plus the new samples), -z, -U, time order within a round, and the interval figures.

#include "profile/live_counts.hpp"

#include <gtest/gtest.h>
#include <linux/perf_event.h>
#include <unistd.h>

#include <cinttypes>
#include <cstdio>
#include <fstream>
#include <sstream>
#include <string>

#include "../test_records.hpp"
#include "record/encoder.hpp"

extern "C" __attribute__((noinline, used)) int live_counts_probe_hot(int x) { return x * 3 + 1; }
extern "C" __attribute__((noinline, used)) int live_counts_probe_cold(int x) { return x * 5 + 2; }

namespace perfx::profile {
namespace {

raw::EventAttr sample_attr() {
  auto a = test_support::cpu_clock_attr(PERF_SAMPLE_IP | PERF_SAMPLE_TID | PERF_SAMPLE_TIME |
                                        PERF_SAMPLE_PERIOD);
  a.size = raw::kAttrSizeVer8;
  a.sample_period = 0;  // each sample carries its period
  return a;
}

// The executable mapping of this binary holding `addr`, from /proc/self/maps.
struct SelfMap {
  std::uint64_t start = 0, end = 0, pgoff = 0;
  std::string path;
};
SelfMap self_map(std::uint64_t addr) {
  std::ifstream maps("/proc/self/maps");
  std::string line;
  while (std::getline(maps, line)) {
    SelfMap m;
    char perms[5] = {};
    char path[4096] = {};
    if (std::sscanf(line.c_str(), "%" SCNx64 "-%" SCNx64 " %4s %" SCNx64 " %*s %*s %4095s",
                    &m.start, &m.end, perms, &m.pgoff, path) == 5 &&
        addr >= m.start && addr < m.end) {
      m.path = path;
      return m;
    }
  }
  return {};
}

class LiveCountsTest : public ::testing::Test {
 protected:
  void SetUp() override {
    attrs_.add(attr_, {}, "cpu-clock");
    hot_ = reinterpret_cast<std::uintptr_t>(&live_counts_probe_hot);
    cold_ = reinterpret_cast<std::uintptr_t>(&live_counts_probe_cold);
    map_ = self_map(hot_);
    ASSERT_FALSE(map_.path.empty());
  }
  std::vector<std::byte> encode(const record::Record& r) {
    std::vector<std::byte> out;
    EXPECT_TRUE(record::encode_record(r, layout_, out));
    return out;
  }
  std::vector<std::byte> mmap2(std::uint64_t time) {
    record::Record r;
    record::Mmap2 m;
    m.pid = m.tid = pid_;
    m.addr = map_.start;
    m.len = map_.end - map_.start;
    m.pgoff = map_.pgoff;
    m.prot = 5;
    m.filename = map_.path;
    r.body = m;
    r.header.misc = PERF_RECORD_MISC_USER;
    r.sample_id.fields = PERF_SAMPLE_TID | PERF_SAMPLE_TIME;
    r.sample_id.pid = r.sample_id.tid = pid_;
    r.sample_id.time = time;
    return encode(r);
  }
  std::vector<std::byte> sample(std::uint64_t ip, std::uint64_t time, std::uint64_t period) {
    record::Record r;
    record::Sample s;
    s.sample_type = attr_.sample_type;
    s.ip = ip;
    s.pid = s.tid = pid_;
    s.time = time;
    s.period = period;
    r.body = s;
    r.header.misc = PERF_RECORD_MISC_USER;
    return encode(r);
  }
  // A sample with a user callchain: `chain` leaf first (PERF_CONTEXT_USER prepended).
  std::vector<std::byte> chain_sample(const std::vector<std::uint64_t>& chain, std::uint64_t time,
                                      std::uint64_t period) {
    std::vector<std::uint64_t> words{PERF_CONTEXT_USER};
    words.insert(words.end(), chain.begin(), chain.end());
    record::Record r;
    record::Sample s;
    s.sample_type = chain_attr_.sample_type;
    s.ip = chain.front();
    s.pid = s.tid = pid_;
    s.time = time;
    s.period = period;
    s.callchain = record::U64Array::of(words);
    r.body = s;
    r.header.misc = PERF_RECORD_MISC_USER;
    std::vector<std::byte> out;
    EXPECT_TRUE(record::encode_record(r, record::SampleLayout::from_attr(chain_attr_), out));
    return out;
  }
  LiveCounts make(std::vector<LiveKey> keys = {LiveKey::kDso, LiveKey::kSym}) {
    return LiveCounts(attrs_, std::move(keys));
  }

  raw::EventAttr attr_ = sample_attr();
  raw::EventAttr chain_attr_ = [] {
    raw::EventAttr a = sample_attr();
    a.sample_type |= PERF_SAMPLE_CALLCHAIN;
    return a;
  }();
  record::SampleLayout layout_ = record::SampleLayout::from_attr(attr_);
  record::AttrTable attrs_;
  std::uint32_t pid_ = static_cast<std::uint32_t>(::getpid());
  std::uint64_t hot_ = 0, cold_ = 0;
  SelfMap map_;
};

TEST_F(LiveCountsTest, SamplesCountAtTheirSymbolAndDecayLikePerfTop) {
  auto counts = make();
  counts.add(mmap2(1));
  for (std::uint64_t i = 0; i < 8; ++i) counts.add(sample(hot_ + 1, 10 + i, 100));
  counts.add(sample(cold_, 30, 100));
  counts.flush();
  auto rows = counts.refresh(false);
  ASSERT_EQ(rows.size(), 2u);
  EXPECT_EQ(rows[0].symbol, "[.] live_counts_probe_hot");
  EXPECT_EQ(rows[0].period, 800u);  // nothing shown before: no decay of new samples
  EXPECT_EQ(rows[0].samples, 8u);
  EXPECT_EQ(rows[1].symbol, "[.] live_counts_probe_cold");
  EXPECT_EQ(rows[0].dso, map_.path.substr(map_.path.rfind('/') + 1));
  // What was shown decays by 7/8 at each refresh; new samples add on top.
  counts.add(sample(cold_, 40, 100));
  counts.flush();
  rows = counts.refresh(false);
  ASSERT_EQ(rows.size(), 2u);
  EXPECT_EQ(rows[0].period, 700u);
  EXPECT_EQ(rows[1].period, 87u + 100u);
  // An entry that decays to nothing goes away.
  for (int i = 0; i < 60; ++i) rows = counts.refresh(false);
  EXPECT_TRUE(rows.empty());
  const auto in = counts.take_interval();
  EXPECT_EQ(in.samples, 10u);
  EXPECT_EQ(in.kernel_samples, 0u);
  EXPECT_EQ(counts.take_interval().samples, 0u);
}

TEST_F(LiveCountsTest, ZeroShowsOnlyTheNewSamples) {
  auto counts = make();
  counts.add(mmap2(1));
  counts.add(sample(hot_, 10, 100));
  counts.flush();
  EXPECT_EQ(counts.refresh(true).size(), 1u);
  EXPECT_TRUE(counts.refresh(true).empty());
  counts.add(sample(cold_, 20, 50));
  counts.flush();
  auto rows = counts.refresh(true);
  ASSERT_EQ(rows.size(), 1u);
  EXPECT_EQ(rows[0].symbol, "[.] live_counts_probe_cold");
  EXPECT_EQ(rows[0].period, 50u);
}

TEST_F(LiveCountsTest, HiddenUserSamplesCountInTheHeaderOnly) {
  auto counts = make();
  counts.hide(true, false);
  counts.add(mmap2(1));
  counts.add(sample(hot_, 10, 100));
  counts.flush();
  EXPECT_TRUE(counts.refresh(false).empty());
  EXPECT_EQ(counts.take_interval().samples, 1u);
}

TEST_F(LiveCountsTest, ARoundIsAppliedInTimeOrder) {
  // The map arrives from another CPU's buffer after the sample that needs it.
  auto counts = make();
  counts.add(sample(hot_, 10, 100));
  counts.add(mmap2(5));
  counts.flush();
  auto rows = counts.refresh(false);
  ASSERT_EQ(rows.size(), 1u);
  EXPECT_EQ(rows[0].symbol, "[.] live_counts_probe_hot");
}

TEST_F(LiveCountsTest, AnUnmappedIpStaysUnresolvedUnderTheCommKey) {
  auto counts = make({LiveKey::kComm, LiveKey::kDso, LiveKey::kSym});
  counts.add(sample(0x1234, 10, 100));  // no map yet
  counts.flush();
  auto rows = counts.refresh(false);
  ASSERT_EQ(rows.size(), 1u);
  EXPECT_EQ(rows[0].dso, "[unknown]");
  EXPECT_EQ(rows[0].symbol, "[.] 0x0000000000001234");
  EXPECT_FALSE(rows[0].resolved);
}

// perfx top -g: samples kept per (stack, thread) and given as a Profile that the
// report's children and call-graph text is drawn from.
TEST_F(LiveCountsTest, CallchainSamplesMakeAProfilePerStackAndDecay) {
  record::AttrTable attrs;
  attrs.add(chain_attr_, {}, "cpu-clock");
  LiveCounts counts(attrs, {LiveKey::kDso, LiveKey::kSym});
  counts.set_callchains(true);
  counts.add(mmap2(1));
  // hot called from cold (return address inside cold), three times; cold alone once.
  for (std::uint64_t i = 0; i < 3; ++i)
    counts.add(chain_sample({hot_ + 1, cold_ + 4}, 10 + i, 100));
  counts.add(chain_sample({cold_ + 2}, 20, 100));
  counts.flush();
  auto prof = counts.refresh_profile(false, "cpu-clock");
  ASSERT_TRUE(check_indices(prof));
  ASSERT_EQ(prof.events.size(), 1u);
  EXPECT_TRUE(prof.events[0].has_callchain);
  EXPECT_EQ(prof.events[0].total_period, 400u);
  EXPECT_EQ(prof.events[0].total_samples, 4u);
  ASSERT_EQ(prof.samples.size(), 2u);  // one per (stack, thread)
  std::uint64_t chained = 0;
  for (const auto& smp : prof.samples) {
    const auto& st = prof.stacks.at(smp.stack);
    if (st.size() != 2) continue;
    chained = smp.period;
    EXPECT_EQ(smp.count, 3u);
    EXPECT_EQ(prof.frames.at(st[0]).function, "live_counts_probe_cold");  // root first
    EXPECT_EQ(prof.frames.at(st[1]).function, "live_counts_probe_hot");
  }
  EXPECT_EQ(chained, 300u);
  ASSERT_EQ(prof.threads.size(), 1u);
  EXPECT_EQ(prof.threads[0].tid, static_cast<std::int32_t>(pid_));
  // perf top's decay, as without callchains; -z keeps only the new samples.
  prof = counts.refresh_profile(false, "cpu-clock");
  EXPECT_EQ(prof.events[0].total_period, 262u + 87u);
  counts.add(chain_sample({cold_ + 2}, 30, 50));
  counts.flush();
  prof = counts.refresh_profile(true, "cpu-clock");
  ASSERT_EQ(prof.samples.size(), 1u);
  EXPECT_EQ(prof.samples[0].period, 50u);
  EXPECT_EQ(prof.stacks.size(), 1u);  // only the stacks still shown
  // Hidden user code: nothing left to show.
  counts.hide(true, false);
  counts.add(chain_sample({hot_}, 40, 10));
  counts.flush();
  EXPECT_TRUE(counts.refresh_profile(false, "cpu-clock").samples.empty());
}

TEST(LiveKeys, ParsePerfTopSortKeys) {
  auto k = parse_live_keys("comm,dso,sym,dso");
  ASSERT_TRUE(k);
  EXPECT_EQ(k->size(), 3u);
  auto bad = parse_live_keys("dso,bogus");
  ASSERT_FALSE(bad);
  EXPECT_NE(bad.error().message().find("'bogus'"), std::string::npos);
  EXPECT_FALSE(parse_live_keys(""));
}

}  // namespace
}  // namespace perfx::profile
