// core/text.hpp: the line, trim and "key: value" helpers the /proc and sysfs parsers share.
#include "core/text.hpp"

#include <gtest/gtest.h>

#include <string_view>
#include <vector>

namespace perfx::core {
namespace {

std::vector<std::string_view> all_lines(std::string_view text) {
  std::vector<std::string_view> out;
  for (std::string_view line : lines(text)) out.push_back(line);
  return out;
}

TEST(Text, LinesKeepEmptyLinesButNoneAfterTheLastNewline) {
  EXPECT_TRUE(all_lines("").empty());
  EXPECT_EQ(all_lines("a"), (std::vector<std::string_view>{"a"}));
  EXPECT_EQ(all_lines("a\n"), (std::vector<std::string_view>{"a"}));
  EXPECT_EQ(all_lines("a\n\nb"), (std::vector<std::string_view>{"a", "", "b"}));
  EXPECT_EQ(all_lines("\n"), (std::vector<std::string_view>{""}));
}

TEST(Text, TrimRemovesOnlyTheGivenCharacters) {
  EXPECT_EQ(trim(" \tx y\n"), "x y");
  EXPECT_EQ(trim(" \t\n"), "");
  EXPECT_EQ(trim("\rx\r", " "), "\rx\r");
}

TEST(Text, LineValueNeedsTheWholeKeyBeforeTheColon) {
  constexpr std::string_view kCpuinfo = "model\t\t: 85\nmodel name\t: Xeon\ncpu MHz : 2.0\n";
  EXPECT_EQ(line_value(kCpuinfo, "model"), "85");
  EXPECT_EQ(line_value(kCpuinfo, "model name"), "Xeon");
  EXPECT_EQ(line_value("PPid:\t1\nTgid:\t42\n", "Tgid"), "42");
  EXPECT_FALSE(line_value(kCpuinfo, "cpu"));
  EXPECT_FALSE(line_value("Tgid 42\n", "Tgid"));
}

}  // namespace
}  // namespace perfx::core
