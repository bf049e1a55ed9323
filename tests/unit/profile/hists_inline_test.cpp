// perf 6.1's inline rows and per-process unresolved entries (profile/hists.hpp), on
// numbers: an inline frame gets its own Children entry; a sample_only frame (a symbol
// whose DWARF names it otherwise) gets the sample's Self but is no caller; unresolved
// callchain entries of two processes are keyed by each one's own address; --sort keys
// symbol_size and dso_size and the overhead_sys share.
#include <gtest/gtest.h>

#include <algorithm>
#include <string>
#include <vector>

#include "profile/hists.hpp"

namespace perfx::profile {
namespace {

Frame frame(std::string fn, std::uint64_t map_address, std::uint64_t offset = 0) {
  Frame f;
  f.function = std::move(fn);
  f.dso = "app";
  f.kind = FrameKind::kUser;
  f.mapping = 0;
  f.map_address = map_address;
  f.address = map_address;
  f.symbol_offset = offset;
  return f;
}

Frame inline_frame(std::string fn, std::uint64_t map_address) {
  Frame f = frame(std::move(fn), map_address);
  f.inlined = true;
  return f;
}

Event callchain_event(std::uint64_t samples, std::uint64_t period) {
  Event ev{"cpu-clock", "nanoseconds"};
  ev.has_callchain = true;
  ev.total_samples = samples;
  ev.total_period = period;
  return ev;
}

// One mapping, one thread ("app"), these stacks and one callchain event.
void set_up(Profile& p, std::vector<std::vector<std::uint32_t>> stacks, std::uint64_t samples,
            std::uint64_t period) {
  p.mappings.resize(1);
  p.stacks = std::move(stacks);
  p.threads = {{10, 10, "app"}};
  p.events = {callchain_event(samples, period)};
}

const HistEntry* find(const Hists& h, const std::string& fn, bool inlined) {
  for (const auto& e : h.entries) {
    const auto& f = h.profile->frames[e.frame];
    if (f.function == fn && f.inlined == inlined) return &e;
  }
  return nullptr;
}

TEST(HistsInline, InlineFramesGetChildrenRows) {
  // main -> crunch [-> fold (inlined) -> step (inlined)], 3 samples; main -> crunch, 1.
  Profile p;
  p.frames = {frame("main", 0x10c9, 0x59), frame("crunch", 0x1239, 0x39),
              inline_frame("fold", 0x1239), inline_frame("step", 0x1239),
              frame("crunch", 0x1240, 0x40)};
  set_up(p, {{0, 1, 2, 3}, {0, 4}}, 4, 400);
  for (int i = 0; i < 3; ++i) p.samples.push_back(Sample{.stack = 0, .period = 100});
  p.samples.push_back(Sample{.stack = 1, .period = 100});
  HistOptions o;
  o.keys = {SortKey::kDso, SortKey::kSym};
  const Hists h = build_hists(p, o, 0);
  const HistEntry* crunch = find(h, "crunch", false);
  const HistEntry* f = find(h, "fold", true);
  const HistEntry* s = find(h, "step", true);
  ASSERT_TRUE(crunch && f && s);
  EXPECT_EQ(crunch->values.self, 400u);  // the samples' own symbol, both addresses
  EXPECT_EQ(crunch->values.children, 400u);
  EXPECT_EQ(f->values.self, 0u);
  EXPECT_EQ(f->values.children, 300u);
  EXPECT_EQ(s->values.children, 300u);
  // Equal children: the longer chain first (the leaf's entry has the whole chain, as
  // main's: then by self), an inline caller above its inline callee.
  const auto rows = sorted_entries(h, HistOrder{true, {}});
  ASSERT_GE(rows.size(), 4u);
  EXPECT_EQ(p.frames[rows[0]->frame].function, "crunch");
  EXPECT_EQ(p.frames[rows[1]->frame].function, "main");
  EXPECT_EQ(p.frames[rows[2]->frame].function, "fold");
  EXPECT_EQ(p.frames[rows[3]->frame].function, "step");
}

TEST(HistsInline, SampleOnlyFrameIsSelfButNoCaller) {
  // main -> clock_gettime@@GLIBC_2.17 (sample_only) [-> __GI___clock_gettime (inlined)].
  Profile p;
  Frame real = frame("clock_gettime@@GLIBC_2.17", 0xcf420);
  real.sample_only = true;
  p.frames = {frame("main", 0x10c9, 0x59), real, inline_frame("__GI___clock_gettime", 0xcf420)};
  set_up(p, {{0, 1, 2}}, 2, 200);
  p.samples = {Sample{.stack = 0, .period = 200, .count = 2}};
  const Hists h = build_hists(p, HistOptions{}, 0);
  const HistEntry* r = find(h, "clock_gettime@@GLIBC_2.17", false);
  const HistEntry* a = find(h, "__GI___clock_gettime", true);
  ASSERT_TRUE(r && a);
  EXPECT_EQ(r->values.self, 200u);
  EXPECT_EQ(r->values.children, 200u);
  EXPECT_EQ(a->values.self, 0u);
  EXPECT_EQ(a->values.children, 200u);
  // The call graph names the alias, not the symbol.
  const CallNode tree = call_tree(h, *r);
  ASSERT_EQ(tree.kids.size(), 1u);
  EXPECT_EQ(tree.kids[0].name, "main");
  ASSERT_EQ(tree.kids[0].kids.size(), 1u);
  EXPECT_EQ(tree.kids[0].kids[0].name, "__GI___clock_gettime (inlined)");
}

TEST(HistsInline, UnresolvedCallchainEntriesPerProcess) {
  // Two processes of one stripped binary: the same map-relative addresses, loaded at
  // different places. perf's Self entry is by map address (one row for both); its
  // callchain entries are by each process's own address (one row each).
  Profile p;
  auto unresolved = [](std::uint64_t map_address, std::uint64_t ip) {
    Frame f = frame("[unknown]", map_address);
    f.address = 0x555500000000 + map_address;  // the first process's mapping
    f.process_address = ip;
    return f;
  };
  p.frames = {unresolved(0x128e, 0x55550000128e), unresolved(0x117e, 0x55550000117e),
              unresolved(0x128e, 0x5566000128e), unresolved(0x117e, 0x5566000117e)};
  p.mappings.resize(1);
  p.stacks = {{0, 1}, {2, 3}};
  p.threads = {{10, 10, "stripped"}, {11, 11, "stripped"}};
  p.events = {callchain_event(3, 300)};
  p.samples = {Sample{.stack = 0, .thread = 0, .period = 200, .count = 2},
               Sample{.stack = 1, .thread = 1, .period = 100}};
  HistOptions o;
  o.keys = {SortKey::kComm, SortKey::kDso, SortKey::kSym};
  const Hists h = build_hists(p, o, 0);
  std::vector<std::pair<std::uint64_t, std::uint64_t>> raw;  // (shown address, children)
  std::uint64_t self_rows = 0;
  for (const auto& e : h.entries) {
    const Frame& f = p.frames[e.frame];
    if (e.raw) raw.emplace_back(shown_address(f, true), e.values.children);
    if (e.values.self > 0) {
      ++self_rows;
      EXPECT_EQ(e.values.self, 300u);  // one Self row, by map address
      EXPECT_EQ(shown_address(f, false), 0x117eu);
    }
  }
  EXPECT_EQ(self_rows, 1u);
  std::sort(raw.begin(), raw.end());
  EXPECT_EQ(raw, (std::vector<std::pair<std::uint64_t, std::uint64_t>>{{0x5566000117e, 100},
                                                                       {0x5566000128e, 100},
                                                                       {0x55550000117e, 200},
                                                                       {0x55550000128e, 200}}));
}

TEST(HistsInline, SortKeysOfSizesAndSystemShare) {
  EXPECT_EQ(sort_key_named("symbol"), SortKey::kSym);
  EXPECT_EQ(sort_key_named("SY"), SortKey::kSym);
  EXPECT_EQ(sort_key_named("symbol_s"), SortKey::kSymbolSize);
  EXPECT_EQ(sort_key_named("dso_size"), SortKey::kDsoSize);
  EXPECT_EQ(sort_key_named("p"), SortKey::kPid);
  EXPECT_FALSE(sort_key_named("period"));
  EXPECT_EQ(sort_field_named("per"), "period");
  EXPECT_EQ(sort_field_named("overhead_u"), "overhead_us");
  EXPECT_FALSE(sort_field_named("pi"));
  // Two symbols of one size are one symbol_size entry (perf compares the size alone).
  Profile p;
  Frame a = frame("a", 0x100);
  a.symbol_size = 32;
  Frame b = frame("b", 0x200);
  b.symbol_size = 32;
  Frame k = frame("irq", 0xffffffff81000000);
  k.kind = FrameKind::kKernel;
  k.symbol_size = 8;
  p.frames = {a, b, k};
  p.mappings.resize(1);
  p.mappings[0].start = 0x1000;
  p.mappings[0].limit = 0x3000;
  p.stacks = {{0}, {1}, {2}};
  p.threads = {{10, 10, "app"}};
  Event ev{"cpu-clock", "nanoseconds"};
  ev.total_samples = 4;
  ev.total_period = 400;
  p.events = {ev};
  p.samples = {Sample{.stack = 0, .period = 100}, Sample{.stack = 1, .period = 200},
               Sample{.stack = 2, .period = 100}};
  HistOptions o;
  o.keys = {SortKey::kSymbolSize};
  const Hists h = build_hists(p, o, 0);
  ASSERT_EQ(h.entries.size(), 2u);
  EXPECT_EQ(h.entries[0].values.self, 300u);
  EXPECT_EQ(h.entries[0].values.self_sys, 0u);
  EXPECT_EQ(h.entries[1].values.self, 100u);
  EXPECT_EQ(h.entries[1].values.self_sys, 100u);  // the kernel leaf's period
  o.keys = {SortKey::kDsoSize};
  const Hists d = build_hists(p, o, 0);
  ASSERT_EQ(d.entries.size(), 1u);
  EXPECT_EQ(map_size(p, p.frames[0]), 0x2000u);
}

}  // namespace
}  // namespace perfx::profile
