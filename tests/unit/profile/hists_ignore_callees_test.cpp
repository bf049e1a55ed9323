// perf 6.1's --ignore-callees (profile::ignore_callees_cuts() and build_hists()): the last
// frame of the callchain, in display order, whose symbol matches the regex becomes the
// sample's own entry; callee order keeps it and its callers, caller order (children) it
// and its callees. DWARF-unwound, inline and unresolved frames are never matched.
#include <gtest/gtest.h>

#include <algorithm>
#include <string>
#include <tuple>
#include <vector>

#include "profile/hists.hpp"

namespace perfx::profile {
namespace {

// start -> libc_main -> main -> work -> leaf, 4 samples; start -> main2 -> leaf, 1 sample.
Profile make_profile(bool unwound = false) {
  Profile p;
  // User frames of "app", unwound from a stack copy or read from the callchain.
  for (const char* fn : {"start", "libc_main", "main", "work", "leaf", "main2"}) {
    Frame& f = p.frames.emplace_back();
    std::tie(f.function, f.dso, f.kind, f.mapping, f.unwound) =
        std::tuple(fn, "app", FrameKind::kUser, 0, unwound);
  }
  p.stacks = {{0, 1, 2, 3, 4}, {0, 5, 4}};
  p.threads = {{10, 10, "app"}};
  Event ev{"cpu-clock", "nanoseconds"};
  ev.has_callchain = true;
  ev.total_samples = 5;
  ev.total_period = 500;
  p.events = {ev};
  for (int i = 0; i < 4; ++i) p.samples.push_back(Sample{.stack = 0, .period = 100});
  p.samples.push_back(Sample{.stack = 1, .period = 100});
  return p;
}

// The sorted entries as "function self/children".
std::vector<std::string> rows(const Hists& h) {
  std::vector<std::string> out;
  for (const auto* e : sorted_entries(h, HistOrder{h.children, {}}))
    out.push_back(h.profile->frames[e->frame].function + " " + std::to_string(e->values.self) +
                  "/" + std::to_string(e->values.children));
  return out;
}

// The names along the first branch of a call graph.
std::vector<std::string> first_branch(const CallNode& root) {
  std::vector<std::string> names;
  for (const CallNode* n = &root; !n->kids.empty(); n = &n->kids.front())
    names.push_back(n->kids.front().name);
  return names;
}

HistOptions options(std::string regex, bool children, std::optional<bool> caller = {}) {
  HistOptions o;
  o.keys = {SortKey::kSym};
  o.children = children;
  o.caller_order = caller;
  o.ignore_callees = std::move(regex);
  return o;
}

TEST(IgnoreCallees, CalleeOrderKeepsTheOutermostMatchAndItsCallers) {
  const Profile p = make_profile();
  // Unanchored, as perf's regexec(): "main" matches libc_main too, the last one walked
  // from the leaf up.
  const Hists h = build_hists(p, options("main", false), 0);
  ASSERT_EQ(h.cuts.size(), 2u);
  EXPECT_EQ(h.cuts[0], (StackCut{0, 2, 1}));  // start, libc_main
  EXPECT_EQ(h.cuts[1], (StackCut{0, 2, 1}));  // start, main2
  EXPECT_EQ(rows(h), (std::vector<std::string>{"libc_main 400/400", "main2 100/100"}));
  EXPECT_EQ(shown_range(h, 0), (std::pair<std::size_t, std::size_t>{0, 2}));
}

TEST(IgnoreCallees, CallerOrderKeepsTheInnermostMatchAndItsCallees) {
  const Profile p = make_profile();
  const Hists h = build_hists(p, options("main", true), 0);
  EXPECT_EQ(h.cuts[0], (StackCut{2, 5, 2}));  // main, work, leaf: start is forgotten
  // main is the samples' own entry; its callees keep children; the callers are gone.
  EXPECT_EQ(h.cuts[1], (StackCut{1, 3, 1}));  // main2, leaf
  EXPECT_EQ(rows(h), (std::vector<std::string>{"leaf 0/500", "main 400/400", "work 0/400",
                                               "main2 100/100"}));
  const auto* main_entry = &*std::find_if(h.entries.begin(), h.entries.end(), [&](auto& e) {
    return p.frames[e.frame].function == "main";
  });
  EXPECT_EQ(first_branch(call_tree(h, *main_entry)),
            (std::vector<std::string>{"main", "work", "leaf"}));
}

TEST(IgnoreCallees, ChildrenWithCalleeOrderCutsLikeNoChildren) {
  const Profile p = make_profile();
  const Hists h = build_hists(p, options("^main$", true, false), 0);
  EXPECT_EQ(h.cuts[0], (StackCut{0, 3, 2}));
  EXPECT_EQ(h.cuts[1].self, StackCut::kNoCut);  // main2 does not match ^main$
  // (Equal children in callee order: the shorter chain first, perf's __hpp__sort_acc().)
  EXPECT_EQ(rows(h), (std::vector<std::string>{"start 0/500", "libc_main 0/400", "main 400/400",
                                               "main2 0/100", "leaf 100/100"}));
}

TEST(IgnoreCallees, UnwoundFramesNeverMatch) {
  // perf's unwind_entry() appends DWARF-unwound frames without looking at the regex.
  const Profile p = make_profile(true);
  const Hists h = build_hists(p, options("main", true), 0);
  EXPECT_TRUE(std::all_of(h.cuts.begin(), h.cuts.end(),
                          [](const StackCut& c) { return c.self == StackCut::kNoCut; }));
  EXPECT_EQ(rows(h).front(), "leaf 500/500");
  EXPECT_EQ(rows(h).size(), 6u);
}

TEST(IgnoreCallees, AParentFrameIsNotMatched) {
  // perf: `if (parent key && !parent && parent regex matches) parent = sym; else if
  // (ignore-callees matches) cut`: the first parent match is not a cut.
  const Profile p = make_profile();
  HistOptions o = options("main", false);
  o.keys = {SortKey::kParent, SortKey::kSym};
  o.parent_regex = "libc_main";
  const Hists h = build_hists(p, o, 0);
  EXPECT_EQ(h.cuts[0], (StackCut{0, 3, 2}));  // libc_main is the parent: main is the cut
}

TEST(IgnoreCallees, NoRegexNoCuts) {
  const Profile p = make_profile();
  const Hists h = build_hists(p, options("", true), 0);
  EXPECT_TRUE(h.cuts.empty());
  EXPECT_EQ(rows(h).size(), 6u);
}

}  // namespace
}  // namespace perfx::profile
