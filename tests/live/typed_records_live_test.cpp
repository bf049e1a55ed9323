// Typed records from the live ring buffer (Sampler::for_each_record / next_record): a
// software event samples this thread while it maps a file and renames itself (SAMPLE,
// MMAP2, COMM, no byte parsing); a tracepoint's RAW data; a uprobe's samples in a child.
// get<T>()-> after ASSERT_NE(..., nullptr) trips GCC 12 -Wnull-dereference (false positive).
#pragma GCC diagnostic ignored "-Wnull-dereference"

#include <fcntl.h>
#include <gtest/gtest.h>
#include <linux/perf_event.h>
#include <sys/mman.h>
#include <sys/prctl.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

#include <cstring>
#include <filesystem>
#include <string>
#include <vector>

#include "event/parse.hpp"
#include "live_support.hpp"
#include "perfx/records.hpp"
#include "perfx/sampler.hpp"
#include "sys/event_resolver.hpp"
#include "sys/workload.hpp"

namespace perfx {
namespace {

using live_support::burn_ms;
using record::Record;

pid_t gettid_() { return static_cast<pid_t>(::syscall(SYS_gettid)); }

// Asks for MMAP, MMAP2 and COMM records, with the sample_id trailer.
void with_side_band(raw::EventAttr& a) {
  a.mmap = 1;
  a.mmap2 = 1;
  a.comm = 1;
  a.sample_id_all = 1;
}

TEST(TypedRecordsLive, SelfSamplingGivesSampleMmap2AndComm) {
  auto a = live_support::sw_sampling(  // every 100 us of CPU
      PERF_COUNT_SW_TASK_CLOCK, 100000,
      PERF_SAMPLE_IP | PERF_SAMPLE_TID | PERF_SAMPLE_TIME | PERF_SAMPLE_PERIOD);
  with_side_band(a);
  auto opt = live_support::this_thread({"task-clock", a});
  opt.data_pages = 4;  // 16 KiB: 40-byte samples wrap it many times
  auto s = Sampler::open(opt);
  ASSERT_TRUE(s) << s.error().message();

  char old_name[17] = {};
  ::prctl(PR_GET_NAME, old_name);
  const int fd = ::open("/proc/self/exe", O_RDONLY | O_CLOEXEC);
  ASSERT_GE(fd, 0);
  ASSERT_TRUE(s->enable());
  void* map = ::mmap(nullptr, 4096, PROT_READ | PROT_EXEC, MAP_PRIVATE, fd, 0);
  ASSERT_NE(map, MAP_FAILED);
  ::prctl(PR_SET_NAME, "perfx-typed");

  std::uint64_t samples = 0, last_time = 0, bad_tid = 0, disorder = 0;
  bool saw_mmap2 = false, saw_comm = false;
  auto on_record = [&](const Record& rec, int cpu) -> Result<void> {
    EXPECT_EQ(cpu, -1);
    if (const auto* smp = rec.get<record::Sample>()) {
      ++samples;
      if (static_cast<pid_t>(smp->tid) != gettid_() || static_cast<pid_t>(smp->pid) != ::getpid())
        ++bad_tid;
      if (smp->time < last_time) ++disorder;
      last_time = smp->time;
      EXPECT_EQ(smp->period, 100000u);
      EXPECT_NE(smp->ip, 0u);
    } else if (const auto* m = rec.get<record::Mmap2>()) {
      if (m->addr == reinterpret_cast<std::uint64_t>(map)) {
        saw_mmap2 = true;
        EXPECT_EQ(m->len, 4096u);
        EXPECT_EQ(m->pgoff, 0u);
        EXPECT_EQ(static_cast<pid_t>(m->pid), ::getpid());
        EXPECT_NE(m->filename.find("perfx_live_tests"), std::string_view::npos) << m->filename;
        EXPECT_NE(m->prot & PROT_EXEC, 0u);
        EXPECT_EQ(rec.sample_id.tid, static_cast<std::uint32_t>(gettid_()));  // trailer
      }
    } else if (const auto* c = rec.get<record::Comm>()) {
      if (c->comm == "perfx-typed") {
        saw_comm = true;
        EXPECT_EQ(static_cast<pid_t>(c->tid), gettid_());
        EXPECT_FALSE(record::misc_comm_exec(rec.header.misc));
      }
    }
    return {};
  };
  for (int i = 0; i < 20; ++i) {
    burn_ms(10);
    auto n = s->for_each_record(on_record);
    ASSERT_TRUE(n) << n.error().message();
  }
  ASSERT_TRUE(s->disable());
  ASSERT_TRUE(s->for_each_record(on_record));
  ::prctl(PR_SET_NAME, old_name);
  ::munmap(map, 4096);
  ::close(fd);

  const SamplerStats st = s->stats();
  EXPECT_GT(samples + st.lost(), 200u);  // 200 ms of CPU at 100 us (fewer when CPUs are shared)
  EXPECT_EQ(st.samples, samples);
  EXPECT_EQ(bad_tid, 0u);
  EXPECT_EQ(disorder, 0u);
  EXPECT_TRUE(saw_mmap2);
  EXPECT_TRUE(saw_comm);
  EXPECT_EQ(st.malformed_records, 0u);
  EXPECT_EQ(st.corrupt_events, 0u);
  if (st.bytes > 8 * 16384) {
    EXPECT_GT(st.wrapped_records, 0u) << "no record was joined";
  }
}

TEST(TypedRecordsLive, TracepointRawThroughNextRecord) {
  auto id = live_support::getppid_tracepoint();
  if (!id) GTEST_SKIP() << "no syscalls:sys_enter_getppid tracepoint: " << id.error().message();
  auto s = live_support::sample_getppid_calls(*id, 100);
  ASSERT_TRUE(s) << s.error().message();
  int samples = 0;
  int cpu = 0;
  while (const Record* rec = s->next_record(&cpu)) {
    const auto* smp = rec->get<record::Sample>();
    ASSERT_NE(smp, nullptr) << record::record_type_name(rec->type());
    EXPECT_EQ(rec->attr_index, 0);
    EXPECT_EQ(cpu, -1);
    // RAW: the tracepoint's fields; the first u16 is common_type == the tracepoint id.
    ASSERT_GE(smp->raw.size(), 8u);
    std::uint16_t common_type = 0;
    std::memcpy(&common_type, smp->raw.data(), 2);
    EXPECT_EQ(common_type, *id);
    EXPECT_EQ(static_cast<pid_t>(smp->tid), gettid_());
    ++samples;
  }
  EXPECT_EQ(samples, 100);
  EXPECT_EQ(s->next_record(), nullptr);  // a new sweep: nothing new
  EXPECT_EQ(s->stats().samples, 100u);
}

// A uprobe on a function the child calls N times: N samples at that function's address,
// inside the MMAP2 of the fixture binary, after the COMM of its exec.
TEST(TypedRecordsLive, UprobeSamplesInAChild) {
  const std::string fixture = std::string(PERFX_FIXTURE_DIR) + "/uprobe_calls";
  ASSERT_EQ(::access(fixture.c_str(), X_OK), 0) << fixture << " was not built";
  if (::access("/sys/bus/event_source/devices/uprobe", F_OK) != 0) {
    GTEST_SKIP() << "no uprobe PMU (kernel without CONFIG_UPROBE_EVENTS)";
  }
  auto groups =
      event::parse_event_list("uprobe:" + fixture + ":uprobe_target", sys::system_resolver());
  ASSERT_TRUE(groups) << groups.error().message();  // owns the path config1 points at
  raw::EventAttr a = (*groups)[0].events[0].attr_for_open();
  a.sample_period = 1;
  a.sample_type = PERF_SAMPLE_IP | PERF_SAMPLE_TID | PERF_SAMPLE_TIME;
  with_side_band(a);
  a.disabled = 1;
  a.enable_on_exec = 1;
  constexpr int kCalls = 37;
  auto w = sys::Workload::prepare({fixture, std::to_string(kCalls)});
  ASSERT_TRUE(w) << w.error().message();
  SamplerOptions opt;
  opt.events.push_back({"uprobe_target", a});
  opt.pids = {w->pid()};
  opt.cpus = {-1};
  auto s = Sampler::open(opt);
  ASSERT_TRUE(s) << s.error().message();
  ASSERT_TRUE(w->start());
  auto st = w->wait();
  ASSERT_TRUE(st);
  EXPECT_EQ(st->code, 0);

  const std::string real_path = std::filesystem::canonical(fixture).string();
  std::vector<std::uint64_t> ips;
  std::uint64_t text_lo = 0, text_hi = 0;
  bool exec_comm = false;
  auto n = s->for_each_record([&](const Record& rec, int) -> Result<void> {
    if (const auto* smp = rec.get<record::Sample>()) {
      EXPECT_EQ(static_cast<pid_t>(smp->pid), w->pid());
      ips.push_back(smp->ip);
    } else if (const auto* m = rec.get<record::Mmap2>()) {
      if (m->filename == real_path && (m->prot & PROT_EXEC) != 0) {
        text_lo = m->addr;
        text_hi = m->addr + m->len;
      }
    } else if (const auto* c = rec.get<record::Comm>()) {
      if (c->comm == "uprobe_calls" && record::misc_comm_exec(rec.header.misc)) exec_comm = true;
    }
    return {};
  });
  ASSERT_TRUE(n) << n.error().message();
  ASSERT_EQ(ips.size(), static_cast<std::size_t>(kCalls));
  for (std::uint64_t ip : ips) EXPECT_EQ(ip, ips[0]);
  EXPECT_TRUE(exec_comm);
  ASSERT_NE(text_hi, 0u) << "no executable MMAP2 of " << fixture;
  EXPECT_GE(ips[0], text_lo);
  EXPECT_LT(ips[0], text_hi);
}

// Overwrite (write_backward) mode: for_each_record decodes a snapshot, oldest first.
TEST(TypedRecordsLive, OverwriteModeDecodesTheSnapshot) {
  const auto a = live_support::sw_sampling(PERF_COUNT_SW_TASK_CLOCK, 100000,
                                           PERF_SAMPLE_TID | PERF_SAMPLE_TIME);
  auto opt = live_support::this_thread({"task-clock", a});
  opt.data_pages = 1;
  opt.overwrite = true;
  auto s = Sampler::open(opt);
  ASSERT_TRUE(s) << s.error().message();
  ASSERT_TRUE(s->enable());
  burn_ms(100);
  ASSERT_TRUE(s->disable());
  EXPECT_EQ(s->next_record(), nullptr);  // forward-only API
  std::uint64_t samples = 0, last = 0, disorder = 0;
  auto n = s->for_each_record([&](const Record& rec, int) -> Result<void> {
    if (const auto* smp = rec.get<record::Sample>()) {
      ++samples;
      if (smp->time < last) ++disorder;
      last = smp->time;
      EXPECT_EQ(static_cast<pid_t>(smp->tid), gettid_());
    }
    return {};
  });
  ASSERT_TRUE(n) << n.error().message();
  EXPECT_GT(samples, 10u);
  EXPECT_LE(samples * 24, 4096u);  // one page keeps only the newest records
  EXPECT_EQ(disorder, 0u);
}

}  // namespace
}  // namespace perfx
