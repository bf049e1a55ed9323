// Define a uprobe on a function of this very program through tracefs (as `perf probe -x
// prog func`), count its calls with a CounterSet, and delete it again.
//
//   $ sudo build/examples/example_probe
//   definition: p:probe_example_probe/probed_function /.../example_probe:0x1a2b
//   probe_example_probe:probed_function counted 5 calls
//
// Without root (tracefs is root-only by default) it prints the definition and the reason
// the probe could not be added, and exits 0.

#include <cstdio>
#include <string>
#include <vector>

#include "perfx/counter.hpp"
#include "perfx/events.hpp"
#include "perfx/probe.hpp"

extern "C" __attribute__((noinline)) void probed_function(int i) {
  static volatile int sink;
  sink = sink + i;
}

int main() {
  perfx::ProbeRequest req;
  req.binary = "/proc/self/exe";
  req.spec = "probed_function";
  auto def = perfx::resolve_probe(req);
  if (!def) {
    std::fprintf(stderr, "resolve_probe: %s\n", def.error().message().c_str());
    return 1;
  }
  std::printf("definition: %s\n", def->definition().c_str());
  auto added = perfx::add_probe(req);
  if (!added) {
    std::printf("not added here: %s\n", added.error().message().c_str());
    return 0;
  }
  int rc = 0;
  if (auto groups = perfx::parse_events(added->name())) {
    auto set = perfx::CounterSet::open(perfx::counter_groups(*groups), perfx::CountTarget::self());
    if (set && set->enable()) {
      for (int i = 0; i < 5; ++i) probed_function(i);
      (void)set->disable();
      if (auto snap = set->read()) {
        std::printf("%s counted %.0f calls\n", added->name().c_str(), snap->total(0).value);
      }
    } else {
      std::fprintf(stderr, "counting %s failed\n", added->name().c_str());
      rc = 1;
    }
  }  // the counters are closed before the probe is deleted (an open probe is busy)
  if (auto gone = perfx::delete_probes(added->name()); !gone) {
    std::fprintf(stderr, "delete_probes: %s\n", gone.error().message().c_str());
    rc = 1;
  }
  return rc;
}
