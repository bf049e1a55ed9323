// What an off-CPU (wall-clock) recording adds, as `perfx record --off-cpu` uses it: the
// sched_switch event sampled at every switch with callchains, the on-CPU clock event
// sharing its ns time scale, and the context-switch records giving switch-in times.
//
//   $ build/examples/example_off_cpu
//   on-CPU event:  cpu-clock (software)
//   switch event:  sched:sched_switch (tracepoint, config 372)
//   ...
//
// Where tracefs cannot be read (not root), it prints the reason and exits 0.

#include <cstdio>

#include "perfx/off_cpu.hpp"

int main() {
  auto oc = perfx::off_cpu_recording();
  if (!oc) {
    std::printf("no off-CPU recording here: %s\n", oc.error().message().c_str());
    return 0;
  }
  std::printf("on-CPU event:  %s (%s)\n", oc->on_cpu_event.name.c_str(),
              perfx::event_kind_name(oc->on_cpu_event.kind));
  std::printf("switch event:  %s (%s, config %llu)\n", oc->switch_event.name.c_str(),
              perfx::event_kind_name(oc->switch_event.kind),
              static_cast<unsigned long long>(oc->switch_event.attr.config));
  std::printf("context-switch records: %s; callchains needed: %s\n",
              oc->context_switch_records ? "yes" : "no", oc->needs_callchains ? "yes" : "no");
  return 0;
}
