// The record and live sessions through the public API (perfx/record.hpp): a workload
// recorded into a perf.data that reads back with the same samples, an exec failure as a
// value, and a live session handing its records to the observer until it says stop.

#include <gtest/gtest.h>
#include <linux/perf_event.h>
#include <time.h>
#include <unistd.h>

#include <cstring>
#include <filesystem>
#include <string>
#include <vector>

#include "../unit/temp_dir.hpp"
#include "live_support.hpp"
#include "perfx/perf_data.hpp"
#include "perfx/record.hpp"

namespace perfx {
namespace {

const char* kLoop = "i=0; while [ $i -lt 100000 ]; do i=$((i+1)); done";

struct Counting : RecordObserver {
  int fallbacks = 0;
  void on_user_space_only(long long, const std::string&) override { ++fallbacks; }
};

TEST(RecordSessionLive, WorkloadRecordedIntoAFileWithTheSamplesItCounted) {
  test_support::TempDir dir("perfx_record_session");
  RecordOptions o;
  o.events = {"cpu-clock"};
  o.command = {"sh", "-c", std::string(kLoop) + "; exit 3"};
  o.output = dir.file("perf.data");
  o.handle_signals = false;
  Counting obs;
  auto r = record_perf_data(o, obs);
  ASSERT_TRUE(r) << r.error().message();
  EXPECT_EQ(r->exit_code, 3);  // the workload's status
  EXPECT_FALSE(r->exec_error);
  EXPECT_GT(r->samples, 0u);
  EXPECT_EQ(r->written_name, o.output);

  auto info = read_perf_data_info(o.output, true);
  ASSERT_TRUE(info) << info.error().message();
  ASSERT_EQ(info->events.size(), 1u);
  EXPECT_EQ(info->events[0].name, "cpu-clock");
  EXPECT_EQ(info->samples, r->samples);  // every drained sample is in the file
}

TEST(RecordSessionLive, ACommandThatCannotRunIsAValueWithStatus127) {
  test_support::TempDir dir("perfx_record_session");
  RecordOptions o;
  o.events = {"cpu-clock"};
  o.command = {"/nonexistent/perfx-no-such-command"};
  o.output = dir.file("perf.data");
  o.handle_signals = false;
  RecordObserver quiet;
  auto r = record_perf_data(o, quiet);
  ASSERT_TRUE(r) << r.error().message();
  ASSERT_TRUE(r->exec_error);
  EXPECT_EQ(r->exit_code, 127);
  EXPECT_NE(r->exec_error->message().find("perfx-no-such-command"), std::string::npos);
}

TEST(RecordSessionLive, BadOptionsAreRefusedBeforeAnythingOpens) {
  RecordOptions o;
  o.events = {"no-such-event"};
  o.command = {"true"};
  RecordObserver quiet;
  auto r = record_perf_data(o, quiet);
  ASSERT_FALSE(r);
  EXPECT_NE(r.error().message().find("no-such-event"), std::string::npos);
}

// A live session on this process: the side-band and samples arrive, in whole records.
struct Live : RecordObserver {
  std::size_t opened_events = 0, ids = 0, rounds = 0, drains = 0;
  std::uint64_t samples = 0, comms = 0, bad = 0;
  void on_opened(const RecordPlan& plan, const std::vector<std::vector<std::uint64_t>>& fd_ids,
                 std::size_t) override {
    opened_events = plan.events.size();
    ids = fd_ids.size();
  }
  void on_records(std::span<const std::byte> bytes) override {
    const std::size_t whole =
        live_support::for_each_packed_record(bytes, [&](std::uint32_t type, auto) {
          samples += type == PERF_RECORD_SAMPLE;
          comms += type == PERF_RECORD_COMM;
        });
    if (whole + 8 <= bytes.size()) ++bad;  // stopped at a header with an impossible size
  }
  void on_drained() override { ++drains; }
  int wait_timeout_ms() override { return 10; }
  bool on_round() override {
    live_support::burn_ms(20);
    return ++rounds < 25 || samples == 0;
  }
};

TEST(RecordSessionLive, LiveSessionHandsRecordsToTheObserverUntilItStops) {
  RecordOptions o;
  o.style = RecordStyle::kTop;
  o.events = {"cpu-clock"};
  o.pids = std::to_string(::getpid());
  o.handle_signals = false;
  auto plan = plan_record(o);
  ASSERT_TRUE(plan) << plan.error().message();
  Live obs;
  auto r = run_live_session(std::move(*plan), obs);
  ASSERT_TRUE(r) << r.error().message();
  EXPECT_EQ(obs.opened_events, 1u);
  EXPECT_EQ(obs.ids, 1u);
  EXPECT_GE(obs.rounds, 25u);
  EXPECT_GT(obs.drains, obs.rounds);  // the synthesis pass, then one per round
  EXPECT_GT(obs.comms, 0u);           // synthesized for this process
  EXPECT_GT(obs.samples, 0u);
  EXPECT_EQ(obs.samples, r->samples);
  EXPECT_EQ(obs.bad, 0u);
}

}  // namespace
}  // namespace perfx
