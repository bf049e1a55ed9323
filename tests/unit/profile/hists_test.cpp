// perf's hist entries (profile/hists.hpp) asserted on their numbers, without printing:
// self and children periods (each entry once per sample, even with recursion), sample
// counts per group member, filters, perf's output order, call-graph tree node values, and
// diff's pairing of two recordings' entries.
#include "profile/hists.hpp"

#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "report/diff.hpp"

namespace perfx::profile {
namespace {

Frame frame(std::string fn, std::string dso, FrameKind kind, std::int32_t mapping = 0) {
  Frame f;
  f.function = std::move(fn);
  f.dso = std::move(dso);
  f.kind = kind;
  f.mapping = mapping;
  return f;
}

Sample sample(std::uint32_t stack, std::uint64_t period, std::uint16_t event = 0,
              std::uint32_t thread = 0) {
  return Sample{.stack = stack, .thread = thread, .period = period, .event = event};
}

// main -> a -> b (leaf) x3, main -> a -> a (recursion, leaf a) x1, main -> irq (kernel) x1;
// 100 ns each, thread 0 (app, 10); the last sample is thread 1 (other, 11).
Profile make_profile() {
  Profile p;
  p.frames = {frame("main", "app", FrameKind::kUser), frame("a", "app", FrameKind::kUser),
              frame("b", "libb.so", FrameKind::kUser, 1),
              frame("irq", "[kernel.kallsyms]", FrameKind::kKernel, 2)};
  p.stacks = {{0, 1, 2}, {0, 1, 1}, {0, 3}};
  p.threads = {{10, 10, "app"}, {11, 11, "other"}};
  Event ev{"cpu-clock", "nanoseconds"};
  ev.has_callchain = true;
  ev.total_samples = 5;
  ev.total_period = 500;
  p.events = {ev};
  for (int i = 0; i < 3; ++i) p.samples.push_back(sample(0, 100));
  p.samples.push_back(sample(1, 100));
  p.samples.push_back(sample(2, 100, 0, 1));
  return p;
}

HistOptions dso_sym() {
  HistOptions o;
  o.keys = {SortKey::kDso, SortKey::kSym};
  return o;
}

// The sorted entries' functions, with their self and children periods.
struct Row {
  std::string function;
  std::uint64_t self;
  std::uint64_t children;
  bool operator==(const Row&) const = default;
};
std::vector<Row> rows(const Hists& h, bool by_children) {
  std::vector<Row> out;
  for (const auto* e : sorted_entries(h, HistOrder{by_children, {}}))
    out.push_back({h.profile->frames[e->frame].function, e->values.self, e->values.children});
  return out;
}

TEST(Hists, SelfPeriodsWithoutChildren) {
  const Profile p = make_profile();
  HistOptions o = dso_sym();
  o.children = false;
  const Hists h = build_hists(p, o, 0);
  EXPECT_FALSE(h.children);
  ASSERT_EQ(h.entries.size(), 3u);
  // Equal self periods: by DSO name ("[kernel.kallsyms]" before "app"), as perf.
  EXPECT_EQ(rows(h, false),
            (std::vector<Row>{{"b", 300, 300}, {"irq", 100, 100}, {"a", 100, 100}}));
  EXPECT_EQ(h.kept_period, std::vector<std::uint64_t>{500});
  EXPECT_EQ(h.kept_samples, std::vector<std::uint64_t>{5});
  EXPECT_EQ(h.seen_period, std::vector<std::uint64_t>{500});
}

TEST(Hists, ChildrenCountEachEntryOncePerSample) {
  const Profile p = make_profile();
  const Hists h = build_hists(p, dso_sym(), 0);
  EXPECT_TRUE(h.children);
  // main is on every stack; a twice on the recursive one but counted once.
  EXPECT_EQ(
      rows(h, true),
      (std::vector<Row>{{"main", 0, 500}, {"a", 100, 400}, {"b", 300, 300}, {"irq", 100, 100}}));
  // Ordered by self when the Children column is not the sort.
  EXPECT_EQ(rows(h, false).front(), (Row{"b", 300, 300}));
}

TEST(Hists, CommKeySeparatesThreadsAndTheThreadFilterMarksEntries) {
  const Profile p = make_profile();
  HistOptions o;
  o.keys = {SortKey::kComm};
  o.children = false;
  o.thread_filter.comms = {"app"};
  const Hists h = build_hists(p, o, 0);
  ASSERT_EQ(h.entries.size(), 2u);
  EXPECT_FALSE(h.entries[0].filtered);
  EXPECT_EQ(h.entries[0].values.self, 400u);
  EXPECT_TRUE(h.entries[1].filtered);  // "other"
  EXPECT_EQ(h.kept_period, std::vector<std::uint64_t>{400});
  EXPECT_EQ(sorted_entries(h, {}).size(), 1u);
}

TEST(Hists, DsoFilterKeepsTheVerdictOfTheCreatingSample) {
  const Profile p = make_profile();
  HistOptions o = dso_sym();
  o.dsos = {"libb.so"};
  const Hists h = build_hists(p, o, 0);
  // Only b's samples pass; their callers' entries (main, a) were created by them, and a
  // sample whose leaf (a) is such an entry counts as kept (perf's he->filtered).
  std::vector<std::string> shown;
  for (const auto* e : sorted_entries(h, {true, {}})) shown.push_back(p.frames[e->frame].function);
  EXPECT_EQ(shown, (std::vector<std::string>{"main", "a", "b"}));
  EXPECT_EQ(h.kept_period, std::vector<std::uint64_t>{400});
}

TEST(Hists, HideUnresolvedLeavesTheTotals) {
  Profile p = make_profile();
  p.frames[3].function = "[unknown]";
  HistOptions o = dso_sym();
  o.hide_unresolved = true;
  const Hists h = build_hists(p, o, 0);
  EXPECT_EQ(h.hidden_period, 100u);
  EXPECT_EQ(h.hidden_samples, 1u);
  for (const auto& e : h.entries) EXPECT_NE(e.frame, 3u);
}

TEST(Hists, GroupMembersHaveTheirOwnValues) {
  Profile p = make_profile();
  Event second = p.events[0];
  second.name = "task-clock";
  p.events.push_back(second);
  p.samples.push_back(sample(0, 70, 1));  // task-clock in b
  p.samples.push_back(sample(2, 30, 1));  // and in irq
  HistOptions o = dso_sym();
  o.children = false;
  const Hists h = build_hists(p, o, 0, 2);
  ASSERT_EQ(h.members, 2u);
  const HistEntry* b = nullptr;
  for (const auto& e : h.entries)
    if (p.frames[e.frame].function == "b") b = &e;
  ASSERT_NE(b, nullptr);
  EXPECT_EQ(b->member(0).self, 300u);
  EXPECT_EQ(b->member(0).samples, 3u);
  EXPECT_EQ(b->member(1).self, 70u);
  EXPECT_EQ(b->member(1).samples, 1u);
  EXPECT_EQ(h.seen_period, (std::vector<std::uint64_t>{500, 100}));
  // Equal leader values (a, irq: 100): the member's values order them.
  const auto sorted = sorted_entries(h, {});
  ASSERT_EQ(sorted.size(), 3u);
  EXPECT_EQ(p.frames[sorted[1]->frame].function, "irq");
}

TEST(Hists, CallTreeNodeValuesCallerOrder) {
  const Profile p = make_profile();
  const Hists h = build_hists(p, dso_sym(), 0);
  // main's entry: every chain from main on (caller order with children).
  const HistEntry* main_entry = nullptr;
  for (const auto& e : h.entries)
    if (p.frames[e.frame].function == "main") main_entry = &e;
  ASSERT_NE(main_entry, nullptr);
  const CallNode root = call_tree(h, *main_entry);
  EXPECT_EQ(root.period, 500u);
  ASSERT_EQ(root.kids.size(), 1u);
  const CallNode& m = root.kids[0];
  EXPECT_EQ(m.name, "main");
  EXPECT_EQ(m.period, 500u);
  ASSERT_EQ(m.kids.size(), 2u);  // a (400) before irq (100)
  EXPECT_EQ(m.kids[0].name, "a");
  EXPECT_EQ(m.kids[0].period, 400u);
  EXPECT_EQ(m.kids[1].name, "irq");
  EXPECT_EQ(m.kids[1].hit, 100u);
  ASSERT_EQ(m.kids[0].kids.size(), 2u);  // b (300), then a (recursion, 100)
  EXPECT_EQ(m.kids[0].kids[0].name, "b");
  EXPECT_EQ(m.kids[0].kids[0].hit, 300u);
  EXPECT_EQ(m.kids[0].kids[1].name, "a");
  EXPECT_EQ(m.kids[0].kids[1].hit, 100u);
}

TEST(Hists, CallTreeCalleeOrderWithoutChildren) {
  const Profile p = make_profile();
  HistOptions o = dso_sym();
  o.children = false;
  const Hists h = build_hists(p, o, 0);
  const HistEntry& b = h.entries[0];  // created by the first sample
  ASSERT_EQ(p.frames[b.frame].function, "b");
  const CallNode root = call_tree(h, b);
  ASSERT_EQ(root.kids.size(), 1u);
  EXPECT_EQ(root.kids[0].name, "b");
  ASSERT_EQ(root.kids[0].kids.size(), 1u);
  EXPECT_EQ(root.kids[0].kids[0].name, "a");
  ASSERT_EQ(root.kids[0].kids[0].kids.size(), 1u);
  EXPECT_EQ(root.kids[0].kids[0].kids[0].name, "main");
  EXPECT_EQ(root.kids[0].kids[0].kids[0].hit, 300u);
}

TEST(Hists, MaxStackCutsTheChainsNotTheLeaf) {
  const Profile p = make_profile();
  HistOptions o = dso_sym();
  o.max_stack = 1;  // caller order with children: only the root frame counts
  const Hists h = build_hists(p, o, 0);
  for (const auto& e : h.entries) {
    const auto& fn = p.frames[e.frame].function;
    if (fn == "a") {
      EXPECT_EQ(e.values.children, 100u);  // its own leaf sample only
    } else if (fn == "main") {
      EXPECT_EQ(e.values.children, 500u);
    }
  }
}

TEST(Hists, TypedKeysKeepOverloadsApart) {
  Profile p = make_profile();
  // Two symbols named "b" at different starts in libb.so: two entries.
  Frame other = p.frames[2];
  other.map_address = 0x200;
  p.frames[2].map_address = 0x100;
  p.frames.push_back(other);
  p.stacks.push_back({0, 1, 4});
  p.samples.push_back(sample(3, 50));
  HistOptions o = dso_sym();
  o.children = false;
  const Hists h = build_hists(p, o, 0);
  std::size_t bs = 0;
  for (const auto& e : h.entries) bs += p.frames[e.frame].function == "b" ? 1u : 0u;
  EXPECT_EQ(bs, 2u);
}

TEST(Hists, SortKeyNames) {
  EXPECT_EQ(sort_key_named("srcline"), SortKey::kSrcline);
  EXPECT_EQ(sort_key_name(SortKey::kSocket), "socket");
  EXPECT_FALSE(sort_key_named("overhead"));
}

TEST(Hists, DiffPairsEntriesOfTwoRecordings) {
  const Profile old_p = make_profile();
  Profile new_p = make_profile();
  new_p.samples.push_back(sample(0, 100));  // b grows to 400 of 600
  new_p.events[0].total_period = 600;
  new_p.samples.erase(new_p.samples.begin() + 4);  // irq is gone
  new_p.events[0].total_period = 500;
  auto sections = report::diff_profiles(old_p, new_p);
  ASSERT_TRUE(sections) << sections.error().message();
  ASSERT_EQ(sections->size(), 1u);
  const auto& s = (*sections)[0];
  EXPECT_EQ(s.old_total, 500u);
  EXPECT_EQ(s.new_total, 500u);
  ASSERT_EQ(s.rows.size(), 3u);
  // b: 60% -> 80% (+20), a unchanged, irq only in OLD (last).
  EXPECT_EQ(s.rows[0].symbol, "b");
  EXPECT_DOUBLE_EQ(*s.rows[0].baseline, 60.0);
  EXPECT_DOUBLE_EQ(*s.rows[0].delta, 20.0);
  EXPECT_EQ(s.rows[0].old_period, 300u);
  EXPECT_EQ(s.rows[0].new_period, 400u);
  EXPECT_EQ(*s.rows[0].wdiff, 100);
  EXPECT_EQ(s.rows[1].symbol, "a");
  EXPECT_DOUBLE_EQ(*s.rows[1].delta, 0.0);
  EXPECT_DOUBLE_EQ(*s.rows[1].ratio, 1.0);
  EXPECT_EQ(s.rows[2].symbol, "irq");
  EXPECT_FALSE(s.rows[2].delta);
}

// Adds a sample of `period` whose leaf is an unresolved frame of `dso` at map-relative
// `map_address`, instruction address `address` (callers: make_profile()'s frame 0).
void add_unresolved(Profile& p, const std::string& dso, std::uint64_t map_address,
                    std::uint64_t address, std::uint64_t period) {
  Frame u = frame("[unknown]", dso, FrameKind::kUser, 1);
  u.map_address = map_address;
  u.address = address;
  p.frames.push_back(u);
  p.stacks.push_back({0, static_cast<std::uint32_t>(p.frames.size() - 1)});
  p.samples.push_back(sample(static_cast<std::uint32_t>(p.stacks.size() - 1), period));
  p.events[0].total_period += period;
}

TEST(Hists, DiffCollapsesADsosUnresolvedAddresses) {
  Profile p = make_profile();
  add_unresolved(p, "libb.so", 0x30, 0x5030, 100);
  add_unresolved(p, "libb.so", 0x20, 0x5020, 100);
  p.events[0].total_period = 700;
  auto sections = report::diff_profiles(p, p);
  ASSERT_TRUE(sections);
  std::size_t unresolved_rows = 0;
  for (const auto& r : (*sections)[0].rows) {
    if (!r.unresolved) continue;
    ++unresolved_rows;
    EXPECT_EQ(r.old_period, 200u);
    EXPECT_EQ(r.symbol, "0x0000000000000020");  // the lowest address
  }
  EXPECT_EQ(unresolved_rows, 1u);
}

TEST(Hists, DiffWithoutTheDsoKeyCollapsesEveryDsosUnresolvedAddresses) {
  // perf's symbol key compares unresolved entries by address alone: without -s dso, one row
  // for the unresolved code of every DSO, shown by the lowest instruction address.
  Profile p = make_profile();
  add_unresolved(p, "libb.so", 0x20, 0x7000, 100);
  add_unresolved(p, "dash", 0x90, 0x6090, 50);
  DiffOptions o;
  o.sort_keys = {"sym"};
  auto sections = report::diff_profiles(p, p, o);
  ASSERT_TRUE(sections);
  std::size_t unresolved_rows = 0;
  for (const auto& r : (*sections)[0].rows) {
    if (!r.unresolved) continue;
    ++unresolved_rows;
    EXPECT_EQ(r.old_period, 150u);
    EXPECT_EQ(r.symbol, "0x0000000000000090");  // dash's: the lowest instruction address
  }
  EXPECT_EQ(unresolved_rows, 1u);
  // With the dso key, one row per DSO.
  o.sort_keys = {"dso", "sym"};
  sections = report::diff_profiles(p, p, o);
  ASSERT_TRUE(sections);
  unresolved_rows = 0;
  for (const auto& r : (*sections)[0].rows) unresolved_rows += r.unresolved ? 1 : 0;
  EXPECT_EQ(unresolved_rows, 2u);
}

}  // namespace
}  // namespace perfx::profile
