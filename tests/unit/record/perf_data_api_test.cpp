// The public perf.data API (include/perfx/perf_data.hpp) on the checked-in recordings.
#include <gtest/gtest.h>

#include <filesystem>

#include "perfx/perf_data.hpp"
#include "perfx/raw.hpp"

namespace perfx {
namespace {

const std::string kDir = PERFX_TEST_DATA_DIR;

TEST(PerfDataApi, InfoAndSamplesOfAPerfRecording) {
  const std::string path = kDir + "/fmt-cpuclock-fp.data";
  if (!std::filesystem::exists(path)) GTEST_SKIP() << "missing " << path;
  auto info = read_perf_data_info(path);
  ASSERT_TRUE(info) << info.error().message();
  EXPECT_FALSE(info->pipe);
  ASSERT_EQ(info->events.size(), 1u);
  EXPECT_EQ(info->events[0].name, "cpu-clock");
  EXPECT_TRUE(info->events[0].freq);
  EXPECT_EQ(info->perf_version, "6.1.187");
  EXPECT_EQ(info->samples, 0u);  // not counted without count_records

  std::uint64_t n = 0, with_chain = 0, user = 0;
  auto walked = for_each_sample(path, [&](const PerfDataSample& s) {
    ++n;
    if (s.callchain.size() > 1) ++with_chain;
    if (s.cpumode == PERF_RECORD_MISC_USER) ++user;
    EXPECT_NE(s.pid, 0u);
    EXPECT_NE(s.time, 0u);
  });
  ASSERT_TRUE(walked) << walked.error().message();
  EXPECT_EQ(walked->samples, n);
  EXPECT_GT(n, 0u);
  EXPECT_EQ(with_chain, n);  // recorded with -g
  EXPECT_GT(user, 0u);
  EXPECT_EQ(walked->malformed, 0u);

  auto counted = read_perf_data_info(path, true);
  ASSERT_TRUE(counted);
  EXPECT_EQ(counted->samples, n);
  EXPECT_GT(counted->records, n);
}

TEST(PerfDataApi, PipeAndHeaderText) {
  const std::string path = kDir + "/fmt-cpuclock-pipe.data";
  if (!std::filesystem::exists(path)) GTEST_SKIP() << "missing " << path;
  auto info = read_perf_data_info(path);
  ASSERT_TRUE(info) << info.error().message();
  EXPECT_TRUE(info->pipe);
  EXPECT_GT(info->samples, 0u);  // pipe mode is always read through
  ASSERT_EQ(info->events.size(), 1u);
  auto text = perf_data_header_text(path);
  ASSERT_TRUE(text);
  EXPECT_NE(text->find("# hostname : "), std::string::npos);
  EXPECT_NE(text->find("# event : name = cpu-clock"), std::string::npos);
}

TEST(PerfDataApi, Errors) {
  auto missing = read_perf_data_info("/nonexistent/perf.data");
  ASSERT_FALSE(missing);
  EXPECT_EQ(missing.error().code(), Errc::kNotFound);
  auto dir = read_perf_data_info(kDir);
  ASSERT_FALSE(dir);
  EXPECT_EQ(dir.error().code(), Errc::kNotSupported);
  auto not_perf = read_perf_data_info(kDir + "/README.md");
  ASSERT_FALSE(not_perf);
  EXPECT_EQ(not_perf.error().code(), Errc::kMalformedData);
}

}  // namespace
}  // namespace perfx
