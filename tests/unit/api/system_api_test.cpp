// perfx/system.hpp on a fake procfs (sysctls, CapEff) and on the real /proc.

#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>

#include "../temp_dir.hpp"
#include "../test_files.hpp"
#include "perfx/system.hpp"

namespace perfx {
namespace {

namespace fs = std::filesystem;

constexpr auto write = test_support::write_tree_file;

TEST(SystemApi, FakeProcfs) {
  test_support::TempDir dir{"perfx_system_api"};
  SystemPaths paths;
  paths.procfs = dir.file("proc");
  EXPECT_FALSE(perf_events_supported(paths));  // nothing there: no perf
  EXPECT_FALSE(perf_settings(paths).supported());

  const std::string k = paths.procfs + "/sys/kernel/";
  write(k + "perf_event_paranoid", "2\n");
  write(k + "perf_event_max_sample_rate", "100000\n");
  write(k + "perf_event_max_stack", "127\n");
  write(k + "perf_event_mlock_kb", "516\n");
  // CAP_PERFMON (38) only.
  write(paths.procfs + "/self/status", "Name:\tx\nCapEff:\t0000004000000000\n");
  EXPECT_TRUE(perf_events_supported(paths));
  PerfSettings s = perf_settings(paths);
  EXPECT_TRUE(s.supported());
  EXPECT_EQ(s.paranoid, 2);
  EXPECT_EQ(s.max_sample_rate, 100000);
  EXPECT_EQ(s.max_stack, 127);
  EXPECT_EQ(s.mlock_kb, 516);
  EXPECT_FALSE(s.cpu_time_max_percent.has_value());  // absent file
  EXPECT_EQ(s.cap_effective, 1ULL << 38);
  EXPECT_TRUE(s.cap_perfmon);
  EXPECT_FALSE(s.cap_sys_admin);
  EXPECT_TRUE(s.privileged());

  write(k + "perf_cpu_time_max_percent", "25\n");
  write(k + "perf_event_paranoid", "-1\n");
  write(paths.procfs + "/self/status", "CapEff:\t0000000000200000\n");  // CAP_SYS_ADMIN
  s = perf_settings(paths);
  EXPECT_EQ(s.cpu_time_max_percent, 25);
  EXPECT_EQ(s.paranoid, -1);
  EXPECT_FALSE(s.cap_perfmon);
  EXPECT_TRUE(s.cap_sys_admin);

  write(paths.procfs + "/self/status", "CapEff:\t0000000000000000\n");
  EXPECT_FALSE(perf_settings(paths).privileged());
}

TEST(SystemApi, RealProc) {
  if (!fs::exists("/proc/sys/kernel/perf_event_paranoid")) {
    GTEST_SKIP() << "this kernel has no perf events";
  }
  EXPECT_TRUE(perf_events_supported());
  const PerfSettings s = perf_settings();
  ASSERT_TRUE(s.paranoid.has_value());
  EXPECT_TRUE(s.max_sample_rate.has_value());
  EXPECT_TRUE(s.max_stack.has_value());
}

}  // namespace
}  // namespace perfx
