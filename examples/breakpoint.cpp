// A hardware breakpoint (mem:ADDR:w) counting the stores to one variable. Some hypervisors
// accept breakpoint events but never deliver the debug trap: then the count is 0 and
// CounterSet marks it Trust::kCannotFire with the reason, instead of an exact-looking 0.
//
//   $ build/examples/example_breakpoint
//   writes to g_watched: 0 (cannot fire: hardware breakpoints open but never fire ...)

#include <cstdint>
#include <cstdio>
#include <vector>

#include "perfx/counter.hpp"
#include "perfx/events.hpp"

namespace {
alignas(8) volatile std::uint64_t g_watched = 0;
}

int main() {
  auto bp = perfx::breakpoint_event(reinterpret_cast<std::uintptr_t>(&g_watched),
                                    perfx::BreakpointAccess::kWrite, sizeof(g_watched));
  if (!bp) {
    std::fprintf(stderr, "breakpoint: %s\n", bp.error().message().c_str());
    return 1;
  }
  bp->attr.exclude_kernel = 1;
  const std::vector<perfx::CounterGroupSpec> groups = {{{{bp->name, bp->attr}}, false}};
  auto set = perfx::CounterSet::open(groups, perfx::CountTarget::self());
  if (!set) {
    std::printf("breakpoint: cannot open a hardware breakpoint here: %s\n",
                set.error().message().c_str());
    return 0;  // an honest reason, not a failure of the example
  }
  if (!set->enable()) return 1;
  for (int i = 0; i < 10; ++i) g_watched = g_watched + 1;
  if (!set->disable()) return 1;
  auto snap = set->read();
  if (!snap) return 1;
  const perfx::Count c = snap->total(0);
  std::printf("writes to g_watched: %.0f (%s)\n", c.value, perfx::trust_name(c.trust));
  if (c.trust == perfx::Trust::kCannotFire) {
    std::printf("this machine cannot fire breakpoints: %s\n", snap->events[0].note.c_str());
  }
  return 0;
}
