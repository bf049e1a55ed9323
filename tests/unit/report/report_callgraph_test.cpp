// perf's stdio call graphs (ui/stdio/hist.c) from a hand-built call tree: graph and
// fractal branches, the threshold, print limit, value, "[...]" and perf's sort-by-sym
// rule.
#include <gtest/gtest.h>

#include <sstream>

#include "report/report_callgraph.hpp"

namespace perfx::report {
namespace {

using profile::CallNode;

CallNode node(std::string name, std::uint64_t period, std::uint64_t hit,
              std::vector<CallNode> kids = {}) {
  CallNode n;
  n.name = std::move(name);
  n.period = period;
  n.hit = hit;
  n.count = period / 10;
  n.hit_count = hit / 10;
  n.kids = std::move(kids);
  return n;
}

// An entry of period 100 (event total 1000): main -> a (70, 10 ending there) -> b (60),
// main -> c (20), main -> d (10). a's own hits make b a branch of its own (perf's radix
// node ends where a chain does).
CallNode tree() {
  CallNode main_node =
      node("main", 100, 0,
           {node("a", 70, 10, {node("b", 60, 60)}), node("c", 20, 20), node("d", 10, 10)});
  CallNode root = node("", 100, 0, {main_node});
  return root;
}

std::string print(const GraphStyle& style, std::uint64_t total = 1000) {
  std::ostringstream out;
  const profile::Profile p;
  print_call_graph(out, p, tree(), style, total, 100);
  return out.str();
}

constexpr const char* kM = "               ";  // perf's 12-column margin + "---"

// main's branches as perf draws them, with these values for a, b, c and d.
std::string branches(const char* a, const char* b, const char* c, const char* d) {
  std::string out = "            |\n            ---main\n";
  for (const std::string& line :
       {std::string("|          "), "|--" + std::string(a) + "--a",
        std::string("|          |          "), "|           --" + std::string(b) + "--b",
        std::string("|          "), "|--" + std::string(c) + "--c", std::string("|          "),
        " --" + std::string(d) + "--d"})
    out += kM + line + "\n";
  return out + "\n";
}

TEST(ReportCallGraph, GraphAndFractalPercentages) {
  GraphStyle s;  // graph: of the event's total
  EXPECT_EQ(print(s), branches("7.00%", "6.00%", "2.00%", "1.00%"));
  s.mode = GraphMode::kFractal;  // fractal: of the parent's callees
  EXPECT_EQ(print(s), branches("70.00%", "100.00%", "20.00%", "10.00%"));
}

// Fractal: callees under the threshold of their parent's callees show as "[...]"; the
// last shown branch keeps its pipe for it.
TEST(ReportCallGraph, FractalRestUnderTheThreshold) {
  GraphStyle s;
  s.mode = GraphMode::kFractal;
  s.threshold = 15;
  const std::string out = print(s);
  EXPECT_NE(out.find(kM + std::string("|--20.00%--c\n") + kM + " --10.00%--[...]\n"),
            std::string::npos)
      << out;
  EXPECT_EQ(out.find("--d"), std::string::npos) << out;
  s.value = CallGraphValue::kCount;  // the rest's count: main's callees' samples less those shown
  EXPECT_NE(print(s).find(" --1--[...]\n"), std::string::npos) << print(s);
}

TEST(ReportCallGraph, ThresholdHidesBranchesOfTheTotal) {
  GraphStyle s;
  s.threshold = 1.5;  // of 1000: 15, d (10) is hidden; no "[...]" outside fractal
  const std::string out = print(s);
  EXPECT_NE(out.find(kM + std::string(" --2.00%--c\n")), std::string::npos) << out;
  EXPECT_EQ(out.find("--d"), std::string::npos) << out;
  EXPECT_EQ(out.find("[...]"), std::string::npos) << out;
  s.threshold = 50;  // nothing reaches it: no graph, no blank line
  EXPECT_EQ(print(s), "");
}

TEST(ReportCallGraph, PrintLimitAndValues) {
  GraphStyle s;
  s.print_limit = 1;
  s.value = CallGraphValue::kPeriod;
  const std::string out = print(s);
  EXPECT_NE(out.find("|--70--a\n"), std::string::npos) << out;
  EXPECT_EQ(out.find("--c"), std::string::npos) << out;
  s.print_limit = 0;
  s.value = CallGraphValue::kCount;
  EXPECT_NE(print(s).find(" --1--d\n"), std::string::npos) << print(s);
}

// A single chain narrower than the entry gets its percentage; one as wide does not.
TEST(ReportCallGraph, SingleChainNarrowerThanTheEntryShowsItsShare) {
  std::ostringstream out;
  const profile::Profile p;
  print_call_graph(out, p, tree(), GraphStyle{}, 1000, 200);
  EXPECT_EQ(out.str().rfind("            |          \n             --10.00%--main\n", 0), 0u)
      << out.str();
}

// perf: with -s sym... (no -F), the first frame of a graph without a percentage is left
// out (it is the entry's own symbol); its branches then start at the margin.
TEST(ReportCallGraph, SortBySymSkipsTheFirstFrame) {
  GraphStyle s;
  s.skip_first_frame = true;
  EXPECT_EQ(print(s).rfind("            |          \n            |--7.00%--a\n", 0), 0u)
      << print(s);
  ReportOptions o;
  o.sort = {"sym", "dso"};
  EXPECT_FALSE(graph_style(o).skip_first_frame);  // the default sort, not the user's
  o.sort_given = true;
  EXPECT_TRUE(graph_style(o).skip_first_frame);
  o.fields = {"overhead", "sym"};
  EXPECT_FALSE(graph_style(o).skip_first_frame);
}

}  // namespace
}  // namespace perfx::report
