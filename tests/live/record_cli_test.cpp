// `perfx record` end to end (PERFX_CLI), read back with the public perf.data API:
// default event fallback, output rotation (perf.data.old, symlinks never followed), exit
// status of the workload, no fixed delay after it exits, the frequency cap message,
// breakpoint/tracepoint events, and lost samples reported in the summary line.
#include <gtest/gtest.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <string>

#include "perfx/perf_data.hpp"

namespace fs = std::filesystem;

namespace {

std::string slurp(const std::string& path) {
  std::string out;
  if (std::FILE* f = std::fopen(path.c_str(), "rb")) {
    char buf[4096];
    std::size_t n = 0;
    while ((n = std::fread(buf, 1, sizeof buf, f)) > 0) out.append(buf, n);
    std::fclose(f);
  }
  return out;
}

struct CliRun {
  int status = -1;
  std::string err;
  double seconds = 0;
};

class RecordCli : public ::testing::Test {
 protected:
  void SetUp() override {
    dir_ = fs::temp_directory_path() /
           ("perfx_record_test_" + std::to_string(::getpid()) + "_" +
            ::testing::UnitTest::GetInstance()->current_test_info()->name());
    fs::create_directories(dir_);
  }
  void TearDown() override { fs::remove_all(dir_); }

  CliRun run(const std::string& args) {
    const std::string err_file = (dir_ / "stderr.txt").string();
    const std::string cmd =
        "cd '" + dir_.string() + "' && " + PERFX_CLI + " record " + args + " 2>'" + err_file + "'";
    const auto t0 = std::chrono::steady_clock::now();
    CliRun r;
    const int rc = std::system(cmd.c_str());
    r.seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
    r.status = WIFEXITED(rc) ? WEXITSTATUS(rc) : -1;
    r.err = slurp(err_file);
    return r;
  }

  fs::path dir_;
};

TEST_F(RecordCli, DefaultEventWritesPerfDataWithSamples) {
  CliRun r = run("-q -- sh -c 'i=0; while [ $i -lt 20000 ]; do i=$((i+1)); done'");
  ASSERT_EQ(r.status, 0) << r.err;
  std::uint64_t samples = 0;
  auto info = perfx::for_each_sample((dir_ / "perf.data").string(),
                                     [&](const perfx::PerfDataSample&) { ++samples; });
  ASSERT_TRUE(info) << info.error().message();
  ASSERT_FALSE(info->events.empty());
  // The default is perf's cycles:P; with no hardware PMU it falls back to cpu-clock with
  // the precise modifier perf keeps in its name ("cpu-clock:ppp").
  const std::string& name = info->events[0].name;
  EXPECT_TRUE(name.rfind("cycles", 0) == 0 || name == "cpu-clock:ppp") << name;
  EXPECT_GT(samples, 0u);
  EXPECT_EQ(info->malformed, 0u);
}

TEST_F(RecordCli, KeepsPreviousOutputAsOldWithoutFollowingSymlinks) {
  // perf.data.old is a symlink to a file that must survive untouched.
  const fs::path victim = dir_ / "victim.txt";
  { std::ofstream(victim) << "keep me"; }
  fs::create_symlink(victim, dir_ / "perf.data.old");
  ASSERT_EQ(run("-q -e task-clock -- true").status, 0);
  const auto first_size = fs::file_size(dir_ / "perf.data");
  ASSERT_EQ(run("-q -e task-clock -- true").status, 0);
  EXPECT_TRUE(fs::is_regular_file(fs::symlink_status(dir_ / "perf.data.old")));
  EXPECT_EQ(fs::file_size(dir_ / "perf.data.old"), first_size);
  EXPECT_EQ(slurp(victim.string()), "keep me");
}

TEST_F(RecordCli, ReturnsWorkloadStatusAndHasNoFixedDelay) {
  CliRun r = run("-e task-clock -o out.data -- sh -c 'exit 3'");
  EXPECT_EQ(r.status, 3);
  EXPECT_NE(r.err.find("[ perfx record: Captured and wrote"), std::string::npos) << r.err;
  // No fixed delay: the fastest of three `record -- true` runs costs at most 0.4 s more than
  // the fastest of three runs that only start perfx and parse the options (a usage error).
  // Relative to that floor, the check holds in slow builds (ASan) and on a loaded machine.
  double record_s = 1e9, startup_s = 1e9;
  for (int i = 0; i < 3; ++i) {
    CliRun t = run("-q -e task-clock -o t.data -- true");
    EXPECT_EQ(t.status, 0);
    record_s = std::min(record_s, t.seconds);
    startup_s = std::min(startup_s, run("--no-such-option").seconds);
  }
  EXPECT_LT(record_s, startup_s + 0.4)
      << "perfx record -- true took " << record_s << " s, perfx startup " << startup_s << " s";
}

TEST_F(RecordCli, CrashingTargetStillFinalizesTheFile) {
  CliRun r = run("-q -e task-clock -o crash.data -- sh -c 'kill -SEGV $$'");
  EXPECT_EQ(r.status, 128 + 11) << r.err;
  auto info = perfx::read_perf_data_info((dir_ / "crash.data").string(), true);
  ASSERT_TRUE(info) << info.error().message();
  EXPECT_GT(info->data_size, 0u);
}

TEST_F(RecordCli, FrequencyAboveMaximumIsCappedWithAMessage) {
  CliRun r = run("-F 10000000 -e cpu-clock -o f.data -- true");
  EXPECT_EQ(r.status, 0) << r.err;
  // perf's words: "warning: Maximum frequency rate (N Hz) exceeded, throttling from ...".
  EXPECT_NE(r.err.find("warning: Maximum frequency rate ("), std::string::npos) << r.err;
  EXPECT_NE(r.err.find("throttling from 10000000 Hz to "), std::string::npos) << r.err;
  // --strict-freq refuses instead.
  CliRun strict = run("--strict-freq -F 10000000 -e cpu-clock -o g.data -- true");
  EXPECT_EQ(strict.status, 1);
  EXPECT_NE(strict.err.find("error: Maximum frequency rate ("), std::string::npos) << strict.err;
}

TEST_F(RecordCli, TracepointRecordingHasRawSamples) {
  CliRun r =
      run("-q -e syscalls:sys_enter_getppid -o tp.data -- sh -c 'for i in 1 2 3; do "
          "cat /proc/self/stat >/dev/null; done'");
  if (r.status != 0 && r.err.find("syscalls") != std::string::npos) {
    GTEST_SKIP() << "tracepoint unavailable: " << r.err;
  }
  ASSERT_EQ(r.status, 0) << r.err;
  auto info = perfx::read_perf_data_info((dir_ / "tp.data").string(), true);
  ASSERT_TRUE(info) << info.error().message();
  ASSERT_FALSE(info->events.empty());
  EXPECT_EQ(info->events[0].type, 2u);  // PERF_TYPE_TRACEPOINT
}

TEST_F(RecordCli, TinyUndrainedBufferReportsLostSamples) {
  // One data page and a page-fault storm with period 1: perf would also lose samples.
  CliRun r =
      run("-m 1 -c 1 -e page-faults -o lost.data -- sh -c 'head -c 50000000 /dev/zero | "
          "cat >/dev/null; dd if=/dev/zero of=/dev/null bs=4M count=20 2>/dev/null'");
  ASSERT_EQ(r.status, 0) << r.err;
  auto info = perfx::read_perf_data_info((dir_ / "lost.data").string(), true);
  ASSERT_TRUE(info) << info.error().message();
  if (info->lost == 0) GTEST_SKIP() << "the buffer kept up; nothing lost this run";
  EXPECT_NE(r.err.find(" lost)"), std::string::npos) << r.err;
}

TEST_F(RecordCli, RejectsBadOptions) {
  EXPECT_NE(run("--call-graph bogus -- true").status, 0);
  EXPECT_NE(run("-F 100 -c 100 -- true").status, 0);
  CliRun r = run("-e no_such_event_xyz -- true");
  EXPECT_NE(r.status, 0);
  EXPECT_NE(r.err.find("no_such_event_xyz"), std::string::npos) << r.err;
}

}  // namespace
