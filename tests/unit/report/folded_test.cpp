#include "report/folded.hpp"

#include <gtest/gtest.h>

#include <map>
#include <sstream>

#include "export_test_profile.hpp"
#include "report/export.hpp"

namespace perfx::report {
namespace {

std::map<std::string, std::uint64_t> parse_folded(const std::string& text) {
  std::map<std::string, std::uint64_t> out;
  std::istringstream in(text);
  std::string line;
  while (std::getline(in, line)) {
    const auto sp = line.rfind(' ');
    EXPECT_NE(sp, std::string::npos) << line;
    out[line.substr(0, sp)] += std::stoull(line.substr(sp + 1));
  }
  return out;
}

std::string folded_text(const profile::Profile& p, const ExportOptions& o = {}) {
  std::ostringstream out;
  auto r = report::export_profile("folded", p, out, o);
  EXPECT_TRUE(r) << (r ? "" : r.error().message());
  return out.str();
}

TEST(Folded, CountsSumToSamplesAndHeaviestIsHotPath) {
  const auto p = testing::make_test_profile();
  const auto stacks = parse_folded(folded_text(p));
  std::uint64_t total = 0;
  std::pair<std::string, std::uint64_t> heaviest;
  for (const auto& [stack, n] : stacks) {
    total += n;
    if (n > heaviest.second) heaviest = {stack, n};
  }
  EXPECT_EQ(total, p.samples.size());
  EXPECT_EQ(heaviest.first, "demo;_start;__libc_start_main;main;compute;hot_loop");
  EXPECT_EQ(heaviest.second, 60u);
}

TEST(Folded, CommFirstKernelSuffixAndThreadsOfOneCommMerge) {
  const auto stacks = parse_folded(folded_text(testing::make_test_profile()));
  EXPECT_EQ(stacks.at("demo;_start;__libc_start_main;main;write;entry_SYSCALL_64_[k];"
                      "do_syscall_64_[k];__x64_sys_write_[k]"),
            5u);
  EXPECT_EQ(stacks.at("sh;entry_SYSCALL_64_[k];do_syscall_64_[k];__x64_sys_write_[k]"), 3u);
  // tid 101 has comm "demo" too: folded under the same root, and ';' in names becomes ':'.
  EXPECT_EQ(stacks.at("demo;start_thread;worker_loop;LFoo:::bar_[j]"), 20u);
  EXPECT_EQ(stacks.size(), 6u);
}

TEST(Folded, Options) {
  const auto p = testing::make_test_profile();
  ExportOptions o;
  o.include_comm = false;
  o.annotate_kernel = false;
  o.inline_frames = false;
  const auto stacks = parse_folded(folded_text(p, o));
  EXPECT_EQ(stacks.at("_start;__libc_start_main;main;compute"), 60u);
  EXPECT_EQ(stacks.at("entry_SYSCALL_64;do_syscall_64;__x64_sys_write"), 3u);
}

TEST(Folded, LinesAreSortedLikeStackcollapse) {
  const std::string text = folded_text(testing::make_test_profile());
  std::istringstream in(text);
  std::string line;
  std::string prev;
  int n = 0;
  while (std::getline(in, line)) {
    EXPECT_LT(prev, line);
    prev = line;
    ++n;
  }
  EXPECT_EQ(n, 6);
}

TEST(Folded, BadInputIsAnErrorNotACrash) {
  auto p = testing::make_test_profile();
  ExportOptions o;
  o.event = 3;
  std::ostringstream out;
  auto r = report::export_profile("folded", p, out, o);
  ASSERT_FALSE(r);
  EXPECT_NE(r.error().message().find("event index 3"), std::string::npos);
  p.samples[0].stack = 99;
  r = report::export_profile("folded", p, out, {});
  ASSERT_FALSE(r);
  EXPECT_NE(r.error().message().find("stack 99"), std::string::npos);
  p = testing::make_test_profile();
  p.stacks[2].push_back(1000);
  for (const char* fmt : {"folded", "html", "svg", "pprof", "speedscope", "firefox", "json"}) {
    r = report::export_profile(fmt, p, out, {});
    ASSERT_FALSE(r) << fmt;
    EXPECT_NE(r.error().message().find("frame 1000"), std::string::npos) << fmt;
  }
}

TEST(FlameTree, ValuesAndInversion) {
  auto folded = fold(testing::make_test_profile(), {});
  ASSERT_TRUE(folded);
  const auto tree = build_flame_tree(*folded, false);
  EXPECT_EQ(tree[0].value, 123u);
  ASSERT_EQ(tree[0].children.size(), 2u);  // demo, sh
  const auto& demo = tree[tree[0].children[0]];
  EXPECT_EQ(folded->names[demo.name], "demo");
  EXPECT_EQ(demo.value, 120u);
  const auto inverted = build_flame_tree(*folded, true);
  // Inverted: the roots' children are leaf functions; hot_loop is the biggest.
  std::uint64_t hot = 0;
  for (auto c : inverted[0].children) {
    if (folded->names[inverted[c].name] == "hot_loop") hot = inverted[c].value;
  }
  EXPECT_EQ(hot, 60u);
}

}  // namespace
}  // namespace perfx::report
