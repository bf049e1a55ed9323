// The perf_event_open(2) man page example with the perfx counting API: count the
// instructions of one printf(). On a machine without a hardware PMU (most VMs) the
// instructions counter is not supported, so we fall back to task-clock and say so.
//
//   $ build/examples/example_count_printf
//   Measuring instruction count for this printf
//   Used 24513 instructions

#include <linux/perf_event.h>

#include <cstdio>

#include "perfx/counter.hpp"

namespace {

perfx::CounterEvent make_event(const char* name, std::uint32_t type, std::uint64_t config) {
  perfx::CounterEvent ev;
  ev.name = name;
  ev.attr.type = type;
  ev.attr.config = config;
  ev.attr.exclude_kernel = 1;  // as in the man page
  ev.attr.exclude_hv = 1;
  return ev;
}

}  // namespace

int main() {
  const std::vector<perfx::CounterGroupSpec> groups{
      {{make_event("instructions", PERF_TYPE_HARDWARE, PERF_COUNT_HW_INSTRUCTIONS)}, false},
      {{make_event("task-clock", PERF_TYPE_SOFTWARE, PERF_COUNT_SW_TASK_CLOCK)}, false}};
  auto set = perfx::CounterSet::open(groups, perfx::CountTarget::self());
  if (!set) {
    std::fprintf(stderr, "count_printf: %s\n", set.error().message().c_str());
    return 1;
  }
  // RESET, ENABLE, the measured code, DISABLE: the man page's sequence.
  if (!set->reset() || !set->enable()) return 1;
  std::printf("Measuring instruction count for this printf\n");
  if (!set->disable()) return 1;

  auto snap = set->read();
  if (!snap) {
    std::fprintf(stderr, "count_printf: %s\n", snap.error().message().c_str());
    return 1;
  }
  const perfx::Count insns = snap->total(0);
  if (insns.trust != perfx::Trust::kNotSupported) {
    std::printf("Used %.0f instructions%s\n", insns.value,
                insns.trust == perfx::Trust::kScaled ? " (scaled: the PMU was multiplexed)" : "");
    return 0;
  }
  const perfx::Count clock = snap->total(1);
  std::printf("note: %s\n", snap->events[0].error.c_str());
  std::printf("note: no hardware PMU, so this counts task-clock instead of instructions\n");
  std::printf("Used %.0f ns of task-clock\n", clock.value);
  return 0;
}
