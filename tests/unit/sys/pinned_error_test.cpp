// A pinned event in error state: read(2) returns 0 bytes (end of file). parse_read and
// EventHandle::read report it as `pinned_error` (not a short, malformed read), and a
// CounterSet snapshot marks that event "not counted" with a note while the other
// events of the set keep their values.

#include <gtest/gtest.h>
#include <linux/perf_event.h>
#include <unistd.h>

#include <array>
#include <cstring>
#include <vector>

#include "perfx/counter.hpp"
#include "perfx/event_handle.hpp"
#include "sys/counter_read.hpp"

namespace perfx {
namespace {

constexpr std::uint64_t kTimesId =
    PERF_FORMAT_TOTAL_TIME_ENABLED | PERF_FORMAT_TOTAL_TIME_RUNNING | PERF_FORMAT_ID;

CounterSnapshot two_event_shape() {
  CounterSnapshot s;
  s.cpus = {-1};
  s.threads = {0};
  for (const char* name : {"pinned-hw", "task-clock"}) {
    CounterSnapshot::Event e;
    e.name = name;
    e.instances.resize(1);
    e.ids.resize(1);
    s.events.push_back(e);
  }
  return s;
}

ReadResult decoded(const std::vector<std::uint64_t>& words, std::uint64_t rf) {
  std::vector<std::byte> b(words.size() * 8);
  std::memcpy(b.data(), words.data(), b.size());
  auto r = parse_read(b, rf);
  EXPECT_TRUE(r) << r.error().message();
  return *r;
}

TEST(PinnedError, ZeroBytesIsAPinnedErrorNotMalformed) {
  for (std::uint64_t rf : {std::uint64_t{0}, kTimesId, kTimesId | PERF_FORMAT_GROUP}) {
    auto r = parse_read(std::span<const std::byte>{}, rf);
    ASSERT_TRUE(r) << rf;
    EXPECT_TRUE(r->pinned_error);
    EXPECT_TRUE(r->values.empty());
    EXPECT_EQ(r->read_format, rf);
  }
  // One byte short of a value is still malformed.
  std::array<std::byte, 4> half{};
  EXPECT_FALSE(parse_read(half, 0));
  // A normal read is not a pinned error.
  EXPECT_FALSE(decoded({5}, 0).pinned_error);
}

TEST(PinnedError, EventHandleReadAtEndOfFile) {
  // read(2) at end of file returns 0, like a pinned event in error state; a pipe whose
  // writer is closed gives exactly that through the same EventHandle::read path.
  int p[2];
  ASSERT_EQ(::pipe(p), 0);
  ::close(p[1]);
  auto r = EventHandle(p[0]).read(kTimesId);
  ::close(p[0]);
  ASSERT_TRUE(r) << r.error().message();
  EXPECT_TRUE(r->pinned_error);
  EXPECT_TRUE(r->values.empty());
}

TEST(PinnedError, SnapshotMarksOnlyThatEventNotCounted) {
  CounterSnapshot snap = two_event_shape();
  const std::vector<sys::GroupMemberRef> pinned{{0, 11}};
  const std::vector<sys::GroupMemberRef> clock{{1, 12}};

  ReadResult eof;
  eof.read_format = kTimesId;
  eof.pinned_error = true;
  ASSERT_TRUE(sys::apply_group_read(snap, pinned, 0, eof));
  ASSERT_TRUE(sys::apply_group_read(snap, clock, 0, decoded({777, 1000, 1000, 12}, kTimesId)));

  EXPECT_TRUE(snap.events[0].pinned_error);
  EXPECT_EQ(snap.events[0].note, sys::kPinnedErrorReason);
  EXPECT_EQ(snap.total(0).trust, Trust::kNotCounted);
  EXPECT_EQ(snap.total(0).raw, 0u);

  EXPECT_FALSE(snap.events[1].pinned_error);
  EXPECT_TRUE(snap.events[1].note.empty());
  EXPECT_EQ(snap.total(1).trust, Trust::kCounted);
  EXPECT_EQ(snap.total(1).raw, 777u);
}

TEST(PinnedError, PinnedGroupMarksEveryMember) {
  CounterSnapshot snap = two_event_shape();
  const std::vector<sys::GroupMemberRef> group{{0, 11}, {1, 12}};
  ReadResult eof;
  eof.read_format = kTimesId | PERF_FORMAT_GROUP;
  eof.pinned_error = true;
  ASSERT_TRUE(sys::apply_group_read(snap, group, 0, eof));
  for (const auto& e : snap.events) {
    EXPECT_TRUE(e.pinned_error) << e.name;
    EXPECT_FALSE(e.note.empty()) << e.name;
  }
  EXPECT_EQ(snap.total(1).trust, Trust::kNotCounted);

  // A normal group read fills members by id, whatever their order.
  CounterSnapshot ok = two_event_shape();
  const std::uint64_t rf = kTimesId | PERF_FORMAT_GROUP;
  ASSERT_TRUE(sys::apply_group_read(ok, group, 0, decoded({2, 100, 100, 5, 12, 9, 11}, rf)));
  EXPECT_EQ(ok.events[0].instances[0].value, 9u);
  EXPECT_EQ(ok.events[1].instances[0].value, 5u);
  // More values than members is malformed.
  EXPECT_FALSE(sys::apply_group_read(ok, std::vector<sys::GroupMemberRef>{{0, 11}}, 0,
                                     decoded({2, 1, 1, 5, 12, 9, 11}, rf)));
}

}  // namespace
}  // namespace perfx
