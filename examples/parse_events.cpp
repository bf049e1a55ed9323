// Parse perf's event syntax in one call and show what each event resolves to: its kind,
// its attr (perf -vv style), then count the whole list with a CounterSet.
//
//   $ build/examples/example_parse_events
//   group 0: task-clock:u (software)
//   ...

#include <cstdint>
#include <cstdio>
#include <string>

#include "perfx/counter.hpp"
#include "perfx/events.hpp"

namespace {
alignas(8) volatile std::uint64_t g_watched = 0;
}

int main() {
  const std::string spec = "task-clock:u,{cpu-clock,page-faults},sched:sched_switch,mem:" +
                           std::to_string(reinterpret_cast<std::uintptr_t>(&g_watched)) + ":w";
  auto groups = perfx::parse_events(spec);
  if (!groups) {
    std::fprintf(stderr, "parse_events: %s\n", groups.error().message().c_str());
    return 1;
  }
  for (std::size_t g = 0; g < groups->size(); ++g) {
    for (const perfx::EventSpec& e : (*groups)[g].events) {
      std::printf("group %zu%s: %s (%s)\n", g, (*groups)[g].is_group ? " {}" : "", e.name.c_str(),
                  perfx::event_kind_name(e.kind));
    }
  }
  std::printf("\n%s", perfx::describe_attr(groups->front().events.front().attr).c_str());

  auto set = perfx::CounterSet::open(perfx::counter_groups(*groups), perfx::CountTarget::self());
  if (!set) {
    std::fprintf(stderr, "counting: %s\n", set.error().message().c_str());
    return 1;
  }
  if (!set->enable()) return 1;
  for (int i = 0; i < 3; ++i) g_watched = g_watched + 1;
  if (!set->disable()) return 1;
  auto snap = set->read();
  if (!snap) return 1;
  std::printf("\n");
  for (std::size_t i = 0; i < snap->events.size(); ++i) {
    const perfx::Count c = snap->total(i);
    std::printf("%-28s %12.0f  %s\n", snap->events[i].name.c_str(), c.value,
                perfx::trust_name(c.trust));
    if (c.trust == perfx::Trust::kCannotFire) {
      std::printf("%-28s note: %s\n", "", snap->events[i].note.c_str());
    }
  }
  return 0;
}
