// perf's --time syntax (tools/perf/util/time-utils.c): absolute windows, percent slices,
// and errors that name the text that could not be parsed.
#include "profile/time_filter.hpp"

#include <gtest/gtest.h>

namespace perfx::profile {
namespace {

constexpr std::uint64_t kSec = 1000000000ULL;

TEST(TimeFilter, StartStopSeconds) {
  auto f = parse_time_filter("1846.5,1847.000001");
  ASSERT_TRUE(f) << f.error().message();
  ASSERT_EQ(f->ranges.size(), 1u);
  EXPECT_EQ(f->ranges[0], (TimeRange{1846 * kSec + 500000000, 1847 * kSec + 1000}));
  EXPECT_TRUE(f->skip(1846 * kSec));
  EXPECT_FALSE(f->skip(1846 * kSec + 500000000));
  EXPECT_FALSE(f->skip(1847 * kSec + 1000));  // inclusive
  EXPECT_TRUE(f->skip(1847 * kSec + 1001));
  EXPECT_FALSE(f->skip(0));  // no time: kept, as perf
}

TEST(TimeFilter, OpenSidesAndSeveralWindows) {
  auto f = parse_time_filter(",1847");
  ASSERT_TRUE(f);
  EXPECT_FALSE(f->skip(1));
  EXPECT_TRUE(f->skip(1848 * kSec));
  auto all = parse_time_filter(",");
  ASSERT_TRUE(all);
  EXPECT_TRUE(all->ranges.empty());
  auto two = parse_time_filter("10,11 12,13");
  ASSERT_TRUE(two);
  ASSERT_EQ(two->ranges.size(), 2u);
  EXPECT_FALSE(two->skip(10 * kSec + 5));
  EXPECT_TRUE(two->skip(11 * kSec + 5));
  EXPECT_FALSE(two->skip(12 * kSec + 5));
}

TEST(TimeFilter, PercentForms) {
  const std::pair<std::uint64_t, std::uint64_t> span{1000, 2000};
  auto slice = parse_time_filter("10%/2", span);
  ASSERT_TRUE(slice) << slice.error().message();
  EXPECT_EQ(slice->ranges[0], (TimeRange{1100, 1199}));  // perf's end - 1
  auto dash = parse_time_filter("0%-10%,90%-100%", span);
  ASSERT_TRUE(dash);
  ASSERT_EQ(dash->ranges.size(), 2u);
  EXPECT_EQ(dash->ranges[0], (TimeRange{1000, 1099}));
  EXPECT_EQ(dash->ranges[1], (TimeRange{1900, 2000}));  // the last sample stays in
  auto one = parse_time_filter("50%", span);
  ASSERT_TRUE(one);
  EXPECT_EQ(one->ranges[0], (TimeRange{1000, 1499}));
}

TEST(TimeFilter, RejectsWhatItCannotParseNamingTheText) {
  for (const char* bad :
       {"abc", "1846.5", "1847,1846", "1,2,3", "1.1234567891,", "x,2", "3,4 1,2"}) {
    auto f = parse_time_filter(bad);
    ASSERT_FALSE(f) << bad;
    EXPECT_NE(f.error().message().find(std::string("'") + bad + "'"), std::string::npos)
        << f.error().message();
  }
  const std::pair<std::uint64_t, std::uint64_t> span{1000, 2000};
  for (const char* bad : {"10%/x", "10%/2,abc", "0%-x%", "10%,20%", "0%/1", "50%/3"}) {
    auto f = parse_time_filter(bad, span);
    ASSERT_FALSE(f) << bad;
    EXPECT_NE(f.error().message().find(bad), std::string::npos) << f.error().message();
  }
  auto no_span = parse_time_filter("10%/2");
  ASSERT_FALSE(no_span);
  EXPECT_NE(no_span.error().message().find("first/last sample time"), std::string::npos);
}

}  // namespace
}  // namespace perfx::profile
