// perf report's -g value (perf's parse_callchain_report_opt()): words by prefix in any
// order, the first number the threshold, the second the print limit, "none" ends it.
#include <gtest/gtest.h>

#include "perfx/report.hpp"

namespace perfx {
namespace {

TEST(CallGraphOption, FullPerfSyntax) {
  ReportOptions o;
  auto th = parse_call_graph("fractal,0.25,7,callee,address,branch,count", o);
  ASSERT_TRUE(th.has_value()) << th.error().message();
  EXPECT_TRUE(*th);
  EXPECT_EQ(o.graph, CallGraphMode::kFractal);
  EXPECT_DOUBLE_EQ(o.graph_threshold, 0.25);
  EXPECT_EQ(o.graph_print_limit, 7u);
  EXPECT_EQ(o.caller_order, std::optional<bool>(false));
  EXPECT_EQ(o.graph_key, CallGraphKey::kAddress);
  EXPECT_EQ(o.graph_value, CallGraphValue::kCount);
  EXPECT_TRUE(o.graph_requested);
}

TEST(CallGraphOption, WordsArePrefixesTriedInPerfsOrder) {
  struct Case {
    const char* text;
    CallGraphMode mode;
    std::optional<bool> caller;
    CallGraphKey key;
    CallGraphValue value;
  };
  using M = CallGraphMode;
  using K = CallGraphKey;
  using V = CallGraphValue;
  const Case cases[] = {
      {"g", M::kGraph, {}, K::kFunction, V::kPercent},
      {"f", M::kFlat, {}, K::kFunction, V::kPercent},  // flat before fractal, function
      {"fr", M::kFractal, {}, K::kFunction, V::kPercent},
      {"fo", M::kFolded, {}, K::kFunction, V::kPercent},
      {"fu", M::kGraph, {}, K::kFunction, V::kPercent},
      {"calle", M::kGraph, true, K::kFunction, V::kPercent},  // caller before callee, count
      {"callee", M::kGraph, false, K::kFunction, V::kPercent},
      {"co", M::kGraph, {}, K::kFunction, V::kCount},
      {"a", M::kGraph, {}, K::kAddress, V::kPercent},
      {"s", M::kGraph, {}, K::kSrcline, V::kPercent},
      {"per", M::kGraph, {}, K::kFunction, V::kPercent},  // percent before period
      {"peri", M::kGraph, {}, K::kFunction, V::kPeriod},
  };
  for (const auto& c : cases) {
    ReportOptions o;
    auto th = parse_call_graph(c.text, o);
    ASSERT_TRUE(th.has_value()) << c.text;
    EXPECT_FALSE(*th) << c.text;
    EXPECT_EQ(o.graph, c.mode) << c.text;
    EXPECT_EQ(o.caller_order, c.caller) << c.text;
    EXPECT_EQ(o.graph_key, c.key) << c.text;
    EXPECT_EQ(o.graph_value, c.value) << c.text;
  }
}

TEST(CallGraphOption, NumbersThresholdThenPrintLimit) {
  ReportOptions o;
  ASSERT_TRUE(parse_call_graph("2,,0x10", o).has_value());  // empty tokens are skipped
  EXPECT_DOUBLE_EQ(o.graph_threshold, 2.0);
  EXPECT_EQ(o.graph_print_limit, 16u);                    // strtoul base 0, as perf
  ASSERT_TRUE(parse_call_graph("1,2,3", o).has_value());  // a third number: the limit again
  EXPECT_DOUBLE_EQ(o.graph_threshold, 1.0);
  EXPECT_EQ(o.graph_print_limit, 3u);
  ASSERT_TRUE(parse_call_graph("0.5x", o).has_value());  // strtod's prefix, as perf
  EXPECT_DOUBLE_EQ(o.graph_threshold, 0.5);
}

TEST(CallGraphOption, NoneStopsAndTurnsGraphsOff) {
  ReportOptions o;
  ASSERT_TRUE(parse_call_graph("flat,none,bogus", o).has_value());
  EXPECT_EQ(o.graph, CallGraphMode::kNone);
  EXPECT_FALSE(o.graph_requested);
  ASSERT_TRUE(parse_call_graph("n", o).has_value());
  EXPECT_EQ(o.graph, CallGraphMode::kNone);
}

TEST(CallGraphOption, DefaultIsPerfsCallchainDefault) {
  ReportOptions o;
  ASSERT_TRUE(parse_call_graph(kDefaultCallGraph, o).has_value());
  EXPECT_EQ(o.graph, CallGraphMode::kGraph);
  EXPECT_EQ(o.caller_order, std::optional<bool>(true));
  EXPECT_EQ(o.graph_value, CallGraphValue::kPercent);
}

TEST(CallGraphOption, BadTokensLeaveTheOptionsAlone) {
  ReportOptions o;
  o.graph = CallGraphMode::kFlat;
  for (const char* bad : {"bogus", "graph,x", "0.5,y", "fp", "dwarf"}) {
    auto th = parse_call_graph(bad, o);
    ASSERT_FALSE(th.has_value()) << bad;
    EXPECT_EQ(th.error().code(), Errc::kInvalidArgument) << bad;
    EXPECT_EQ(o.graph, CallGraphMode::kFlat) << bad;
    EXPECT_FALSE(o.graph_requested) << bad;
  }
}

}  // namespace
}  // namespace perfx
