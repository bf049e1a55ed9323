// perf diff --percentage relative with a thread filter: the Delta is of the samples that
// pass the filter themselves (perf adds them to total_non_filtered_period as they come and
// computes the deltas before its output sort), the Baseline of the rows kept (the output
// sort sums the unfiltered entries, whose periods include later samples of other threads).
#include <gtest/gtest.h>

#include "perfx/report.hpp"
#include "profile/profile.hpp"

namespace perfx {
namespace {

// Thread 0 "sh", thread 1 "dd"; frames k (kernel) and d (dd). A "sh" sample makes the k
// entry first (filtered with -C dd), then "dd" samples add to it.
profile::Profile make(std::uint64_t k_sh, std::uint64_t k_dd, std::uint64_t d_dd) {
  profile::Profile p;
  profile::Frame k;
  k.function = "read_zero";
  k.dso = "[kernel.kallsyms]";
  k.kind = FrameKind::kKernel;
  profile::Frame d = k;
  d.function = "main";
  d.dso = "dd";
  d.kind = FrameKind::kUser;
  p.frames = {k, d};
  p.stacks = {{0}, {1}};
  p.threads = {{1, 1, "sh"}, {2, 2, "dd"}};
  profile::Event ev{"cpu-clock", "nanoseconds"};
  p.samples.push_back({.stack = 0, .thread = 0, .period = k_sh});
  p.samples.push_back({.stack = 0, .thread = 1, .period = k_dd});
  p.samples.push_back({.stack = 1, .thread = 1, .period = d_dd});
  ev.total_samples = 3;
  ev.total_period = k_sh + k_dd + d_dd;
  p.events = {ev};
  return p;
}

TEST(DiffRelative, DeltaOfTheSamplesThatPassTheThreadFilter) {
  const auto old_p = make(100, 100, 200);  // dd's samples: 300; the kept rows: d only (200)
  const auto new_p = make(0, 100, 300);    // no sh sample: k is made by dd, kept (400)
  DiffOptions o;
  o.relative = true;
  o.thread_filter.comms = {"dd"};
  o.compute = DiffCompute::kDelta;
  auto sections = diff_profiles(old_p, new_p, o);
  ASSERT_TRUE(sections) << sections.error().message();
  ASSERT_EQ(sections->size(), 1u);
  const DiffSection& s = sections->front();
  EXPECT_EQ(s.old_base, 200u);        // the Baseline column's (and -F's): rows kept
  EXPECT_EQ(s.old_delta_base, 300u);  // the deltas': samples kept
  EXPECT_EQ(s.new_base, 400u);
  ASSERT_EQ(s.rows.size(), 1u);  // k's OLD entry is filtered (made by sh): only main
  const DiffRow& r = s.rows.front();
  EXPECT_EQ(r.symbol, "main");
  EXPECT_DOUBLE_EQ(*r.baseline, 100.0);
  EXPECT_DOUBLE_EQ(*r.delta, 100.0 * 300 / 400 - 100.0 * 200 / 300);
}

TEST(DiffRelative, AbsoluteKeepsTheTotals) {
  const auto p = make(100, 100, 200);
  DiffOptions o;
  o.thread_filter.comms = {"dd"};
  auto sections = diff_profiles(p, p, o);
  ASSERT_TRUE(sections);
  EXPECT_EQ(sections->front().old_base, 400u);
  EXPECT_EQ(sections->front().old_delta_base, 400u);
  EXPECT_EQ(sections->front().new_base, 400u);
}

}  // namespace
}  // namespace perfx
