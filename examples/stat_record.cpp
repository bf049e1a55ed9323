// `perf stat record` and `perf stat report` from a program (perfx/stat_record.hpp): count
// `true` with task-clock and page-faults, write the readings to a perf.data in /tmp (which
// `perf stat report -i` reads too), read it back and print it as perf stat report does.
//
//   $ build/examples/example_stat_record
//    Performance counter stats for '.../example_stat_record':
//                 0.52 msec task-clock                #    0.412 CPUs utilized
//   ...

#include <unistd.h>

#include <cstdio>
#include <string>

#include "perfx/events.hpp"
#include "perfx/stat.hpp"
#include "perfx/stat_record.hpp"
#include "perfx/system.hpp"

int main() {
  if (!perfx::perf_events_supported()) {
    std::printf("stat_record: this kernel has no perf events (no perf_event_paranoid)\n");
    return 0;
  }
  auto fail = [](const perfx::Error& e) {
    std::fprintf(stderr, "stat_record: %s\n", e.message().c_str());
    return 1;
  };
  perfx::StatSessionConfig cfg;
  cfg.command = {"true"};
  auto groups = perfx::parse_events("task-clock,page-faults");  // outlives the session
  if (!groups) return fail(groups.error());
  cfg.groups = perfx::counter_groups(*groups);
  const std::string path = "/tmp/perfx_example_stat_" + std::to_string(::getpid()) + ".data";
  perfx::StatRecorder recorder(path, {});
  recorder.attach(cfg);
  auto runs = perfx::run_stat_session(cfg);
  if (!runs) {
    std::printf("stat_record: cannot count here: %s\n", runs.error().message().c_str());
    return 0;  // an honest reason (perf_event_paranoid, no permission), not a failure
  }
  if (auto ok = recorder.finish(*runs); !ok) return fail(ok.error());
  auto file = perfx::read_stat_recording(path);
  ::unlink(path.c_str());
  if (!file) return fail(file.error());
  for (const auto& p : perfx::stat_recording_printouts(*file, std::nullopt)) {
    std::fputs(p.interval ? perfx::format_stat_interval(p.report, {}, p.time_s, p.header).c_str()
                          : perfx::format_stat(p.report, {}).c_str(),
               stdout);
  }
  return 0;
}
