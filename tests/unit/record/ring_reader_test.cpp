// Ring-buffer reading logic on simulated data areas: wrap-around, corrupt sizes,
// LOST accounting and backward (overwrite) snapshots.
#include "record/ring_reader.hpp"

#include <gtest/gtest.h>
#include <linux/perf_event.h>

#include <cstring>
#include <vector>

namespace perfx::record {
namespace {

// A simulated kernel writer: records of `size` bytes whose payload words are `seq`.
class SimRing {
 public:
  explicit SimRing(std::size_t size) : data_(size) {}

  std::span<const std::byte> area() const { return data_; }

  // Writes one forward record at head (like the kernel) and advances head.
  void write_forward(std::uint32_t type, std::uint16_t size, std::uint64_t seq) {
    auto rec = make(type, size, seq);
    put(head_, rec);
    head_ += size;
  }
  // Writes one backward record: head moves down first, then the record goes at head.
  void write_backward(std::uint32_t type, std::uint16_t size, std::uint64_t seq) {
    auto rec = make(type, size, seq);
    head_ -= size;
    put(head_, rec);
  }
  void put_raw(std::uint64_t pos, const std::vector<std::byte>& bytes) { put(pos, bytes); }

  std::uint64_t head() const { return head_; }
  void set_head(std::uint64_t h) { head_ = h; }

  static std::vector<std::byte> make(std::uint32_t type, std::uint16_t size, std::uint64_t seq) {
    std::vector<std::byte> rec(size);
    const std::uint16_t misc = 0;
    std::memcpy(rec.data(), &type, 4);
    std::memcpy(rec.data() + 4, &misc, 2);
    std::memcpy(rec.data() + 6, &size, 2);
    for (std::size_t off = 8; off + 8 <= size; off += 8) std::memcpy(rec.data() + off, &seq, 8);
    return rec;
  }

 private:
  void put(std::uint64_t pos, const std::vector<std::byte>& rec) {
    for (std::size_t i = 0; i < rec.size(); ++i) data_[(pos + i) & (data_.size() - 1)] = rec[i];
  }
  std::vector<std::byte> data_;
  std::uint64_t head_ = 0;
};

std::uint64_t seq_of(std::span<const std::byte> rec) {
  std::uint64_t v = 0;
  std::memcpy(&v, rec.data() + 8, 8);
  return v;
}

std::vector<std::byte> join(const RingChunk& c) {
  std::vector<std::byte> out(c.first.begin(), c.first.end());
  out.insert(out.end(), c.second.begin(), c.second.end());
  return out;
}

TEST(RingReader, ForwardStreamsManyWrapsWithReassembly) {
  SimRing ring(256);
  RingReader reader(ring.area());
  std::uint64_t tail = 0;
  std::uint64_t next_seq = 0;
  std::uint64_t expect_seq = 0;
  std::uint64_t wrapped = 0;
  for (int round = 0; round < 50; ++round) {
    // 40-byte records do not divide 256, so records straddle the end regularly.
    while (ring.head() + 40 - tail <= 256) ring.write_forward(PERF_RECORD_SAMPLE, 40, next_seq++);
    reader.begin(ring.head(), tail);
    while (auto rec = reader.next()) {
      ASSERT_EQ(rec->size(), 40u);
      EXPECT_EQ(seq_of(*rec), expect_seq++);
    }
    EXPECT_FALSE(reader.corrupt());
    tail = reader.position();
    EXPECT_EQ(tail, ring.head());
  }
  wrapped = reader.counters().wrapped_records;
  EXPECT_EQ(expect_seq, next_seq);
  EXPECT_EQ(reader.counters().samples, next_seq);
  EXPECT_GT(wrapped, 10u);
  EXPECT_EQ(reader.counters().corrupt_events, 0u);
}

TEST(RingReader, CollectForwardGivesTwoSlicesWhenWrapping) {
  SimRing ring(128);
  ring.set_head(96);
  ring.write_forward(PERF_RECORD_SAMPLE, 24, 7);  // 96..120
  ring.write_forward(PERF_RECORD_SAMPLE, 24, 8);  // 120..144: wraps
  ring.write_forward(PERF_RECORD_COMM, 16, 9);
  RingReader reader(ring.area());
  RingChunk c = reader.collect_forward(ring.head(), 96);
  EXPECT_FALSE(c.corrupt);
  EXPECT_EQ(c.first.size(), 32u);
  EXPECT_EQ(c.second.size(), 32u);
  EXPECT_EQ(c.new_tail, ring.head());
  EXPECT_EQ(c.counters.records, 3u);
  EXPECT_EQ(c.counters.samples, 2u);
  EXPECT_EQ(c.counters.wrapped_records, 1u);
  auto bytes = join(c);
  EXPECT_EQ(seq_of(std::span<const std::byte>(bytes).subspan(24)), 8u);
}

TEST(RingReader, LostAndThrottleRecordsAreCounted) {
  SimRing ring(256);
  ring.write_forward(PERF_RECORD_SAMPLE, 24, 1);
  ring.write_forward(PERF_RECORD_LOST, 24, 1898);  // id and lost both 1898 here
  ring.write_forward(PERF_RECORD_THROTTLE, 24, 0);
  ring.write_forward(PERF_RECORD_UNTHROTTLE, 24, 0);
  ring.write_forward(PERF_RECORD_LOST, 24, 2);
  RingReader reader(ring.area());
  RingChunk c = reader.collect_forward(ring.head(), 0);
  EXPECT_EQ(c.counters.lost_records, 2u);
  EXPECT_EQ(c.counters.lost_samples, 1900u);
  EXPECT_EQ(c.counters.throttle, 1u);
  EXPECT_EQ(c.counters.unthrottle, 1u);
}

TEST(RingReader, CorruptSizeDropsRestAndNeverLoops) {
  for (std::uint16_t bad :
       {std::uint16_t{0}, std::uint16_t{4}, std::uint16_t{13}, std::uint16_t{4096}}) {
    SimRing ring(256);
    ring.write_forward(PERF_RECORD_SAMPLE, 24, 1);
    ring.write_forward(PERF_RECORD_SAMPLE, 24, 2);
    const std::uint64_t bad_at = ring.head();
    ring.write_forward(PERF_RECORD_SAMPLE, 24, 3);
    ring.write_forward(PERF_RECORD_SAMPLE, 24, 4);
    auto hdr = SimRing::make(PERF_RECORD_SAMPLE, 24, 3);
    std::memcpy(hdr.data() + 6, &bad, 2);
    ring.put_raw(bad_at, hdr);

    RingReader reader(ring.area());
    RingChunk c = reader.collect_forward(ring.head(), 0);
    EXPECT_TRUE(c.corrupt) << bad;
    EXPECT_EQ(c.corrupt_at, bad_at);
    EXPECT_EQ(c.size(), 48u);
    EXPECT_EQ(c.counters.records, 2u);
    EXPECT_EQ(c.counters.dropped_bytes, 48u);
    EXPECT_EQ(c.new_tail, ring.head());

    reader.begin(ring.head(), 0);
    int n = 0;
    while (reader.next()) ++n;
    EXPECT_EQ(n, 2);
    EXPECT_TRUE(reader.corrupt());
    EXPECT_EQ(reader.position(), ring.head());
    EXPECT_FALSE(reader.next().has_value());
    EXPECT_EQ(reader.counters().corrupt_events, 1u);
  }
}

TEST(RingReader, OverrunHeadIsCorruption) {
  SimRing ring(128);
  RingReader reader(ring.area());
  RingChunk c = reader.collect_forward(1000, 0);
  EXPECT_TRUE(c.corrupt);
  EXPECT_EQ(c.size(), 0u);
  EXPECT_EQ(c.counters.dropped_bytes, 1000u);
  EXPECT_EQ(c.new_tail, 1000u);
}

TEST(RingReader, NonPowerOfTwoAreaIsRejected) {
  std::vector<std::byte> area(100);
  RingReader reader(area);
  RingChunk c = reader.collect_forward(16, 0);
  EXPECT_TRUE(c.corrupt);
  EXPECT_EQ(c.size(), 0u);
}

TEST(RingReader, BackwardNotFullStopsAtNeverWrittenSpace) {
  SimRing ring(256);
  for (std::uint64_t s = 0; s < 3; ++s) ring.write_backward(PERF_RECORD_SAMPLE, 32, s);
  RingReader reader(ring.area());
  auto recs = reader.snapshot_backward(ring.head());
  ASSERT_EQ(recs.size(), 3u);
  EXPECT_EQ(seq_of(recs[0]), 0u);  // oldest first
  EXPECT_EQ(seq_of(recs[2]), 2u);
}

TEST(RingReader, BackwardFullKeepsNewestAndSkipsPartlyOverwritten) {
  SimRing ring(256);
  // 40-byte records: after many writes the oldest surviving one is partly overwritten.
  for (std::uint64_t s = 0; s < 100; ++s) ring.write_backward(PERF_RECORD_SAMPLE, 40, s);
  RingReader reader(ring.area());
  RingChunk c = reader.collect_backward(ring.head());
  EXPECT_FALSE(c.corrupt);
  EXPECT_EQ(c.counters.records, 6u);  // 6 * 40 = 240 <= 256 < 280
  auto recs = reader.snapshot_backward(ring.head());
  ASSERT_EQ(recs.size(), 6u);
  for (std::size_t i = 0; i < recs.size(); ++i) EXPECT_EQ(seq_of(recs[i]), 94 + i);
}

TEST(RingReader, BackwardCorruptHeaderStops) {
  SimRing ring(256);
  for (std::uint64_t s = 0; s < 3; ++s) ring.write_backward(PERF_RECORD_SAMPLE, 32, s);
  // Corrupt the middle record's size (newest is at head, middle at head+32).
  auto rec = SimRing::make(PERF_RECORD_SAMPLE, 32, 1);
  const std::uint16_t bad = 12;
  std::memcpy(rec.data() + 6, &bad, 2);
  ring.put_raw(ring.head() + 32, rec);
  RingReader reader(ring.area());
  RingChunk c = reader.collect_backward(ring.head());
  EXPECT_TRUE(c.corrupt);
  EXPECT_EQ(c.counters.records, 1u);
  EXPECT_EQ(reader.snapshot_backward(ring.head()).size(), 1u);
}

}  // namespace
}  // namespace perfx::record
