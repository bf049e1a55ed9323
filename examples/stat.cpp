// `perf stat` from a program: count software events over a command, then print the
// counts as perf stat does (perfx/stat.hpp). Here: `true`, counted with task-clock,
// context-switches and page-faults; the text goes to stdout.
//
//   $ build/examples/example_stat
//    Performance counter stats for 'true':
//                 0.52 msec task-clock                #    0.412 CPUs utilized
//   ...

#include <cstdio>
#include <string>
#include <vector>

#include "perfx/events.hpp"
#include "perfx/stat.hpp"
#include "perfx/system.hpp"

int main() {
  if (!perfx::perf_events_supported()) {
    std::printf("stat: this kernel has no perf events (no perf_event_paranoid)\n");
    return 0;
  }
  // The groups must outlive the session: a probe event's attr points into them.
  auto groups = perfx::parse_events("task-clock,context-switches,page-faults");
  if (!groups) {
    std::fprintf(stderr, "stat: %s\n", groups.error().message().c_str());
    return 1;
  }
  perfx::StatSessionConfig cfg;
  cfg.groups = perfx::counter_groups(*groups);
  cfg.command = {"true"};
  auto runs = perfx::run_stat_session(cfg);
  if (!runs) {
    std::printf("stat: cannot count here: %s\n", runs.error().message().c_str());
    return 0;  // an honest reason (perf_event_paranoid, no permission), not a failure
  }
  if (runs->empty() || runs->back().exec_errno != 0) {
    std::fprintf(stderr, "stat: %s\n",
                 perfx::explain_exec_errno(runs->back().exec_errno, "true").c_str());
    return 1;
  }
  perfx::StatReport report;
  report.target = perfx::describe_stat_target(cfg.command, false, "", "", "");
  report.entries = perfx::build_stat_entries({runs->front().counts}, {});
  report.elapsed_ns = static_cast<double>(runs->front().elapsed.count());
  std::fputs(perfx::format_stat(report, {}).c_str(), stdout);
  return 0;
}
