// perf's trace sort key (profile::build_hists(), compare_key()): entries by the
// tracepoint sample's text kept in Profile::traces.
#include <gtest/gtest.h>

#include <utility>
#include <vector>

#include "profile/hists.hpp"

namespace perfx::profile {
namespace {

// A tracepoint event's profile: one kernel frame, these threads and texts.
Profile tp_profile(std::vector<Thread> threads, std::vector<std::string> traces) {
  Profile p;
  Frame f;
  f.function = "tp";
  f.dso = "[kernel.kallsyms]";
  p.frames = {f};
  p.stacks = {{0}};
  p.threads = std::move(threads);
  p.events = {Event{"sched:sched_switch", "events"}};
  p.traces = std::move(traces);
  return p;
}

// perf's trace sort key: one entry per text (Profile::traces), equal periods by the text
// ascending; samples of other events "N/A" (kNoTrace).
TEST(TraceKey, EntriesPerTextOrderedByIt) {
  Profile p = tp_profile({{1, 1, "a"}}, {"prev_comm=sh", "prev_comm=rec_hot"});
  for (std::uint32_t t : {0u, 1u, 0u, 1u, 1u, 0u, Profile::kNoTrace}) {
    p.samples.push_back(Sample{.stack = 0, .period = 1});
    p.sample_traces.push_back(t);
  }
  p.samples.push_back(Sample{.stack = 0, .period = 2});
  p.sample_traces.push_back(1);
  HistOptions o;
  o.keys = {SortKey::kTrace};
  const Hists h = build_hists(p, o, 0);
  ASSERT_EQ(h.entries.size(), 3u);
  std::vector<std::pair<std::uint32_t, std::uint64_t>> got;
  for (const auto* e : sorted_entries(h, HistOrder{})) got.emplace_back(e->trace, e->values.self);
  // rec_hot 5, then sh 3; the N/A entry last.
  EXPECT_EQ(got, (std::vector<std::pair<std::uint32_t, std::uint64_t>>{
                     {1u, 5u}, {0u, 3u}, {Profile::kNoTrace, 1u}}));
  // Equal periods: by the text ascending (perf's output order).
  HistEntry a, b;
  a.trace = 0;
  b.trace = 1;
  EXPECT_GT(compare_key(h, 0, a, b), 0);  // "prev_comm=sh" after "prev_comm=rec_hot"
}

TEST(TraceKey, LookedUpOnlyWhenComparedAsPerf) {
  // perf makes trace_output when sort__trace_cmp() compares two entries: a thread with
  // one sample (-s comm,trace) never has it before the columns are sized.
  Profile p = tp_profile({{1, 1, "one"}, {2, 2, "two"}}, {"a", "b", "a much longer text"});
  for (auto [thread, trace] : {std::pair{1u, 0u}, {1u, 1u}, {0u, 2u}}) {
    p.samples.push_back(Sample{.stack = 0, .thread = thread, .period = 1});
    p.sample_traces.push_back(trace);
  }
  HistOptions o;
  o.keys = {SortKey::kComm, SortKey::kTrace};
  const Hists h = build_hists(p, o, 0);
  ASSERT_EQ(h.entries.size(), 3u);
  for (const auto& e : h.entries)
    EXPECT_EQ((e.looked_up >> 1 & 1u) != 0, e.thread == 1) << p.traces[e.trace];
}

}  // namespace
}  // namespace perfx::profile
