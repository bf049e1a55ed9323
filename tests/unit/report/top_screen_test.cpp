// perfx top's screens (report/top_screen.hpp): the -g screen drawn from a Profile of
// live samples: the header, perf report's Children/Self rows without a column header,
// call graphs under the entries, -E entries at most, entry lines cut to the window.
#include <gtest/gtest.h>

#include <sstream>
#include <string>
#include <vector>

#include "report/top_screen.hpp"

namespace perfx::report {
namespace {

profile::Frame frame(std::string fn, std::string dso) {
  profile::Frame f;
  f.function = std::move(fn);
  f.dso = std::move(dso);
  f.kind = profile::FrameKind::kUser;
  return f;
}

// main -> work x3 samples, main -> helper_with_a_rather_long_name x1 (periods 100 each).
profile::Profile live_profile() {
  profile::Profile p;
  p.frames = {frame("main", "app"), frame("work", "app"),
              frame("helper_with_a_rather_long_name", "libhelp.so")};
  p.stacks = {{0, 1}, {0, 2}};
  p.threads = {{10, 10, "app"}};
  profile::Event ev{"cpu-clock", "nanoseconds"};
  ev.has_callchain = true;
  ev.total_samples = 4;
  ev.total_period = 400;
  p.events = {ev};
  profile::Sample s;
  s.stack = 0;
  s.period = 300;
  s.count = 3;
  p.samples.push_back(s);
  s.stack = 1;
  s.period = 100;
  s.count = 1;
  p.samples.push_back(s);
  return p;
}

std::vector<std::string> lines_of(const std::string& text) {
  std::vector<std::string> out;
  std::istringstream in(text);
  for (std::string l; std::getline(in, l);) out.push_back(l);
  return out;
}

TopScreen screen() {
  TopScreen s;
  s.samples_per_sec = 4000;
  s.samples = 8000;
  s.event = "4000Hz cpu-clock";
  s.target = " (all, 2 CPUs)";
  s.width = 200;
  s.max_rows = 10;
  return s;
}

const std::vector<profile::LiveKey> kKeys = {profile::LiveKey::kDso, profile::LiveKey::kSym};

TEST(TopChainScreen, ChildrenRowsWithCallGraphsUnderTheHeader) {
  const auto lines = lines_of(top_chain_screen_text(screen(), live_profile(), kKeys, true));
  ASSERT_GE(lines.size(), 6u);
  EXPECT_EQ(lines[0].rfind("   PerfTop:    4000 irqs/sec", 0), 0u) << lines[0];
  EXPECT_EQ(lines[1], std::string(199, '-'));
  EXPECT_EQ(lines[2], "");
  // main first (100% children, no self), then work (75%/75%), then the helper.
  // (perf report's Shared Object column: 15 wide here, as perf top -g shows it)
  EXPECT_EQ(lines[3], "   100.00%     0.00%  app            [.] main");
  EXPECT_EQ(lines[4], "            |");
  EXPECT_EQ(lines[5], "            ---main");  // caller first, as perf top -g
  EXPECT_EQ(lines[7], "               |--75.00%--work");
  const std::string text = top_chain_screen_text(screen(), live_profile(), kKeys, true);
  EXPECT_NE(text.find("\n\n    75.00%    75.00%  app            [.] work\n"), std::string::npos)
      << text;
  EXPECT_EQ(text.find("# "), std::string::npos) << "no report header lines";
  EXPECT_FALSE(text.ends_with("\n\n")) << "no trailing blank lines";
}

TEST(TopChainScreen, SelfOnlyWithoutChildren) {
  const std::string text = top_chain_screen_text(screen(), live_profile(), kKeys, false);
  EXPECT_NE(text.find("    75.00%  app            [.] work\n            |\n            ---work\n"),
            std::string::npos)
      << text;  // callee first without children
  EXPECT_EQ(text.find("[.] main\n"), std::string::npos) << "main has no self samples";
}

TEST(TopChainScreen, AtMostMaxRowsEntriesAndEntryLinesCutToTheWindow) {
  TopScreen s = screen();
  s.max_rows = 1;
  auto lines = lines_of(top_chain_screen_text(s, live_profile(), kKeys, true));
  int entries = 0;
  for (const auto& l : lines)
    if (l.find("%  ") != std::string::npos && l.find("[.]") != std::string::npos) ++entries;
  EXPECT_EQ(entries, 1);
  s = screen();
  s.width = 40;
  const auto text = top_chain_screen_text(s, live_profile(), kKeys, true);
  for (const auto& l : lines_of(text)) {
    if (l.find("PerfTop") != std::string::npos) continue;
    if (l.find("[.]") != std::string::npos) {
      EXPECT_LE(l.size(), 38u) << l;  // an entry: cut to the window
    }
  }
  // A call graph line keeps the whole name.
  EXPECT_NE(text.find("helper_with_a_rather_long_name\n"), std::string::npos) << text;
}

TEST(TopChainScreen, AnEmptyProfileShowsTheHeaderOnly) {
  profile::Profile p = live_profile();
  p.samples.clear();
  const auto lines = lines_of(top_chain_screen_text(screen(), p, kKeys, true));
  EXPECT_EQ(lines.size(), 3u);
}

}  // namespace
}  // namespace perfx::report
