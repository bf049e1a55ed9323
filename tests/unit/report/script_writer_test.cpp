#include "report/script_writer.hpp"

#include <fmt/format.h>
#include <gtest/gtest.h>

#include <linux/perf_event.h>

#include <cstdlib>
#include <ctime>
#include <sstream>

namespace perfx::report {
namespace {

std::string head_text(const ScriptLineHead& head, bool ns = false) {
  TextBuffer b;
  append_line_head(b, head, ns);
  return std::string(b.view());
}

TEST(ScriptWriter, ConversionsMatchPrintf) {
  TextBuffer b;
  b.zero_padded(7, 3);
  b.zero_padded(12345, 3);
  b.push_back('|');
  b.hex_right(0, 4);
  b.hex_right(0xdeadbeef, 4);
  b.hex_right(0xffffffffffffffffULL, 16);
  b.push_back('|');
  b.right("ab", 4);
  b.left("cd", 4);
  b.right("toolong", 3);
  EXPECT_EQ(b.view(), "00712345|   0deadbeefffffffffffffffff|  abcd  toolong");
}

TEST(ScriptWriter, LineHeadHasPerfColumns) {
  const std::string comm = "worker", event = "cpu-clock";
  ScriptLineHead h;
  h.fields = kComm | kPid | kTid | kCpu | kTime | kPeriod | kEvent | kAddr;
  h.comm = &comm;
  h.event = &event;
  h.pid = -1;
  h.tid = 42;
  h.cpu = 1;
  h.time = 5489608880123ULL;
  h.period = 50000;
  h.addr = 0x1000;
  // perf_sample__fprintf_addr(): "%16lx", the ip's column brings its own blank.
  EXPECT_EQ(head_text(h),
            "          worker    -1/42    [001]  5489.608880:      50000 cpu-clock:"
            "             1000");
  EXPECT_EQ(head_text(h, true).substr(35, 17), " 5489.608880123: ");
  h.fields = kComm | kTid | kTime;
  h.comm_unpadded = true;
  h.time = 3000001000;
  EXPECT_EQ(head_text(h), "worker    42     3.000001: ");
  h.comm = nullptr;  // no thread: perf's placeholder
  h.fields = kComm;
  EXPECT_EQ(head_text(h), ":-1 ");
}

// -F misc, tod, flags, weight as perf 6.1 prints them (perf_sample__fprintf_start(),
// perf_sample__fprintf_flags(), "%16lu" weight after the addr).
TEST(ScriptWriter, MiscTodFlagsAndWeightColumns) {
  const std::string comm = "w", event = "cpu-clock";
  ScriptLineHead h;
  h.comm = &comm;
  h.event = &event;
  h.comm_unpadded = true;
  h.fields = kComm | kMisc;
  h.misc = PERF_RECORD_MISC_USER;
  h.record_type = PERF_RECORD_SAMPLE;
  EXPECT_EQ(head_text(h), "w U     ");
  h.misc = PERF_RECORD_MISC_KERNEL;
  EXPECT_EQ(head_text(h), "w K     ");
  h.misc = PERF_RECORD_MISC_HYPERVISOR;  // 3: K, U and H all "set"
  EXPECT_EQ(head_text(h), "w KUH   ");
  h.misc = PERF_RECORD_MISC_USER | PERF_RECORD_MISC_COMM_EXEC;
  h.record_type = PERF_RECORD_COMM;
  EXPECT_EQ(head_text(h), "w UE    ");
  h.misc =
      PERF_RECORD_MISC_KERNEL | PERF_RECORD_MISC_SWITCH_OUT | PERF_RECORD_MISC_SWITCH_OUT_PREEMPT;
  h.record_type = PERF_RECORD_SWITCH_CPU_WIDE;
  EXPECT_EQ(head_text(h), "w KSp   ");

  // tod: the wall clock of the reference plus the time since it, in local time.
  setenv("TZ", "UTC", 1);
  tzset();
  const ScriptClock clock{1'700'000'000'000'000'000ULL, 1'000'000'000ULL};
  h.clock = &clock;
  h.fields = kComm | kTod | kTime;
  h.time = 3'000'123'456ULL;  // 2 s after the reference
  EXPECT_EQ(head_text(h), "w 2023-11-14 22:13:22.000123     3.000123: ");
  EXPECT_EQ(head_text(h, true), "w 2023-11-14 22:13:22.000123456     3.000123456: ");

  h.fields = kEvent | kFlags | kAddr | kWeight;
  h.addr = 0xabc;
  h.weight = 77;
  EXPECT_EQ(head_text(h),
            "cpu-clock: " + std::string(24, ' ') + "             abc" + "              77");
}

// A batch as the replay thread builds it: a callchain row, a one-frame row, a text row.
ScriptBatch sample_batch(const std::string& comm, const std::string& event, const std::string& line,
                         const std::string& tail, int n) {
  ScriptBatch b;
  for (int i = 0; i < n; ++i) {
    ScriptRow chain;
    chain.body = ScriptRow::Body::kChain;
    chain.head.fields = kComm | kTid | kEvent;
    chain.head.comm_unpadded = true;
    chain.head.comm = &comm;
    chain.head.event = &event;
    chain.head.tid = i;
    chain.begin = static_cast<std::uint32_t>(b.frames.size());
    b.frames.push_back({&line, 0, ScriptFrame::Kind::kWhole});
    b.frames.push_back({&tail, 0xabc, ScriptFrame::Kind::kIpTail});
    chain.end = static_cast<std::uint32_t>(b.frames.size());
    b.rows.push_back(chain);
    ScriptRow one = chain;
    one.body = ScriptRow::Body::kFrame;
    one.head.comm_unpadded = false;
    one.begin = static_cast<std::uint32_t>(b.frames.size());
    b.frames.push_back({&tail, 0x10, ScriptFrame::Kind::kTail});
    one.end = one.begin + 1;
    b.rows.push_back(one);
    ScriptRow text;
    text.body = ScriptRow::Body::kText;
    text.begin = static_cast<std::uint32_t>(b.text.size());
    b.text.append(fmt::format("side band {}\n", i));
    text.end = static_cast<std::uint32_t>(b.text.size());
    b.rows.push_back(text);
  }
  return b;
}

TEST(ScriptWriter, BatchLayout) {
  const std::string comm = "a", event = "ev", line = "\t  1 f (x)\n", tail = " g (y)";
  TextBuffer out;
  format_script_batch(sample_batch(comm, event, line, tail, 1), false, out);
  EXPECT_EQ(out.view(),
            "a     0 ev: \n\t  1 f (x)\n\t             abc g (y)\n\n"
            "               a     0 ev:   g (y)\n"
            "side band 0\n");
}

// Every worker count writes the same bytes, in submission order.
TEST(ScriptWriter, PipelineKeepsOrder) {
  const std::string comm = "a", event = "ev", line = "\t  1 f (x)\n", tail = " g (y)";
  const ScriptBatch all = sample_batch(comm, event, line, tail, 5000);
  TextBuffer expected;
  format_script_batch(all, false, expected);
  for (unsigned workers : {0u, 1u, 3u}) {
    std::ostringstream out;
    {
      ScriptPipeline pipeline(out, false, workers);
      for (const auto& row : all.rows) {
        ScriptBatch& b = pipeline.batch();
        ScriptRow r = row;
        if (r.body == ScriptRow::Body::kText) {
          r.begin = static_cast<std::uint32_t>(b.text.size());
          b.text.append(all.text.view().substr(row.begin, row.end - row.begin));
          r.end = static_cast<std::uint32_t>(b.text.size());
        } else {
          r.begin = static_cast<std::uint32_t>(b.frames.size());
          b.frames.insert(b.frames.end(), all.frames.begin() + row.begin,
                          all.frames.begin() + row.end);
          r.end = static_cast<std::uint32_t>(b.frames.size());
        }
        b.rows.push_back(r);
        ASSERT_TRUE(pipeline.submit_if_full());
      }
      EXPECT_TRUE(pipeline.finish());
    }
    EXPECT_EQ(out.str(), expected.view()) << workers << " workers";
  }
}

TEST(ScriptWriter, PipelineReportsWriteFailure) {
  std::ostringstream out;
  out.setstate(std::ios::badbit);
  const std::string comm = "a", event = "ev", line = "l\n", tail = " t";
  ScriptPipeline pipeline(out, false, 1);
  pipeline.batch() = sample_batch(comm, event, line, tail, 1);
  EXPECT_FALSE(pipeline.finish());
}

}  // namespace
}  // namespace perfx::report
