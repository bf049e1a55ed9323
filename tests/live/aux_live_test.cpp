// The AUX area on the real kernel. This VM has no AUX-capable PMU (no intel_pt, cs_etm,
// arm_spe ...): mapping an AUX area on a software event must fail with EOPNOTSUPP and a
// message saying why, leaving the page as it was; a real trace capture is skipped.

#include <linux/perf_event.h>
#include <unistd.h>

#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <string>

#include "live_support.hpp"
#include "perfx/aux.hpp"
#include "perfx/mmap_page.hpp"
#include "perfx/sampler.hpp"
#include "sys/ioctl.hpp"
#include "sys/perf_event_open.hpp"
#include "sys/ring_buffer.hpp"

namespace perfx {
namespace {

TEST(AuxLive, SoftwareEventHasNoAuxAreaAndSaysWhy) {
  const auto a = live_support::sw_sampling(PERF_COUNT_SW_CPU_CLOCK, 1'000'000, PERF_SAMPLE_IP);
  auto fd = sys::perf_event_open(a, 0, -1, -1);
  ASSERT_TRUE(fd) << fd.error().message();
  auto ring = sys::RingBuffer::map(fd->get(), 4, sys::RingMode::kForward);
  ASSERT_TRUE(ring) << ring.error().message();
  MmapPageView page(ring->control());

  auto aux = AuxBuffer::map(fd->get(), page, 8, AuxMode::kTruncate);
  ASSERT_FALSE(aux);
  EXPECT_EQ(aux.error().code(), Errc::kNotSupported) << aux.error().message();
  EXPECT_EQ(aux.error().sys_errno(), EOPNOTSUPP);
  EXPECT_NE(aux.error().message().find("no AUX area support"), std::string::npos)
      << aux.error().message();
  auto snap = page.snapshot();
  ASSERT_TRUE(snap);
  EXPECT_EQ(snap->aux_offset, 0u);  // put back after the failed mmap
  EXPECT_EQ(snap->aux_size, 0u);
  EXPECT_EQ(snap->data_size, 4u * static_cast<std::uint64_t>(::sysconf(_SC_PAGESIZE)));

  auto bad = AuxBuffer::map(fd->get(), page, 3, AuxMode::kOverwrite);  // not a power of two
  ASSERT_FALSE(bad);
  EXPECT_EQ(bad.error().code(), Errc::kInvalidArgument);
}

TEST(AuxLive, CountingPageWithoutDataAreaIsRefused) {
  raw::EventAttr a{};
  a.type = PERF_TYPE_SOFTWARE;
  a.config = PERF_COUNT_SW_TASK_CLOCK;
  auto fd = sys::perf_event_open(a, 0, -1, -1);
  ASSERT_TRUE(fd) << fd.error().message();
  auto ring = sys::RingBuffer::map(fd->get(), 0, sys::RingMode::kForward);
  ASSERT_TRUE(ring) << ring.error().message();
  auto aux = AuxBuffer::map(fd->get(), MmapPageView(ring->control()), 1, AuxMode::kTruncate);
  ASSERT_FALSE(aux);
  EXPECT_NE(aux.error().message().find("no data area"), std::string::npos);
}

/// The type number of the first AUX-capable PMU in sysfs, or -1.
int aux_pmu_type(std::string& name) {
  for (const char* pmu : {"intel_pt", "cs_etm", "arm_spe_0", "arm_spe"}) {
    std::ifstream in(std::string("/sys/bus/event_source/devices/") + pmu + "/type");
    int type = -1;
    if (in >> type) {
      name = pmu;
      return type;
    }
  }
  return -1;
}

TEST(AuxLive, CapturesTraceDataOnAnAuxCapablePmu) {
  std::string name;
  const int type = aux_pmu_type(name);
  if (type < 0) {
    GTEST_SKIP() << "no AUX-capable PMU on this machine (no intel_pt, cs_etm or arm_spe in "
                    "/sys/bus/event_source/devices): AUX capture cannot run here";
  }
  raw::EventAttr a{};
  a.type = static_cast<std::uint32_t>(type);
  a.exclude_kernel = 1;
  a.disabled = 1;
  auto fd = sys::perf_event_open(a, 0, -1, -1);
  ASSERT_TRUE(fd) << name << ": " << fd.error().message();
  auto ring = sys::RingBuffer::map(fd->get(), 8, sys::RingMode::kForward);
  ASSERT_TRUE(ring) << ring.error().message();
  auto aux = AuxBuffer::map(fd->get(), MmapPageView(ring->control()), 16, AuxMode::kTruncate);
  ASSERT_TRUE(aux) << aux.error().message();
  ASSERT_TRUE(sys::ioc_enable(fd->get()));
  volatile std::uint64_t x = 0;
  for (int i = 0; i < 1'000'000; ++i) x = x + static_cast<std::uint64_t>(i);
  ASSERT_TRUE(sys::ioc_disable(fd->get()));
  const AuxChunk chunk = aux->pending();
  EXPECT_GT(chunk.size(), 0u) << name << " wrote no trace data";
  aux->consume(chunk);
  EXPECT_EQ(aux->tail(), chunk.end);
}

// The same through the public Sampler: its buffers' pages and fds are where an AUX area
// would go.
TEST(AuxLive, SamplerBufferPageAndFd) {
  const auto a = live_support::sw_sampling(PERF_COUNT_SW_CPU_CLOCK, 100'000, PERF_SAMPLE_IP);
  auto opt = live_support::this_thread({"cpu-clock", a});
  opt.data_pages = 4;
  auto s = Sampler::open(std::move(opt));
  ASSERT_TRUE(s) << s.error().message();
  ASSERT_EQ(s->buffer_count(), 1u);
  ASSERT_TRUE(s->enable());
  volatile std::uint64_t x = 0;
  for (int i = 0; i < 20'000'000; ++i) x = x + static_cast<std::uint64_t>(i);
  ASSERT_TRUE(s->disable());
  const MmapPageView page = s->mmap_page(0);
  auto snap = page.snapshot();
  ASSERT_TRUE(snap) << snap.error().message();
  EXPECT_EQ(snap->data_size, 4u * static_cast<std::uint64_t>(::sysconf(_SC_PAGESIZE)));
  EXPECT_GT(snap->data_head, 0u);  // samples were written
  EXPECT_EQ(page.data_head(), snap->data_head);
  auto aux = AuxBuffer::map(s->buffer_fd(0), page, 4, AuxMode::kTruncate);
  ASSERT_FALSE(aux);
  EXPECT_EQ(aux.error().sys_errno(), EOPNOTSUPP);
}

}  // namespace
}  // namespace perfx
