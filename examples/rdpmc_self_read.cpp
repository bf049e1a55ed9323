// Self-monitoring with rdpmc (perf_event_open(2), "cap_user_rdpmc"): read a counter of
// this thread without a system call when the metadata page allows it, and otherwise
// fall back to read(2) with the reason. On a machine without a hardware PMU (most VMs)
// the instructions counter cannot be opened, so this reads task-clock and says why the
// fast path is not used.
//
//   $ build/examples/example_rdpmc_self_read
//   note: no hardware PMU for this event, so no rdpmc self-monitoring (...)
//   task-clock: 2154321 (read(2): a software event (type 1) is counted by the kernel: ...)

#include <linux/perf_event.h>

#include <cstdio>

#include "perfx/self_monitor.hpp"

namespace {

volatile std::uint64_t g_sink = 0;

void work() {
  for (std::uint64_t i = 0; i < 5'000'000; ++i) g_sink = g_sink + i * i;
}

}  // namespace

int main() {
  perfx::raw::EventAttr attr{};
  attr.type = PERF_TYPE_HARDWARE;
  attr.config = PERF_COUNT_HW_INSTRUCTIONS;
  attr.exclude_kernel = 1;
  attr.exclude_hv = 1;
  const char* name = "instructions:u";
  auto mon = perfx::SelfMonitor::open(attr);
  if (!mon && mon.error().code() == perfx::Errc::kNotSupported) {
    std::printf("note: %s\n", mon.error().message().c_str());
    attr = perfx::raw::EventAttr{};
    attr.type = PERF_TYPE_SOFTWARE;
    attr.config = PERF_COUNT_SW_TASK_CLOCK;
    name = "task-clock";
    mon = perfx::SelfMonitor::open(attr);
  }
  if (!mon) {
    std::fprintf(stderr, "rdpmc_self_read: %s\n", mon.error().message().c_str());
    return 1;
  }
  if (!mon->enable()) return 1;
  work();
  auto r = mon->read();  // rdpmc when the page allows, read(2) otherwise
  if (!r) {
    std::fprintf(stderr, "rdpmc_self_read: %s\n", r.error().message().c_str());
    return 1;
  }
  std::printf("%s: %.0f (%s)\n", name, r->scaled.value,
              r->fast_path ? "rdpmc, no system call" : ("read(2): " + r->reason).c_str());
  auto snap = mon->page().snapshot();
  if (snap) {
    std::printf(
        "metadata page: lock %u, index %u, cap_user_rdpmc %d, cap_user_time %d, "
        "pmc_width %u, %u seqlock retries\n",
        snap->lock, snap->index, snap->capabilities.user_rdpmc ? 1 : 0,
        snap->capabilities.user_time ? 1 : 0, snap->pmc_width, r->retries);
  }
  return 0;
}
