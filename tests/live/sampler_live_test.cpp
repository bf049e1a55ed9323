// perfx::Sampler on real events: software (cpu-clock, page-faults), a tracepoint, a
// hardware breakpoint, lost accounting with an undrained tiny buffer, overwrite-mode
// snapshots, and overflow signals with REFRESH.
#include "core/error_format.hpp"
#include "perfx/sampler.hpp"
#include "sys/breakpoint_check.hpp"

#include <gtest/gtest.h>
#include <linux/hw_breakpoint.h>
#include <linux/perf_event.h>
#include <signal.h>
#include <sys/mman.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

#include <cstring>
#include <vector>

#include "live_support.hpp"
#include "record/sample_layout.hpp"

namespace perfx {
namespace {

using live_support::burn_ms;
constexpr auto sw_attr = live_support::sw_sampling;

pid_t gettid_() { return static_cast<pid_t>(::syscall(SYS_gettid)); }

// Collects every record drained from a sampler.
struct Collected {
  std::vector<std::vector<std::byte>> records;
  std::size_t samples = 0;
};

Result<void> collect(Sampler& s, Collected& c) {
  auto r =
      s.drain([&](std::span<const std::byte> a, std::span<const std::byte> b, int) -> Result<void> {
        std::vector<std::byte> all(a.begin(), a.end());
        all.insert(all.end(), b.begin(), b.end());
        const std::size_t whole = live_support::for_each_packed_record(
            all, [&](std::uint32_t type, std::span<const std::byte> rec) {
              c.records.emplace_back(rec.begin(), rec.end());
              if (type == PERF_RECORD_SAMPLE) ++c.samples;
            });
        if (whole != all.size()) return fail(Errc::kMalformedData, "a bad record in the chunk");
        return {};
      });
  if (!r) return tl::unexpected(r.error());
  return {};
}

std::uint64_t u64_at(const std::vector<std::byte>& rec, std::int32_t off) {
  std::uint64_t v = 0;
  std::memcpy(&v, rec.data() + off, 8);
  return v;
}
std::uint32_t u32_at(const std::vector<std::byte>& rec, std::int32_t off) {
  std::uint32_t v = 0;
  std::memcpy(&v, rec.data() + off, 4);
  return v;
}
std::uint32_t type_of(const std::vector<std::byte>& rec) {
  std::uint32_t v = 0;
  std::memcpy(&v, rec.data(), 4);
  return v;
}

TEST(SamplerLive, CpuClockPerTaskBufferSamplesThisThread) {
  auto opt = live_support::this_thread(
      {"cpu-clock", sw_attr(PERF_COUNT_SW_CPU_CLOCK, 100000,
                            PERF_SAMPLE_IP | PERF_SAMPLE_TID | PERF_SAMPLE_TIME)});
  opt.data_pages = 4;  // small: 2000 samples of 32 bytes wrap it several times
  auto s = Sampler::open(opt);
  ASSERT_TRUE(s) << s.error().message();
  EXPECT_EQ(s->buffer_count(), 1u);
  ASSERT_EQ(s->ids(0).size(), 1u);
  ASSERT_TRUE(s->enable());
  Collected c;
  for (int i = 0; i < 20; ++i) {
    burn_ms(10, CLOCK_MONOTONIC);
    ASSERT_TRUE(collect(*s, c));
  }
  ASSERT_TRUE(s->disable());
  ASSERT_TRUE(collect(*s, c));
  // 200 ms of CPU at a 100 us period: up to 2000 samples (fewer when the CPUs are shared).
  const SamplerStats st0 = s->stats();
  EXPECT_GT(c.samples + st0.lost(), 400u);
  EXPECT_GT(c.samples * 32, 4u * 4096u) << "the buffer never wrapped";
  const auto layout = record::SampleLayout::from_attr(s->options().events[0].attr);
  std::uint64_t last_time = 0;
  for (const auto& rec : c.records) {
    if (type_of(rec) != PERF_RECORD_SAMPLE) continue;
    EXPECT_EQ(static_cast<pid_t>(u32_at(rec, layout.tid_offset + 4)), gettid_());
    const std::uint64_t t = u64_at(rec, layout.time_offset);
    EXPECT_GE(t, last_time);
    last_time = t;
  }
  const SamplerStats st = s->stats();
  EXPECT_EQ(st.samples, c.samples);
  EXPECT_EQ(st.corrupt_events, 0u);
}

TEST(SamplerLive, PageFaultsPerCpuBuffersWithInherit) {
  SamplerOptions opt;
  auto a = sw_attr(PERF_COUNT_SW_PAGE_FAULTS, 1,
                   PERF_SAMPLE_IP | PERF_SAMPLE_TID | PERF_SAMPLE_ADDR | PERF_SAMPLE_CPU);
  a.inherit = 1;  // kernel behaviour 3: needs per-CPU buffers
  opt.events.push_back({"page-faults", a});
  opt.pids = {0};  // cpus empty: every online CPU
  auto s = Sampler::open(opt);
  ASSERT_TRUE(s) << s.error().message();
  EXPECT_EQ(s->buffer_count(), s->cpus().size());
  EXPECT_EQ(s->ids(0).size(), s->cpus().size());
  const std::size_t page = static_cast<std::size_t>(::sysconf(_SC_PAGESIZE));
  const std::size_t npages = 256;
  void* mem =
      ::mmap(nullptr, npages * page, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
  ASSERT_NE(mem, MAP_FAILED);
  ASSERT_TRUE(s->enable());
  for (std::size_t i = 0; i < npages; ++i) static_cast<volatile char*>(mem)[i * page] = 1;
  ASSERT_TRUE(s->disable());
  Collected c;
  ASSERT_TRUE(collect(*s, c));
  const auto layout = record::SampleLayout::from_attr(s->options().events[0].attr);
  std::size_t in_range = 0;
  const auto base = reinterpret_cast<std::uint64_t>(mem);
  // ADDR follows TIME/ID..: compute its offset: header(8) + IP(8) + TID(8).
  for (const auto& rec : c.records) {
    if (type_of(rec) != PERF_RECORD_SAMPLE) continue;
    const std::uint64_t addr = u64_at(rec, layout.tid_offset + 8);
    if (addr >= base && addr < base + npages * page) ++in_range;
  }
  ::munmap(mem, npages * page);
  EXPECT_GE(in_range, npages);
}

TEST(SamplerLive, TracepointSamplesCarryRawData) {
  auto id = live_support::getppid_tracepoint();
  if (!id) GTEST_SKIP() << "no syscalls:sys_enter_getppid tracepoint: " << id.error().message();
  auto s = live_support::sample_getppid_calls(*id, 100);
  ASSERT_TRUE(s) << s.error().message();
  Collected c;
  ASSERT_TRUE(collect(*s, c));
  EXPECT_EQ(c.samples, 100u);
  for (const auto& rec : c.records) {
    if (type_of(rec) != PERF_RECORD_SAMPLE) continue;
    // RAW: u32 size then data whose first u16 is common_type == the tracepoint id.
    const std::uint32_t raw_size = u32_at(rec, 24);
    ASSERT_GE(raw_size, 8u);
    std::uint16_t common_type = 0;
    std::memcpy(&common_type, rec.data() + 28, 2);
    EXPECT_EQ(common_type, *id);
  }
}

volatile std::uint64_t g_watched = 0;

TEST(SamplerLive, BreakpointSamplesEveryWrite) {
  if (sys::check_hardware_breakpoints() == sys::BreakpointCheck::kSilent)
    GTEST_SKIP() << sys::kSilentBreakpointsReason;
  raw::EventAttr a = live_support::write_breakpoint(&g_watched);
  a.sample_period = 1;
  a.sample_type = PERF_SAMPLE_IP | PERF_SAMPLE_TID | PERF_SAMPLE_ADDR;
  a.disabled = 1;
  a.exclude_kernel = 1;
  auto s = Sampler::open(live_support::this_thread({"mem:watched:w", a}));
  if (!s && (s.error().sys_errno() == ENOSPC || s.error().sys_errno() == ENODEV)) {
    GTEST_SKIP() << "no breakpoint slot: " << s.error().message();
  }
  ASSERT_TRUE(s) << s.error().message();
  ASSERT_TRUE(s->enable());
  for (int i = 0; i < 10; ++i) g_watched = g_watched + 1;
  ASSERT_TRUE(s->disable());
  Collected c;
  ASSERT_TRUE(collect(*s, c));
  EXPECT_EQ(c.samples, 10u);
  for (const auto& rec : c.records) {
    if (type_of(rec) == PERF_RECORD_SAMPLE) {
      EXPECT_EQ(u64_at(rec, 24), reinterpret_cast<std::uint64_t>(&g_watched));
    }
  }
}

TEST(SamplerLive, LostSamplesCountedFromReadAndLostRecord) {
  // One undrained data page and 2000 page-fault samples: the buffer fills, the kernel
  // counts the rest as lost (PERF_FORMAT_LOST now, a PERF_RECORD_LOST after a drain).
  auto a = sw_attr(PERF_COUNT_SW_PAGE_FAULTS, 1, PERF_SAMPLE_IP | PERF_SAMPLE_TID);
  a.read_format = PERF_FORMAT_ID | PERF_FORMAT_LOST;
  auto opt = live_support::this_thread({"page-faults", a});
  opt.data_pages = 1;
  auto s = Sampler::open(opt);
  ASSERT_TRUE(s) << s.error().message();
  ASSERT_TRUE(s->enable());
  live_support::touch_pages(2000);
  ASSERT_TRUE(s->update_lost_from_read());
  const std::uint64_t lost_read = s->stats().lost_read;
  EXPECT_GT(lost_read, 1000u);
  Collected c;
  ASSERT_TRUE(collect(*s, c));
  EXPECT_LT(c.samples, 2000u);
  live_support::touch_pages(10);  // the next write after the drain emits PERF_RECORD_LOST
  ASSERT_TRUE(s->disable());
  ASSERT_TRUE(collect(*s, c));
  const SamplerStats st = s->stats();
  EXPECT_GE(st.lost_records, 1u);
  EXPECT_GE(st.lost_samples, lost_read);
  EXPECT_GE(st.lost(), lost_read);
}

TEST(SamplerLive, OverwriteModeKeepsNewestRecords) {
  auto a =
      sw_attr(PERF_COUNT_SW_PAGE_FAULTS, 1, PERF_SAMPLE_IP | PERF_SAMPLE_TID | PERF_SAMPLE_ADDR);
  auto opt = live_support::this_thread({"page-faults", a});
  opt.data_pages = 1;
  opt.overwrite = true;
  auto s = Sampler::open(opt);
  ASSERT_TRUE(s) << s.error().message();
  const std::size_t page = static_cast<std::size_t>(::sysconf(_SC_PAGESIZE));
  const std::size_t n = 2000;
  void* mem = ::mmap(nullptr, n * page, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
  ASSERT_NE(mem, MAP_FAILED);
  ASSERT_TRUE(s->enable());
  for (std::size_t i = 0; i < n; ++i) static_cast<volatile char*>(mem)[i * page] = 1;
  auto snap = s->snapshot();
  ASSERT_TRUE(s->disable());
  ASSERT_TRUE(snap) << snap.error().message();
  // 4096 / 32-byte samples: about 128 of the newest survive, oldest first.
  ASSERT_GT(snap->size(), 50u);
  EXPECT_LT(snap->size(), 200u);
  const auto base = reinterpret_cast<std::uint64_t>(mem);
  std::uint64_t prev = 0;
  std::size_t ordered = 0, samples = 0;
  for (const auto& rec : *snap) {
    if (type_of(rec) != PERF_RECORD_SAMPLE) continue;
    ++samples;
    const std::uint64_t addr = u64_at(rec, 24);
    if (addr >= base && addr < base + n * page) {
      if (addr > prev) ++ordered;
      prev = addr;
    }
  }
  // The last page touched is in the snapshot (newest kept), addresses ascend (oldest first).
  EXPECT_EQ(prev / page, (base + (n - 1) * page) / page);
  EXPECT_GE(ordered + 2, samples);
  ::munmap(mem, n * page);
}

TEST(SamplerLive, RefreshDeliversOverflowSignals) {
  sigset_t set;
  sigemptyset(&set);
  sigaddset(&set, SIGRTMIN + 1);
  ASSERT_EQ(::pthread_sigmask(SIG_BLOCK, &set, nullptr), 0);
  auto a = sw_attr(PERF_COUNT_SW_TASK_CLOCK, 1000000, PERF_SAMPLE_IP);
  a.wakeup_events = 1;
  auto opt = live_support::this_thread({"task-clock", a});
  auto s = Sampler::open(opt);
  ASSERT_TRUE(s) << s.error().message();
  ASSERT_TRUE(s->route_signals(SIGRTMIN + 1, gettid_()));
  ASSERT_TRUE(s->refresh(3));  // enables for 3 overflows, then the event disables itself
  burn_ms(30, CLOCK_MONOTONIC);
  int got = 0;
  siginfo_t info{};
  timespec zero{};
  while (::sigtimedwait(&set, &info, &zero) > 0) {
    ++got;
    EXPECT_EQ(info.si_fd, s->fds(0).at(0));
  }
  ASSERT_EQ(::pthread_sigmask(SIG_UNBLOCK, &set, nullptr), 0);
  // Real-time signals queue: exactly 3 overflows (2 x POLL_IN + POLL_HUP).
  EXPECT_EQ(got, 3);
}

TEST(SamplerLive, WaitReportsHangupWhenTargetExits) {
  const pid_t child = ::fork();
  ASSERT_GE(child, 0);
  if (child == 0) {
    ::usleep(100000);
    ::_exit(0);
  }
  auto a = sw_attr(PERF_COUNT_SW_CPU_CLOCK, 100000, PERF_SAMPLE_IP);
  a.disabled = 0;
  SamplerOptions opt;
  opt.events.push_back({"cpu-clock", a});
  opt.pids = {child};
  opt.cpus = {-1};
  auto s = Sampler::open(opt);
  ASSERT_TRUE(s) << s.error().message();
  bool hup = false;
  for (int i = 0; i < 50 && !hup; ++i) {
    auto w = s->wait(100);
    ASSERT_TRUE(w);
    hup = w->all_hung_up;
  }
  int status = 0;
  ::waitpid(child, &status, 0);
  EXPECT_TRUE(hup);
}

TEST(SamplerLive, OpenErrorNamesEventAndCpu) {
  raw::EventAttr a{};
  a.type = PERF_TYPE_SOFTWARE;
  a.config = 999;  // no such software event
  a.sample_period = 1000;
  auto s = Sampler::open(live_support::this_thread({"bogus", a}));
  ASSERT_FALSE(s);
  EXPECT_NE(s.error().message().find("bogus"), std::string::npos) << s.error().message();
  EXPECT_NE(s.error().sys_errno(), 0);
}

}  // namespace
}  // namespace perfx
