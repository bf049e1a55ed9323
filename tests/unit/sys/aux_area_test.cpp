// The AUX area helpers on simulated memory: placement after the data area, the flags of a
// PERF_RECORD_AUX, ring slicing with wrap and lapping, and the whole path from an encoded
// PERF_RECORD_AUX (decoded by the record module) to the bytes it announces.

#include <linux/perf_event.h>

#include <gtest/gtest.h>

#include <cstddef>
#include <numeric>
#include <vector>

#include "perfx/aux.hpp"
#include "record/decoder.hpp"
#include "record/encoder.hpp"
#include "record/sample_layout.hpp"

namespace perfx {
namespace {

TEST(AuxFlags, SplitsTheFlagsWord) {
  const auto f = AuxFlags::from_bits(PERF_AUX_FLAG_TRUNCATED | PERF_AUX_FLAG_PARTIAL | 0x0100);
  EXPECT_TRUE(f.truncated);
  EXPECT_FALSE(f.overwrite);
  EXPECT_TRUE(f.partial);
  EXPECT_FALSE(f.collision);
  EXPECT_EQ(f.pmu_format, 1);  // PERF_AUX_FLAG_CORESIGHT_FORMAT_RAW
  const auto g = AuxFlags::from_bits(PERF_AUX_FLAG_OVERWRITE | PERF_AUX_FLAG_COLLISION);
  EXPECT_TRUE(g.overwrite);
  EXPECT_TRUE(g.collision);
  EXPECT_FALSE(g.truncated);
  EXPECT_EQ(g.pmu_format, 0);
}

TEST(PlanAuxArea, GoesRightAfterTheDataArea) {
  MmapPageSnapshot s;
  s.data_offset = 4096;
  s.data_size = 8 * 4096;
  auto a = plan_aux_area(s, 4096, 16);
  ASSERT_TRUE(a) << a.error().message();
  EXPECT_EQ(a->offset, 9u * 4096);
  EXPECT_EQ(a->size, 16u * 4096);
  s.data_size = 8 * 4096 + 100;  // not page aligned: round up
  a = plan_aux_area(s, 4096, 1);
  ASSERT_TRUE(a);
  EXPECT_EQ(a->offset, 10u * 4096);
}

TEST(PlanAuxArea, RejectsBadSizesAndAMissingDataArea) {
  MmapPageSnapshot s;
  s.data_offset = 4096;
  s.data_size = 4096;
  EXPECT_EQ(plan_aux_area(s, 4096, 3).error().code(), Errc::kInvalidArgument);
  EXPECT_EQ(plan_aux_area(s, 4096, 0).error().code(), Errc::kInvalidArgument);
  EXPECT_EQ(plan_aux_area(s, 1000, 1).error().code(), Errc::kInvalidArgument);
  s.data_size = 0;
  auto r = plan_aux_area(s, 4096, 4);
  ASSERT_FALSE(r);
  EXPECT_NE(r.error().message().find("no data area"), std::string::npos);
}

std::vector<std::byte> numbered(std::size_t n) {
  std::vector<std::byte> v(n);
  for (std::size_t i = 0; i < n; ++i) v[i] = static_cast<std::byte>(i);
  return v;
}

TEST(AuxSlices, ContiguousWrappedLappedAndEmpty) {
  const auto ring = numbered(16);
  auto c = aux_slices(ring, 32 + 2, 32 + 6);  // positions are free-running
  EXPECT_EQ(c.first.size(), 4u);
  EXPECT_TRUE(c.second.empty());
  EXPECT_EQ(c.first[0], std::byte{2});

  c = aux_slices(ring, 12, 20);  // wraps: [12,16) then [0,4)
  ASSERT_EQ(c.first.size(), 4u);
  ASSERT_EQ(c.second.size(), 4u);
  EXPECT_EQ(c.first[0], std::byte{12});
  EXPECT_EQ(c.second[3], std::byte{3});
  EXPECT_EQ(c.size(), 8u);
  const auto joined = c.copy();
  EXPECT_EQ(joined.front(), std::byte{12});
  EXPECT_EQ(joined.back(), std::byte{3});
  EXPECT_EQ(c.lapped, 0u);

  c = aux_slices(ring, 0, 40);  // more than the ring holds: the newest 16 bytes remain
  EXPECT_EQ(c.lapped, 24u);
  EXPECT_EQ(c.begin, 24u);
  EXPECT_EQ(c.size(), 16u);
  EXPECT_EQ(c.first[0], std::byte{8});  // position 24 lives at 24 & 15

  EXPECT_EQ(aux_slices(ring, 5, 5).size(), 0u);
  EXPECT_EQ(aux_slices(ring, 6, 5).size(), 0u);
  EXPECT_EQ(aux_slices({}, 0, 5).size(), 0u);
}

// A simulated AUX ring written past its end, the PERF_RECORD_AUX the kernel would put in
// the data area, decoded by the record module: the announced bytes come out in order.
TEST(AuxSlices, BytesAnnouncedByADecodedAuxRecord) {
  std::vector<std::byte> ring(64);
  const std::uint64_t aux_offset = 64 * 3 + 50;  // the kernel's stream position
  const std::uint64_t aux_size = 30;             // wraps after 14 bytes
  for (std::uint64_t i = 0; i < aux_size; ++i) {
    ring[(aux_offset + i) & 63] = static_cast<std::byte>(0xa0 + i);
  }

  raw::EventAttr attr{};
  attr.type = PERF_TYPE_SOFTWARE;
  attr.sample_type = PERF_SAMPLE_TID | PERF_SAMPLE_TIME;
  attr.sample_id_all = 1;
  const auto layout = record::SampleLayout::from_attr(attr);
  record::Record rec;
  rec.header.type = PERF_RECORD_AUX;
  rec.sample_id.fields = attr.sample_type;
  rec.sample_id.pid = 1;
  rec.sample_id.tid = 2;
  rec.sample_id.time = 3;
  rec.body = record::Aux{aux_offset, aux_size, PERF_AUX_FLAG_TRUNCATED};
  std::vector<std::byte> bytes;
  ASSERT_TRUE(record::encode_record(rec, layout, bytes));
  auto dec = record::decode_record(bytes, layout);
  ASSERT_TRUE(dec) << dec.error().message();
  const auto* aux = dec->get<record::Aux>();
  ASSERT_NE(aux, nullptr);
  EXPECT_TRUE(AuxFlags::from_bits(aux->flags).truncated);

  const auto data = aux_slices(ring, aux->aux_offset, aux->aux_offset + aux->aux_size).copy();
  ASSERT_EQ(data.size(), aux_size);
  for (std::uint64_t i = 0; i < aux_size; ++i) {
    EXPECT_EQ(data[i], static_cast<std::byte>(0xa0 + i)) << i;
  }
}

}  // namespace
}  // namespace perfx
