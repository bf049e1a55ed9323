// perf report layout from a hand-built Profile: children/self accumulation (each entry
// once per sample, even with recursion), percentages of the event total, sort keys,
// tie order, filters, -g folded.
#include <gtest/gtest.h>

#include <sstream>
#include <vector>

#include "report/report_table.hpp"

namespace perfx::report {
namespace {

profile::Frame frame(std::string fn, std::string dso, profile::FrameKind kind) {
  profile::Frame f;
  f.function = std::move(fn);
  f.dso = std::move(dso);
  f.kind = kind;
  return f;
}

// A sample of thread 0, event 0.
profile::Sample sample(std::uint32_t stack, std::uint16_t cpu, std::uint64_t period,
                       std::uint64_t time_ns = 0) {
  profile::Sample s;
  s.stack = stack;
  s.cpu = cpu;
  s.period = period;
  s.time_ns = time_ns;
  return s;
}

// One thread (app, 10) and one cpu-clock event with callchains, `samples` x 100 ns.
profile::Profile app_profile(std::vector<profile::Frame> frames,
                             std::vector<std::vector<std::uint32_t>> stacks,
                             std::uint64_t samples) {
  profile::Profile p;
  p.frames = std::move(frames);
  p.stacks = std::move(stacks);
  p.threads = {{10, 10, "app"}};
  profile::Event ev{"cpu-clock", "nanoseconds"};
  ev.has_callchain = true;
  ev.has_cpu = true;
  ev.total_samples = samples;
  ev.total_period = samples * 100;
  p.events = {ev};
  return p;
}

// main -> a -> b (leaf) x3 samples, main -> a -> a (recursion, leaf a) x1, kernel leaf x1
profile::Profile make_profile() {
  profile::Profile p = app_profile({frame("main", "app", profile::FrameKind::kUser),
                                    frame("a", "app", profile::FrameKind::kUser),
                                    frame("b", "libb.so", profile::FrameKind::kUser),
                                    frame("irq", "[kernel.kallsyms]", profile::FrameKind::kKernel)},
                                   {{0, 1, 2}, {0, 1, 1}, {0, 3}}, 5);
  for (int i = 0; i < 3; ++i) p.samples.push_back(sample(0, 0, 100));
  p.samples.push_back(sample(1, 1, 100));
  p.samples.push_back(sample(2, 0, 100));
  return p;
}

std::string run(const ReportOptions& o, const profile::Profile& p = make_profile()) {
  std::ostringstream out;
  auto ok = write_report(out, p, o);
  EXPECT_TRUE(ok.has_value());
  return out.str();
}

TEST(ReportTable, NoChildrenSelfPercentages) {
  ReportOptions o;
  o.children = false;
  o.graph = GraphMode::kNone;
  o.sort = {"dso", "sym"};
  const std::string s = run(o);
  EXPECT_NE(s.find("# Samples: 5  of event 'cpu-clock'"), std::string::npos) << s;
  EXPECT_NE(s.find("# Event count (approx.): 500"), std::string::npos);
  EXPECT_NE(s.find("# Overhead  Shared Object      Symbol"), std::string::npos) << s;
  EXPECT_NE(s.find("    60.00%  libb.so            [.] b\n"), std::string::npos) << s;
  EXPECT_NE(s.find("    20.00%  app                [.] a\n"), std::string::npos) << s;
  EXPECT_NE(s.find("    20.00%  [kernel.kallsyms]  [k] irq\n"), std::string::npos) << s;
  // Ties sort by the keys' names ascending: "[kernel.kallsyms]" < "app".
  EXPECT_LT(s.find("[k] irq"), s.find("[.] a\n"));
  EXPECT_EQ(s.find("main"), std::string::npos);
}

TEST(ReportTable, ChildrenCountEachEntryOncePerSample) {
  ReportOptions o;
  o.graph = GraphMode::kNone;
  o.sort = {"sym"};
  const std::string s = run(o);
  EXPECT_NE(s.find("# Children      Self  Symbol"), std::string::npos) << s;
  EXPECT_NE(s.find("   100.00%     0.00%  [.] main\n"), std::string::npos) << s;
  // a: on 4 stacks (the recursive one counted once), self 1.
  EXPECT_NE(s.find("    80.00%    20.00%  [.] a\n"), std::string::npos) << s;
  EXPECT_NE(s.find("    60.00%    60.00%  [.] b\n"), std::string::npos) << s;
}

TEST(ReportTable, SampleCountsPercentLimitAndFilters) {
  ReportOptions o;
  o.children = false;
  o.graph = GraphMode::kNone;
  o.sort = {"comm", "pid", "cpu"};
  o.show_nr_samples = true;
  const std::string s = run(o);
  EXPECT_NE(s.find("# Overhead       Samples  Command      Pid:Command  CPU"), std::string::npos)
      << s;
  EXPECT_NE(s.find("    80.00%             4  app           10:app      000"), std::string::npos)
      << s;
  EXPECT_NE(s.find("    20.00%             1  app           10:app      001"), std::string::npos)
      << s;
  o.percent_limit = 50;
  const std::string limited = run(o);
  EXPECT_EQ(limited.find("20.00%"), std::string::npos);
  ReportOptions f;
  f.children = false;
  f.graph = GraphMode::kNone;
  f.sort = {"sym"};
  f.dsos = {"libb.so"};
  const std::string filtered = run(f);
  EXPECT_NE(filtered.find("[.] b"), std::string::npos);
  EXPECT_EQ(filtered.find("[.] a"), std::string::npos);
}

// perf 6.1's "pid" key is the thread: one row per tid, with the thread's last comm.
TEST(ReportTable, PidKeyIsPerThreadLikePerf) {
  auto p = make_profile();
  p.threads = {{10, 10, "app"}, {10, 11, "wk"}, {10, 11, "wk2"}};
  p.samples[0].thread = 1;
  p.samples[1].thread = 2;
  p.samples[2].thread = 2;
  ReportOptions o;
  o.children = false;
  o.graph = GraphMode::kNone;
  o.sort = {"pid"};
  const std::string s = run(o, p);
  EXPECT_NE(s.find("# Overhead      Pid:Command\n"), std::string::npos) << s;
  EXPECT_NE(s.find("    60.00%       11:wk2    \n"), std::string::npos) << s;
  EXPECT_NE(s.find("    40.00%       10:app    \n"), std::string::npos) << s;
}

// perf prints sample->cpu with "%*.*d": -1 ("-001") when the event has no CPU field.
TEST(ReportTable, CpuKeyWithoutCpuFieldIsMinusOne) {
  auto p = make_profile();
  p.events[0].has_cpu = false;
  ReportOptions o;
  o.children = false;
  o.graph = GraphMode::kNone;
  o.sort = {"cpu"};
  const std::string s = run(o, p);
  EXPECT_NE(s.find("   100.00%  -001\n"), std::string::npos) << s;
}

TEST(ReportTable, FoldedCallchainsCalleeFirst) {
  ReportOptions o;
  o.children = false;
  o.graph = GraphMode::kFolded;
  o.sort = {"sym"};
  const std::string s = run(o);
  EXPECT_NE(s.find("60.00% b;a;main\n"), std::string::npos) << s;
  EXPECT_NE(s.find("20.00% a;a;main\n"), std::string::npos) << s;
}

// b sampled at two addresses (two frames, one function), a chain ending in a, and a
// chain below the threshold (c, 0.18%).
profile::Profile merge_profile() {
  profile::Profile p;
  p.frames = {
      frame("main", "app", profile::FrameKind::kUser), frame("a", "app", profile::FrameKind::kUser),
      frame("b", "app", profile::FrameKind::kUser), frame("b", "app", profile::FrameKind::kUser),
      frame("c", "app", profile::FrameKind::kUser)};
  // Two addresses in one function b (its symbol starts at 0x10).
  p.frames[2].address = p.frames[2].map_address = 0x10;
  p.frames[3].address = p.frames[3].map_address = 0x20;
  p.frames[3].symbol_offset = 0x10;
  p.stacks = {{0, 1, 2}, {0, 1, 3}, {0, 1, 4}, {0, 1}};
  p.threads = {{10, 10, "app"}};
  profile::Event ev{"cpu-clock", "nanoseconds"};
  ev.has_callchain = true;
  ev.has_cpu = true;
  ev.total_samples = 7;
  ev.total_period = 551;
  p.events = {ev};
  for (int i = 0; i < 3; ++i) p.samples.push_back(sample(0, 0, 100));
  for (int i = 0; i < 2; ++i) p.samples.push_back(sample(1, 0, 100));
  p.samples.push_back(sample(2, 0, 1));
  p.samples.push_back(sample(3, 0, 50));
  return p;
}

// --no-children, by symbol, with this callchain layout.
ReportOptions self_by_sym(GraphMode graph) {
  ReportOptions o;
  o.children = false;
  o.graph = graph;
  o.sort = {"sym"};
  return o;
}

// perf's sym key is the symbol, not its name (sort__sym_cmp() compares starts): two C++
// overloads print alike without their parameters and are two rows.
TEST(ReportTable, SymbolsOfTheSameNameAreRowsOfTheirOwnLikePerf) {
  auto p = merge_profile();
  p.frames[3].symbol_offset = 0;  // b at 0x20 is another symbol b
  const std::string text = run(self_by_sym(GraphMode::kNone), p);
  EXPECT_NE(text.find("    54.45%  [.] b\n    36.30%  [.] b\n"), std::string::npos) << text;
}

// perf's callchain threshold is a whole number of periods: total * percent / 100 cut to
// an integer (551 * 9.1% = 50.1 -> 50), so a chain of 9.07% passes a 9.1% threshold.
TEST(ReportTable, CallchainThresholdIsCutToWholePeriodsLikePerf) {
  ReportOptions o = self_by_sym(GraphMode::kFolded);
  o.graph_threshold = 9.1;
  EXPECT_NE(run(o, merge_profile()).find("\n9.07% a;main\n"), std::string::npos);
  o.graph_threshold = 9.2;  // 50.7 -> 50: still shown
  EXPECT_NE(run(o, merge_profile()).find("\n9.07% a;main\n"), std::string::npos);
  o.graph_threshold = 9.3;  // 51.2 -> 51
  EXPECT_EQ(run(o, merge_profile()).find("\n9.07% a;main\n"), std::string::npos);
}

// perf merges callchains by function (not by address or stack); folded prints the hits
// of the chains ending at a node, one line each, flat the node's cumulative period and a
// blank line after each chain; both hide chains below the threshold.
TEST(ReportTable, FlatAndFoldedMergeByFunctionAndHonourThreshold) {
  ReportOptions o;
  o.children = false;
  o.graph = GraphMode::kFolded;
  o.sort = {"sym"};
  const std::string self = run(o, merge_profile());
  EXPECT_NE(self.find("    90.74%  [.] b\n90.74% b;a;main\n     9.07%"), std::string::npos) << self;
  EXPECT_EQ(self.find("c;a;main"), std::string::npos) << self;

  o.children = true;
  const std::string folded = run(o, merge_profile());
  EXPECT_NE(folded.find("90.74% main;a;b\n9.07% main;a\n   100.00%"), std::string::npos) << folded;
  EXPECT_EQ(folded.find(";c"), std::string::npos) << folded;

  o.graph = GraphMode::kFlat;
  const std::string flat = run(o, merge_profile());
  EXPECT_NE(flat.find("           90.74%\n                main\n                a\n"
                      "                b\n\n           100.00%\n                main\n"
                      "                a\n\n"),
            std::string::npos)
      << flat;
  EXPECT_EQ(flat.find("                c\n"), std::string::npos) << flat;
}

// -g callee with children: each entry's chain is the entry and its callers (perf's
// cursor from that frame on, leaf first); the leaf gets the whole chain, a recursive
// function its occurrence nearest the leaf.
TEST(ReportTable, CalleeOrderWithChildrenShowsCallers) {
  ReportOptions o;
  o.children = true;
  o.caller_order = false;
  o.graph = GraphMode::kFolded;
  o.sort = {"sym"};
  const std::string s = run(o);
  EXPECT_NE(s.find("[.] main\n100.00% main\n    80.00%"), std::string::npos) << s;
  EXPECT_NE(s.find("[.] a\n60.00% a;main\n20.00% a;a;main\n    60.00%"), std::string::npos) << s;
  EXPECT_NE(s.find("[.] b\n60.00% b;a;main\n    20.00%"), std::string::npos) << s;
}

TEST(ReportTable, GraphBranches) {
  ReportOptions o;
  o.graph = GraphMode::kGraph;
  o.sort = {"sym"};
  const std::string s = run(o);
  // main's children in caller order: a (80%) then irq (20%).
  EXPECT_NE(s.find("            ---main\n"), std::string::npos) << s;
  EXPECT_NE(s.find("|--80.00%--a\n"), std::string::npos) << s;
  EXPECT_NE(s.find(" --20.00%--irq\n"), std::string::npos) << s;
}

// perf filters samples by their leaf; an entry keeps the verdict of the sample that
// created it (samples are processed in order: the first one has leaf b).
TEST(ReportTable, SymbolFilterKeepsTheVerdictOfTheCreatingSample) {
  ReportOptions o;
  o.graph = GraphMode::kNone;
  o.sort = {"sym"};
  o.symbols = {"a", "main"};
  std::string s = run(o);
  EXPECT_EQ(s.find("[.] main"), std::string::npos) << s;
  EXPECT_EQ(s.find("[.] a"), std::string::npos) << s;
  o.symbols = {"b", "main"};
  s = run(o);
  EXPECT_NE(s.find("   100.00%     0.00%  [.] main\n"), std::string::npos) << s;
  EXPECT_NE(s.find("    80.00%    20.00%  [.] a\n"), std::string::npos) << s;
  EXPECT_EQ(s.find("irq"), std::string::npos) << s;
  // One value: perf's "# symbol: b" and no Symbol column; relative = of b's samples.
  o.symbols = {"b"};
  o.sort = {"dso", "sym"};
  o.children = false;
  o.relative_percentage = true;
  s = run(o);
  EXPECT_NE(s.find("# symbol: b\n"), std::string::npos) << s;
  EXPECT_NE(s.find("# Samples: 3  of event"), std::string::npos) << s;
  EXPECT_NE(s.find("# Overhead  Shared Object\n"), std::string::npos) << s;
  EXPECT_NE(s.find("   100.00%  libb.so      \n"), std::string::npos) << s;
}

TEST(ReportTable, RelativeTotalsCountTheSamplesOfKeptEntries) {
  // perf counts a sample as kept (--percentage relative) when its leaf's entry passed the
  // filter, and an entry keeps the verdict of the sample that made it. Here a kernel-leaf
  // sample through `alpha` comes first: it makes alpha's (children) entry, filtered by
  // --dsos app, so alpha's own samples later count nowhere. (Seen in interop
  // report_filters_vs_perf under load: perf 420 samples, sym_outer 100%; perfx counted
  // sym_alpha's 501 self samples whose entry an earlier kernel-leaf sample had made.)
  profile::Profile p = app_profile({frame("main", "app", profile::FrameKind::kUser),
                                    frame("outer", "app", profile::FrameKind::kUser),
                                    frame("alpha", "app", profile::FrameKind::kUser),
                                    frame("irq", "[kernel.kallsyms]", profile::FrameKind::kKernel)},
                                   {{0, 1}, {0, 2, 3}, {0, 2}}, 6);
  p.samples = {sample(0, 0, 100, 1), sample(0, 0, 100, 2), sample(1, 0, 100, 3),
               sample(2, 0, 100, 4), sample(2, 0, 100, 5), sample(2, 0, 100, 6)};
  ReportOptions o;
  o.graph = GraphMode::kNone;
  o.sort = {"sym"};
  o.dsos = {"app"};
  o.relative_percentage = true;
  const std::string s = run(o, p);
  EXPECT_NE(s.find("# Samples: 2  of event"), std::string::npos) << s;
  EXPECT_NE(s.find("# Event count (approx.): 200\n"), std::string::npos) << s;
  EXPECT_NE(s.find("   100.00%   100.00%  [.] outer\n"), std::string::npos) << s;
  EXPECT_EQ(s.find("alpha"), std::string::npos) << s;
}

TEST(ReportTable, FieldsQuietMaxStackAndSortOverhead) {
  ReportOptions o;
  o.children = false;
  o.graph = GraphMode::kNone;
  o.fields = {"sample", "period", "sym"};
  o.sort = sort_keys_of_fields(o.fields);
  std::string s = run(o);
  EXPECT_NE(s.find("#      Samples        Period  Symbol"), std::string::npos) << s;
  EXPECT_NE(s.find("             3           300  [.] b\n"), std::string::npos) << s;
  EXPECT_FALSE(validate_fields({"sym", "children"}).has_value());
  o.fields.clear();
  o.sort = {"overhead"};
  o.quiet = true;
  s = run(o);
  EXPECT_EQ(s, "   100.00%\n\n\n");
  // --max-stack 1 with children in caller order: only the root counts, and the leaf.
  ReportOptions m;
  m.graph = GraphMode::kNone;
  m.sort = {"sym"};
  m.max_stack = 1;
  s = run(m);
  EXPECT_NE(s.find("   100.00%     0.00%  [.] main\n"), std::string::npos) << s;
  EXPECT_NE(s.find("    20.00%    20.00%  [.] a\n"), std::string::npos) << s;
}

TEST(ReportTable, TimeKeyBucketsSamplesByTheQuantum) {
  // make_profile()'s stacks at 1.05 s, 1.12 s, 1.19 s (x2) and 1.31 s.
  profile::Profile p = make_profile();
  const std::uint64_t times[] = {1'050'000'000, 1'120'000'000, 1'190'000'000, 1'190'000'000,
                                 1'310'000'000};
  for (std::size_t i = 0; i < p.samples.size(); ++i) p.samples[i].time_ns = times[i];
  ReportOptions o;
  o.children = false;
  o.graph = GraphMode::kNone;
  o.sort = {"time"};
  std::string s = run(o, p);
  // The header is 12 wide; a last Time column is perf's "%-.*s": cut to 12, not padded.
  EXPECT_NE(s.find("# Overhead  Time        \n"), std::string::npos) << s;
  EXPECT_NE(s.find("    60.00%  1.100000\n"), std::string::npos) << s;
  EXPECT_NE(s.find("    20.00%  1.000000\n"), std::string::npos) << s;
  EXPECT_NE(s.find("    20.00%  1.300000\n"), std::string::npos) << s;
  EXPECT_LT(s.find("1.000000"), s.find("1.300000")) << "equal entries: earlier first";
  // Not last, it is padded to the column like every other one.
  o.sort = {"time", "comm"};
  s = run(o, p);
  EXPECT_NE(s.find("    60.00%  1.100000      app    \n"), std::string::npos) << s;
  o.sort = {"time"};
  o.time_quantum_ns = 1'000'000'000;  // one bucket
  s = run(o, p);
  EXPECT_NE(s.find("   100.00%  1.000000\n"), std::string::npos) << s;
  // 12 characters from 10,000 s on (the column's width: nothing to pad); a time past 12
  // characters (123456.000000) is cut to the column, as perf's "%-.*s".
  for (auto& smp : p.samples) smp.time_ns = 14'809'400'000'000;
  s = run(o, p);
  EXPECT_NE(s.find("   100.00%  14809.000000\n"), std::string::npos) << s;
  for (auto& smp : p.samples) smp.time_ns = 123'456'789'000'000;
  s = run(o, p);
  EXPECT_NE(s.find("   100.00%  123456.00000\n"), std::string::npos) << s;
}

TEST(ReportTable, SortKeysGivenWithFieldsSortFirst) {
  ReportOptions o;
  o.children = false;
  o.graph = GraphMode::kNone;
  o.fields = {"overhead", "dso", "sym"};
  o.sort = {"dso"};
  o.sort_keys_first = true;
  std::string s = run(o);
  // By DSO name first ("[kernel.kallsyms]" < "app" < "libb.so"), whatever the overhead.
  EXPECT_LT(s.find("[k] irq"), s.find("[.] a\n")) << s;
  EXPECT_LT(s.find("[.] a\n"), s.find("[.] b\n")) << s;
  o.sort_keys_first = false;  // overhead first
  s = run(o);
  EXPECT_LT(s.find("[.] b\n"), s.find("[k] irq")) << s;
}

TEST(ReportTable, ParentIsTheFirstMatchingFunctionOfTheCallchain) {
  // make_profile(): main -> a -> b x3, main -> a -> a x1, main -> irq x1.
  ReportOptions o;
  o.children = false;
  o.graph = GraphMode::kNone;
  o.sort = {"parent", "sym"};
  o.parent_regex = "^a$|^m";
  std::string s = run(o);
  EXPECT_NE(s.find("# Overhead  Parent symbol  Symbol"), std::string::npos) << s;
  // Callee order (no children): from the leaf up, so b's parent is a, irq's is main.
  EXPECT_NE(s.find("    60.00%  a              [.] b\n"), std::string::npos) << s;
  EXPECT_NE(s.find("    20.00%  main           [k] irq\n"), std::string::npos) << s;
  o.caller_order = true;  // -G: from the root down
  s = run(o);
  EXPECT_NE(s.find("    60.00%  main           [.] b\n"), std::string::npos) << s;
  o.caller_order.reset();
  o.parent_regex = "^a$";
  o.exclude_other = true;  // -x: irq has no parent; the totals keep it
  s = run(o);
  EXPECT_EQ(s.find("irq"), std::string::npos) << s;
  EXPECT_NE(s.find("    60.00%  a              [.] b\n"), std::string::npos) << s;
  o.exclude_other = false;
  s = run(o);
  EXPECT_NE(s.find("    20.00%  [other]        [k] irq\n"), std::string::npos) << s;
}

TEST(ReportTable, SocketOfTheSampleCpuFromTheTopology) {
  profile::Profile p = make_profile();  // samples on CPUs 0 and 1
  p.cpu_sockets = {0, 1};
  ReportOptions o;
  o.children = false;
  o.graph = GraphMode::kNone;
  o.sort = {"socket"};
  std::string s = run(o, p);
  EXPECT_NE(s.find("# Overhead  Socket\n"), std::string::npos) << s;
  EXPECT_NE(s.find("    80.00%     000\n"), std::string::npos) << s;
  EXPECT_NE(s.find("    20.00%     001\n"), std::string::npos) << s;
  p.cpu_sockets.clear();  // no topology: perf's -1
  s = run(o, p);
  EXPECT_NE(s.find("   100.00%    -001\n"), std::string::npos) << s;
}

TEST(ReportTable, AnEventGroupIsOneSectionWithAValuePerMember) {
  profile::Profile p = make_profile();  // event 0: b 60%, a 20%, irq 20%
  profile::Event second{"task-clock", "nanoseconds"};
  second.total_samples = 2;
  second.total_period = 200;
  p.events.push_back(second);
  auto on_second = [](std::uint32_t stack) {
    profile::Sample s = sample(stack, 0, 100);
    s.event = 1;
    return s;
  };
  p.samples.push_back(on_second(2));  // task-clock: irq 50%, a 50%
  p.samples.push_back(on_second(1));
  p.event_groups = {{"", 0, 2}};
  ReportOptions o;
  o.children = false;
  o.graph = GraphMode::kNone;
  o.sort = {"sym"};
  o.show_nr_samples = true;
  std::string s = run(o, p);
  EXPECT_NE(s.find("# Samples: 7  of events 'anon group { cpu-clock, task-clock }'\n"
                   "# Event count (approx.): 700\n"),
            std::string::npos)
      << s;
  EXPECT_NE(s.find("#         Overhead                   Samples  Symbol"), std::string::npos) << s;
  EXPECT_NE(s.find("    60.00%   0.00%             3           0  [.] b\n"), std::string::npos)
      << s;
  // Equal leaders (20%): the member's value decides; both rows are shown.
  EXPECT_LT(s.find("20.00%  50.00%"), s.find("20.00%  50.00%", s.find("20.00%  50.00%") + 1)) << s;
  o.group = false;  // --no-group: a section per event, the leader's "of events"
  s = run(o, p);
  EXPECT_NE(s.find("of events 'cpu-clock'"), std::string::npos) << s;
  EXPECT_NE(s.find("of event 'task-clock'"), std::string::npos) << s;
}

TEST(ReportTable, BadSortKeyIsAnError) {
  EXPECT_FALSE(validate_sort_keys({"dso", "bogus"}).has_value());
  EXPECT_NE(validate_sort_keys({"bogus"}).error().message().find("bogus"), std::string::npos);
  EXPECT_TRUE(validate_sort_keys({"comm", "pid", "tid", "dso", "sym", "srcline", "srcfile", "cpu"})
                  .has_value());
}

TEST(ReportTable, SrclineText) {
  profile::Frame f = frame("fn", "x", profile::FrameKind::kUser);
  f.symbol_offset = 42;
  EXPECT_EQ(frame_srcline(f), "fn+42");
  f.file = "/src/dir/file.c";
  f.line = 7;
  EXPECT_EQ(frame_srcline(f), "file.c:7");
  EXPECT_EQ(frame_srcline(frame("[unknown]", "x", profile::FrameKind::kUnknown)), "??:0");
}

// perf with GNU addr2line: a function without a line is "??:0" ("??:?" read as file
// "??", line 0); where addr2line names nothing (a PLT entry, a kernel without vmlinux)
// perf falls back to symbol+offset, or to dso[address] without a symbol.
TEST(ReportTable, SrclineWithoutLinesFollowsAddr2line) {
  profile::Frame f = frame("work", "t", profile::FrameKind::kUser);
  f.symbol_offset = 68;
  f.mapping = 0;
  f.addr2line_function = true;
  EXPECT_EQ(frame_srcline(f), "??:0");
  f.addr2line_function = false;  // free@plt: addr2line finds no function in .plt
  EXPECT_EQ(frame_srcline(f), "work+68");
  profile::Frame unresolved = frame("[unknown]", "sleep", profile::FrameKind::kUser);
  unresolved.mapping = 0;
  unresolved.map_address = 0x2afd;
  EXPECT_EQ(frame_srcline(unresolved), "sleep[2afd]");
  unresolved.addr2line_function = true;  // an address after the file's first function
  EXPECT_EQ(frame_srcline(unresolved), "??:0");
}

// perf 6.1 sizes Source:Line by the entries whose line it looked up while adding samples
// (those whose earlier keys had more than one sample), cuts the others to the column, and
// does not pad it as the last column.
TEST(ReportTable, SrclineColumnIsSizedAndCutLikePerf) {
  auto fr = [](std::string fn, std::string file, std::uint32_t line, std::uint64_t addr) {
    profile::Frame f = frame(std::move(fn), "app", profile::FrameKind::kUser);
    f.file = std::move(file);
    f.line = line;
    f.mapping = 0;
    f.map_address = addr;
    return f;
  };
  profile::Profile p = app_profile({fr("work", "w.c", 1, 0x10), fr("work", "w.c", 2, 0x14),
                                    fr("lonely", "a-very-long-file-name.c", 175, 0x40)},
                                   {{0}, {1}, {2}}, 4);
  p.samples = {sample(0, 0, 100), sample(0, 0, 100), sample(1, 0, 100), sample(2, 0, 100)};
  ReportOptions o;
  o.children = false;
  o.graph = GraphMode::kNone;
  o.sort = {"sym", "srcline"};
  std::string s = run(o, p);
  EXPECT_NE(s.find("# Overhead  Symbol      Source:Line\n"), std::string::npos) << s;
  EXPECT_NE(s.find("    50.00%  [.] work    w.c:1\n"), std::string::npos) << s;
  EXPECT_NE(s.find("    25.00%  [.] lonely  a-very-long\n"), std::string::npos) << s;
  // As the first key every entry is compared: the column fits them all.
  o.sort = {"srcline", "sym"};
  s = run(o, p);
  EXPECT_NE(s.find("    25.00%  a-very-long-file-name.c:175  [.] lonely\n"), std::string::npos)
      << s;
  EXPECT_NE(s.find("    50.00%  w.c:1                        [.] work\n"), std::string::npos) << s;
  // Two samples of the lonely one (merged into one Sample while loading): looked up.
  p.samples.back().count = 2;
  o.sort = {"sym", "srcfile"};
  s = run(o, p);
  EXPECT_NE(s.find("    25.00%  [.] lonely  a-very-long-file-name.c\n"), std::string::npos) << s;
}

}  // namespace
}  // namespace perfx::report

namespace perfx::report {
namespace {

// --hierarchy: one level per key, each the sum of the entries below, indented by three
// columns per level after perf's header; no Children column; "no entry >= P%" when the
// percent limit hides a level's every entry.
ReportOptions hierarchy_by(std::vector<std::string> keys) {
  ReportOptions o;
  o.hierarchy = true;
  o.graph = GraphMode::kNone;
  o.sort = std::move(keys);
  return o;
}

TEST(ReportTable, HierarchyNestsLevelsBySortKey) {
  ReportOptions o = hierarchy_by({"dso", "sym"});
  const std::string s = run(o);
  for (const char* want :
       {"#    Overhead  Shared Object / Symbol\n# ...........  ......", "\n    60.00%     libb.so",
        "\n       60.00%     [.] b\n", "\n       20.00%     [.] a\n"})
    EXPECT_NE(s.find(want), std::string::npos) << want << "\n" << s;
  EXPECT_EQ(s.find("Children"), std::string::npos) << s;

  o.sort = {"comm", "sym"};
  o.percent_limit = 70;
  const std::string limited = run(o);
  EXPECT_NE(limited.find("\n   100.00%     app    \n                  no entry >= 70.00%\n"),
            std::string::npos)
      << limited;
  EXPECT_EQ(limited.find("[.] b"), std::string::npos) << limited;
}

// Levels of equal overhead go in the keys' order, not their first entries' (perf's
// hierarchy_insert_output_entry()): app (a1 30%, a2 20%) before libz.so (z1 40%, z2 10%), though z1
// is the highest entry.
TEST(ReportTable, HierarchyTiesGoByKey) {
  using profile::FrameKind;
  profile::Profile p = app_profile(
      {frame("z1", "libz.so", FrameKind::kUser), frame("z2", "libz.so", FrameKind::kUser),
       frame("a1", "app", FrameKind::kUser), frame("a2", "app", FrameKind::kUser)},
      {{0}, {1}, {2}, {3}}, 10);
  for (const auto& [stack, n] : {std::pair{0U, 4}, {1U, 1}, {2U, 3}, {3U, 2}})
    for (int i = 0; i < n; ++i) p.samples.push_back(sample(stack, 0, 100));
  const std::string s = run(hierarchy_by({"dso", "sym"}), p);
  const auto app = s.find("50.00%     app");
  const auto libz = s.find("50.00%     libz.so");
  ASSERT_NE(app, std::string::npos) << s;
  ASSERT_NE(libz, std::string::npos) << s;
  EXPECT_LT(app, libz) << s;
  EXPECT_LT(s.find("[.] z1"), s.find("[.] z2")) << s;
}

// --socket-filter: perf's header line; entries of other sockets go only when a key
// collapses entries (comm, tid), as perf 6.1 (the profile's CPUs have no topology: -1).
TEST(ReportTable, SocketFilterHeaderAndCollapsingKeys) {
  ReportOptions o;
  o.socket_filter = 0;
  o.graph = GraphMode::kNone;
  for (const bool collapsing : {false, true}) {
    o.sort = collapsing ? std::vector<std::string>{"comm", "sym"} : std::vector<std::string>{"sym"};
    const std::string s = run(o);
    EXPECT_NE(s.find("# Event count (approx.): 500\n# Processor Socket: 0\n#\n"), std::string::npos)
        << s;
    EXPECT_EQ(s.find("[.] b") == std::string::npos, collapsing) << s;
  }
}

}  // namespace
}  // namespace perfx::report
