// Self-monitoring read paths: the metadata page's seqlock loop (read_page_count with a
// stand-in for rdpmc, since CI machines have no PMU), a full page snapshot, and the
// read(2) fallback of a task-clock counter, so the cost of a syscall read is seen next
// to the cost of the user-space sequence.
//
//   build/bench/self_monitor_bench

#include <linux/perf_event.h>

#include <benchmark/benchmark.h>

#include "perfx/mmap_page.hpp"
#include "perfx/self_monitor.hpp"

namespace {

// A simulated page that allows rdpmc (index 1, 48-bit counter).
struct SimulatedPage {
  alignas(4096) perf_event_mmap_page page{};
  SimulatedPage() {
    page.lock = 2;
    page.index = 1;
    page.offset = -1000;
    page.pmc_width = 48;
    page.time_enabled = page.time_running = 12345;
    page.capabilities = (1ULL << 1) | (1ULL << 2);  // bit0_is_deprecated | cap_user_rdpmc
  }
};

std::uint64_t fake_pmc(std::uint32_t) { return 5000; }

void BM_PageCountLoop(benchmark::State& state) {
  SimulatedPage p;
  perfx::CounterReaders readers;
  readers.read_pmc = fake_pmc;
  const perfx::MmapPageView view(&p.page);
  for (auto _ : state) {
    auto pc = perfx::read_page_count(view, readers);
    benchmark::DoNotOptimize(pc);
  }
}
BENCHMARK(BM_PageCountLoop);

void BM_PageSnapshot(benchmark::State& state) {
  SimulatedPage p;
  const perfx::MmapPageView view(&p.page);
  for (auto _ : state) {
    auto s = view.snapshot();
    benchmark::DoNotOptimize(s);
  }
}
BENCHMARK(BM_PageSnapshot);

void BM_ReadSyscallTaskClock(benchmark::State& state) {
  perfx::raw::EventAttr attr{};
  attr.type = PERF_TYPE_SOFTWARE;
  attr.config = PERF_COUNT_SW_TASK_CLOCK;
  auto mon = perfx::SelfMonitor::open(attr);
  if (!mon || !mon->enable()) {
    state.SkipWithError("cannot open task-clock");
    return;
  }
  for (auto _ : state) {
    auto r = mon->read();  // a software event: read(2), with the reason
    benchmark::DoNotOptimize(r);
  }
}
BENCHMARK(BM_ReadSyscallTaskClock);

}  // namespace

BENCHMARK_MAIN();
