// perf stat record's user records (THREAD_MAP, CPU_MAP, STAT_CONFIG, STAT, STAT_ROUND,
// EVENT_UPDATE):
// encoder <-> decoder round trips, perf 6.1's bytes decoded, every CPU_MAP encoding.
#pragma GCC diagnostic ignored "-Wnull-dereference"  // get<T>()-> after ASSERT_NE, GCC 12

#include <gtest/gtest.h>

#include <cstring>
#include <vector>

#include "record/decoder.hpp"
#include "record/encoder.hpp"

namespace perfx::record {
namespace {

Record round_trip(Record::Body body, std::vector<std::byte>& storage) {
  Record in;
  in.body = std::move(body);
  storage.clear();
  const SampleLayout none{};
  auto enc = encode_record(in, none, storage);
  EXPECT_TRUE(enc) << (enc ? "" : enc.error().message());
  EXPECT_EQ(storage.size() % 8, 0u);
  auto dec = decode_record(storage, none);
  EXPECT_TRUE(dec) << (dec ? "" : dec.error().message());
  if (!dec) return {};
  EXPECT_EQ(dec->header.type, type_of_body(in.body));
  std::vector<std::byte> again;
  EXPECT_TRUE(encode_record(*dec, none, again));
  EXPECT_EQ(again, storage);
  return *dec;
}

std::vector<std::byte> bytes(std::initializer_list<int> v) {
  std::vector<std::byte> out;
  for (int b : v) out.push_back(static_cast<std::byte>(b));
  return out;
}

TEST(StatRecords, StatAndRoundRoundTrip) {
  std::vector<std::byte> buf;
  auto s = round_trip(Stat{77928, 0xffffffffu, 2, 541996, 600000, 541000}, buf);
  ASSERT_NE(s.get<Stat>(), nullptr);
  EXPECT_EQ(s.header.size, 48u);  // perf's struct perf_record_stat
  EXPECT_EQ(s.get<Stat>()->id, 77928u);
  EXPECT_EQ(s.get<Stat>()->cpu, 0xffffffffu);
  EXPECT_EQ(s.get<Stat>()->thread, 2u);
  EXPECT_EQ(s.get<Stat>()->val, 541996u);
  EXPECT_EQ(s.get<Stat>()->ena, 600000u);
  EXPECT_EQ(s.get<Stat>()->run, 541000u);
  auto r = round_trip(StatRound{kStatRoundFinal, 11392320}, buf);
  ASSERT_NE(r.get<StatRound>(), nullptr);
  EXPECT_EQ(r.header.size, 24u);
  EXPECT_EQ(r.get<StatRound>()->type, kStatRoundFinal);
  EXPECT_EQ(r.get<StatRound>()->time, 11392320u);
}

TEST(StatRecords, ConfigRoundTrip) {
  std::vector<std::byte> buf;
  const std::uint64_t terms[] = {0, 5, 1, 100, 2, 1};
  auto c = round_trip(StatConfig{3, U64Array::of(terms)}, buf);
  ASSERT_NE(c.get<StatConfig>(), nullptr);
  EXPECT_EQ(c.header.size, 64u);
  EXPECT_EQ(c.get<StatConfig>()->get(StatConfigTag::kAggrMode, 1), 5u);
  EXPECT_EQ(c.get<StatConfig>()->get(StatConfigTag::kInterval, 0), 100u);
  EXPECT_EQ(c.get<StatConfig>()->get(StatConfigTag::kScale, 0), 1u);
  const std::uint64_t one[] = {1, 250};
  auto d = round_trip(StatConfig{1, U64Array::of(one)}, buf);
  EXPECT_EQ(d.get<StatConfig>()->get(StatConfigTag::kAggrMode, 1), 1u);  // absent: fallback
}

TEST(StatRecords, ThreadMapRoundTrip) {
  std::vector<std::byte> entries(48);
  const std::uint64_t a = 6281, b = static_cast<std::uint64_t>(-1);
  std::memcpy(entries.data(), &a, 8);
  std::memcpy(entries.data() + 8, "worker", 6);
  std::memcpy(entries.data() + 24, &b, 8);
  std::memcpy(entries.data() + 32, "0123456789abcdef", 16);  // 16 bytes, no NUL
  std::vector<std::byte> buf;
  auto t = round_trip(ThreadMap{2, entries, false}, buf);
  ASSERT_NE(t.get<ThreadMap>(), nullptr);
  EXPECT_EQ(t.header.size, 8u + 8u + 48u);
  ASSERT_EQ(t.get<ThreadMap>()->size(), 2u);
  EXPECT_EQ((*t.get<ThreadMap>())[0].pid, 6281u);
  EXPECT_EQ((*t.get<ThreadMap>())[0].comm, "worker");
  EXPECT_EQ((*t.get<ThreadMap>())[1].pid, b);
  EXPECT_EQ((*t.get<ThreadMap>())[1].comm, "0123456789abcdef");
}

TEST(StatRecords, ThreadMapPastTheRecordIsMalformed) {
  // nr says 2 entries, the record holds one.
  auto rec = bytes({73, 0, 0, 0, 0, 0, 40, 0, 2, 0, 0, 0, 0, 0, 0, 0});
  rec.resize(40);
  EXPECT_FALSE(decode_record(rec, SampleLayout{}));
}

TEST(StatRecords, CpuMapAsPerfWritesIt) {
  // perf 6.1, `perf stat record -- true`: 4a 00 00 00 00 00 10 00 | type 0, nr 1, cpu 0xffff.
  const auto rec = bytes({0x4a, 0, 0, 0, 0, 0, 0x10, 0, 0, 0, 1, 0, 0xff, 0xff, 0, 0});
  auto d = decode_record(rec, SampleLayout{});
  ASSERT_TRUE(d) << d.error().message();
  ASSERT_NE(d->get<CpuMap>(), nullptr);
  EXPECT_EQ(d->get<CpuMap>()->cpus(), std::vector<int>{-1});
  std::vector<std::byte> again;
  ASSERT_TRUE(encode_record(*d, SampleLayout{}, again));
  EXPECT_EQ(again, rec);
}

TEST(StatRecords, CpuMapEncodings) {
  std::vector<std::byte> buf;
  // list: nr 3, cpus 0 2 5
  auto list = round_trip(CpuMap{0, bytes({3, 0, 0, 0, 2, 0, 5, 0}), false}, buf);
  EXPECT_EQ(list.get<CpuMap>()->cpus(), (std::vector<int>{0, 2, 5}));
  // 32-bit mask: nr 1, long_size 4, mask 0b1011
  auto m32 = round_trip(CpuMap{1, bytes({1, 0, 4, 0, 0x0b, 0, 0, 0}), false}, buf);
  EXPECT_EQ(m32.get<CpuMap>()->cpus(), (std::vector<int>{0, 1, 3}));
  // 64-bit mask: nr 1, long_size 8, 4 bytes of padding, mask bit 1 and bit 33
  auto m64 =
      round_trip(CpuMap{1, bytes({1, 0, 8, 0, 0, 0, 0, 0, 2, 0, 0, 0, 2, 0, 0, 0}), false}, buf);
  EXPECT_EQ(m64.get<CpuMap>()->cpus(), (std::vector<int>{1, 33}));
  // range: any_cpu 1, start 2, end 4
  auto range = round_trip(CpuMap{2, bytes({1, 0, 2, 0, 4, 0}), false}, buf);
  EXPECT_EQ(range.get<CpuMap>()->cpus(), (std::vector<int>{-1, 2, 3, 4}));
  // unknown type, or a list whose nr runs past the data: no CPUs (the reader refuses it)
  EXPECT_TRUE((CpuMap{9, bytes({1, 0, 0, 0}), false}.cpus().empty()));
  EXPECT_TRUE((CpuMap{0, bytes({9, 0, 1, 0}), false}.cpus().empty()));
}

TEST(StatRecords, EventUpdateOfEachTypeRoundTrips) {
  std::vector<std::byte> buf;
  // NAME: the string and its NUL, padded to 8 (perf's size: 24 + align(len + 1, 8)).
  const char name[] = "task-clock";
  auto n = round_trip(EventUpdate{static_cast<std::uint64_t>(EventUpdateType::kName), 83734,
                                  std::as_bytes(std::span(name, sizeof name)), false},
                      buf);
  ASSERT_NE(n.get<EventUpdate>(), nullptr);
  EXPECT_EQ(n.header.type, raw::PERF_RECORD_EVENT_UPDATE);
  EXPECT_EQ(n.header.size, 40u);
  EXPECT_EQ(n.get<EventUpdate>()->id, 83734u);
  EXPECT_EQ(n.get<EventUpdate>()->text(), "task-clock");
  // SCALE: a double.
  const double scale = 1e-6;
  auto sc = round_trip(EventUpdate{static_cast<std::uint64_t>(EventUpdateType::kScale), 5,
                                   std::as_bytes(std::span(&scale, 1)), false},
                       buf);
  ASSERT_NE(sc.get<EventUpdate>(), nullptr);
  EXPECT_EQ(sc.get<EventUpdate>()->scale(), 1e-6);
  // CPUS: a CPU_MAP's data (range 2-5).
  const auto cpus = bytes({2, 0, 0, 0, 2, 0, 5, 0});
  auto c = round_trip(
      EventUpdate{static_cast<std::uint64_t>(EventUpdateType::kCpus), 5, cpus, false}, buf);
  ASSERT_NE(c.get<EventUpdate>(), nullptr);
  EXPECT_EQ(c.get<EventUpdate>()->cpus().cpus(), (std::vector<int>{2, 3, 4, 5}));
  // Too short for its type and id: malformed, not Unknown.
  std::vector<std::byte> short_rec(16, std::byte{0});
  short_rec[0] = std::byte{78};  // PERF_RECORD_EVENT_UPDATE
  short_rec[6] = std::byte{16};
  EXPECT_FALSE(decode_record(short_rec, SampleLayout{}));
}

}  // namespace
}  // namespace perfx::record
