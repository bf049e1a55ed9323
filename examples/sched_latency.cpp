// Scheduling latency per task from a sched recording (perfx sched latency's library side).
// With a perf.data argument (from `perf sched record` or `perfx sched record`), analyses
// it; with none, analyses a small built-in trace: two threads, one preempted, one woken.
//
//   $ build/examples/example_sched_latency [perf.data]
//   task          tid  switches  avg delay  max delay   runtime
//   worker         11         2   0.500 ms   1.000 ms  3.000 ms
//   ...

#include <cstdio>
#include <string>

#include "perfx/sched.hpp"

namespace {

perfx::SchedEvent switch_event(std::uint64_t ms, int prev, char state, int next) {
  perfx::SchedEvent e;
  e.kind = perfx::SchedEventKind::kSwitch;
  e.time = ms * 1000000;
  e.cpu = 0;
  e.task = prev;
  e.state = state;
  e.other = next;
  e.comm = prev == 10 ? "sleeper" : (prev == 11 ? "worker" : "swapper/0");
  e.other_comm = next == 10 ? "sleeper" : (next == 11 ? "worker" : "swapper/0");
  return e;
}

perfx::SchedTrace builtin_trace() {
  perfx::SchedTrace t;
  t.nr_cpus = 1;
  t.has_waking = true;
  perfx::SchedEvent waking;
  waking.kind = perfx::SchedEventKind::kWaking;
  waking.time = 5000000;
  waking.cpu = 0;
  waking.task = 10;
  waking.comm = "sleeper";
  t.events = {switch_event(1, 0, 'R', 10),
              switch_event(2, 10, 'S', 11),
              switch_event(3, 11, 'R', 0),
              switch_event(4, 0, 'R', 11),
              waking,
              switch_event(6, 11, 'S', 10),
              switch_event(7, 10, 'S', 0)};
  return t;
}

}  // namespace

int main(int argc, char** argv) {
  perfx::SchedTrace trace;
  if (argc > 1) {
    auto loaded = perfx::load_sched_trace(argv[1]);
    if (!loaded) {
      std::fprintf(stderr, "%s\n", loaded.error().message().c_str());
      return 1;
    }
    trace = std::move(*loaded);
  } else {
    std::printf("(no perf.data given: a built-in trace of two tasks)\n");
    trace = builtin_trace();
  }
  perfx::SchedLatencyOptions options;
  options.per_pid = true;
  const perfx::SchedLatency lat = perfx::sched_latency(trace, options);
  std::printf("%-16s %7s %9s %10s %10s %10s\n", "task", "tid", "switches", "avg delay", "max delay",
              "runtime");
  for (const auto& r : lat.rows) {
    std::printf("%-16s %7d %9llu %7.3f ms %7.3f ms %7.3f ms\n", r.comm.c_str(), r.tid,
                static_cast<unsigned long long>(r.switches),
                static_cast<double>(r.avg_delay_ns()) / 1e6,
                static_cast<double>(r.max_delay_ns) / 1e6, static_cast<double>(r.runtime_ns) / 1e6);
  }
  const perfx::SchedTimehist th = perfx::sched_timehist(trace);
  std::printf("%zu context switches\n", th.lines.size());
  return 0;
}
