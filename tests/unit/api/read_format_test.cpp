// perfx::parse_read / read_size over every read_format layout (single and group, each
// with or without TOTAL_TIME_ENABLED, TOTAL_TIME_RUNNING, ID and LOST), the trust states
// and what they say, and the attr fields an EINVAL is blamed on.

#include <gtest/gtest.h>
#include <linux/hw_breakpoint.h>
#include <linux/perf_event.h>
#include <time.h>

#include <cstring>
#include <vector>

#include "perfx/counter.hpp"
#include "perfx/event_handle.hpp"
#include "sys/explain.hpp"

namespace perfx {
namespace {

constexpr std::uint64_t kLost = 1U << 4;  // PERF_FORMAT_LOST

std::vector<std::byte> bytes_of(const std::vector<std::uint64_t>& words) {
  std::vector<std::byte> b(words.size() * 8);
  std::memcpy(b.data(), words.data(), b.size());
  return b;
}

/// Builds what the kernel writes for `rf` with `n` members (values 100+i, ids 10+i,
/// lost 1000+i, enabled 500, running 250), following the man page's struct read_format.
std::vector<std::uint64_t> kernel_layout(std::uint64_t rf, std::size_t n) {
  std::vector<std::uint64_t> w;
  const bool te = rf & PERF_FORMAT_TOTAL_TIME_ENABLED;
  const bool tr = rf & PERF_FORMAT_TOTAL_TIME_RUNNING;
  if (rf & PERF_FORMAT_GROUP) {
    w.push_back(n);
    if (te) w.push_back(500);
    if (tr) w.push_back(250);
    for (std::size_t i = 0; i < n; ++i) {
      w.push_back(100 + i);
      if (rf & PERF_FORMAT_ID) w.push_back(10 + i);
      if (rf & kLost) w.push_back(1000 + i);
    }
  } else {
    w.push_back(100);
    if (te) w.push_back(500);
    if (tr) w.push_back(250);
    if (rf & PERF_FORMAT_ID) w.push_back(10);
    if (rf & kLost) w.push_back(1000);
  }
  return w;
}

TEST(ParseRead, EveryLayout) {
  for (std::uint64_t rf = 0; rf < 32; ++rf) {
    const std::size_t n = (rf & PERF_FORMAT_GROUP) ? 3 : 1;
    const auto words = kernel_layout(rf, n);
    EXPECT_EQ(read_size(rf, n), words.size() * 8) << "read_format " << rf;
    const auto bytes = bytes_of(words);
    auto r = parse_read(bytes, rf);
    ASSERT_TRUE(r) << "read_format " << rf << ": " << r.error().message();
    EXPECT_EQ(r->read_format, rf);
    ASSERT_EQ(r->values.size(), n) << rf;
    EXPECT_EQ(r->time_enabled, (rf & PERF_FORMAT_TOTAL_TIME_ENABLED) ? 500u : 0u) << rf;
    EXPECT_EQ(r->time_running, (rf & PERF_FORMAT_TOTAL_TIME_RUNNING) ? 250u : 0u) << rf;
    for (std::size_t i = 0; i < n; ++i) {
      EXPECT_EQ(r->values[i].value, 100 + i) << rf;
      EXPECT_EQ(r->values[i].id, (rf & PERF_FORMAT_ID) ? 10 + i : 0) << rf;
      EXPECT_EQ(r->values[i].lost, (rf & kLost) ? 1000 + i : 0) << rf;
    }
    // A byte short is malformed, never a silent partial value.
    // (Cutting the one word of read_format 0 leaves no bytes: that is a pinned error.)
    const std::span<const std::byte> cut(bytes.data(), bytes.size() - 8);
    if (cut.empty()) {
      ASSERT_TRUE(parse_read(cut, rf)) << rf;
      EXPECT_TRUE(parse_read(cut, rf)->pinned_error) << rf;
    } else {
      EXPECT_FALSE(parse_read(cut, rf)) << rf;
    }
  }
}

TEST(ParseRead, ScalingAndIds) {
  const std::uint64_t rf = PERF_FORMAT_GROUP | PERF_FORMAT_ID | PERF_FORMAT_TOTAL_TIME_ENABLED |
                           PERF_FORMAT_TOTAL_TIME_RUNNING;
  const auto bytes = bytes_of(kernel_layout(rf, 2));
  auto r = parse_read(bytes, rf);
  ASSERT_TRUE(r);
  EXPECT_TRUE(r->timed());
  const Count c = r->count(1);
  EXPECT_EQ(c.trust, Trust::kScaled);
  EXPECT_DOUBLE_EQ(c.value, 101.0 * 500 / 250);
  ASSERT_NE(r->find_id(11), nullptr);
  EXPECT_EQ(r->find_id(11)->value, 101u);
  EXPECT_EQ(r->find_id(99), nullptr);

  // Without time fields nothing can be scaled: the raw value is returned.
  const auto plain = bytes_of({7});
  auto p = parse_read(plain, 0);
  ASSERT_TRUE(p);
  EXPECT_FALSE(p->timed());
  EXPECT_EQ(p->count(0).value, 7.0);
  EXPECT_EQ(p->find_id(0), nullptr);  // no PERF_FORMAT_ID: nothing to match
}

TEST(ParseRead, GroupNrLargerThanTheBytes) {
  auto w = kernel_layout(PERF_FORMAT_GROUP, 2);
  w[0] = 1000;  // nr
  EXPECT_FALSE(parse_read(bytes_of(w), PERF_FORMAT_GROUP));
}

TEST(Trust, CannotFireAndNeverRan) {
  CounterSnapshot s;
  s.cpus = {-1};
  s.threads = {0};
  CounterSnapshot::Event bp;
  bp.name = "mem:0x1000:w";
  bp.attr.type = PERF_TYPE_BREAKPOINT;
  bp.cannot_fire = true;
  bp.note = "hardware breakpoints open but never fire";
  bp.instances = {RawCount{0, 1000, 1000, 0}};
  s.events.push_back(bp);
  const Count c = s.total(0);
  EXPECT_EQ(c.trust, Trust::kCannotFire);  // not "counted", although it ran all the time
  EXPECT_EQ(s.for_cpu(0, 0).trust, Trust::kCannotFire);
  EXPECT_EQ(s.for_thread(0, 0).trust, Trust::kCannotFire);
  EXPECT_STREQ(trust_name(Trust::kCannotFire), "cannot fire");
  EXPECT_NE(explain_count(c).find("never delivers"), std::string::npos);

  const Count never_enabled = scale_count(RawCount{0, 0, 0, 0});
  EXPECT_EQ(never_enabled.trust, Trust::kNotCounted);
  EXPECT_NE(explain_count(never_enabled).find("never enabled"), std::string::npos);
  const Count never_scheduled = scale_count(RawCount{0, 1200, 0, 0});
  EXPECT_NE(explain_count(never_scheduled).find("enabled 1200 ns but never scheduled"),
            std::string::npos);
  EXPECT_EQ(explain_count(scale_count(RawCount{5, 10, 10, 0})), "counted");
  EXPECT_NE(explain_count(scale_count(RawCount{5, 10, 5, 0})).find("50.00%"), std::string::npos);
}

sys::OpenRequest req_with(const raw::EventAttr& a) {
  sys::OpenRequest r;
  r.attr = a;
  return r;
}

TEST(AttrFieldError, NamesTheField) {
  raw::EventAttr a{};
  a.type = PERF_TYPE_SOFTWARE;
  EXPECT_FALSE(sys::attr_field_error(req_with(a)));  // nothing wrong: maybe unsupported

  raw::EventAttr clock = a;
  clock.use_clockid = 1;
  clock.clockid = 99;
  auto e = sys::attr_field_error(req_with(clock));
  ASSERT_TRUE(e);
  EXPECT_NE(e->find("attr.clockid 99"), std::string::npos) << *e;
  clock.clockid = CLOCK_MONOTONIC_RAW;
  EXPECT_FALSE(sys::attr_field_error(req_with(clock)));

  raw::EventAttr period = a;
  period.sample_period = 1ULL << 63;
  EXPECT_NE(sys::attr_field_error(req_with(period))->find("attr.sample_period"), std::string::npos);

  raw::EventAttr rf = a;
  rf.read_format = 1U << 7;
  EXPECT_NE(sys::attr_field_error(req_with(rf))->find("attr.read_format"), std::string::npos);

  raw::EventAttr inh = a;
  inh.inherit = 1;
  inh.sample_type = PERF_SAMPLE_READ;
  EXPECT_NE(sys::attr_field_error(req_with(inh))->find("PERF_SAMPLE_READ"), std::string::npos);

  raw::EventAttr bp{};
  bp.type = PERF_TYPE_BREAKPOINT;
  bp.bp_type = HW_BREAKPOINT_W;
  bp.bp_len = 3;
  EXPECT_NE(sys::attr_field_error(req_with(bp))->find("attr.bp_len 3"), std::string::npos);

  sys::OpenRequest member = req_with(a);
  member.attr.pinned = 1;
  member.group_fd = 5;
  EXPECT_NE(sys::attr_field_error(member)->find("attr.pinned"), std::string::npos);
}

}  // namespace
}  // namespace perfx
