// System-call tracing with the library (perfx/trace.hpp), no ptrace: run `ls /` under the
// raw_syscalls tracepoints, print the openat calls perf-trace style with their decoded
// arguments (paths read from the process, best effort), then the -s summary.
//
//   $ build/examples/example_trace
//        0.051 ( 0.006 ms): ls/4242 openat(dfd: CWD, filename: "/etc/ld.so.cache", ...) = 3
//   ...
//    Summary of events:
//    ls (4242), 262 events, 100.0%
//      syscall            calls  errors  total  ...
//
// Without tracefs or the rights to open tracepoints it says why and exits 0.

#include <cstdio>

#include "perfx/trace.hpp"

int main() {
  auto catalog = perfx::SyscallCatalog::load();
  if (!catalog) {
    std::printf("cannot trace here: %s\n", catalog.error().message().c_str());
    return 0;
  }
  perfx::TraceOptions opt;
  opt.command = {"ls", "/"};
  opt.catalog = &*catalog;
  perfx::TraceFormatOptions fmt;
  fmt.catalog = &*catalog;
  perfx::TraceSummary summary;
  bool first = true;
  auto r = perfx::run_trace(opt, [&](const perfx::TraceEvent& ev) {
    summary.add(ev);
    if (first) fmt.base_time = ev.time;
    first = false;
    if (ev.name == "openat") std::fputs(perfx::format_trace_event(ev, fmt).c_str(), stdout);
  });
  if (!r) {
    std::printf("cannot trace here: %s\n", r.error().message().c_str());
    return 0;
  }
  std::fputs(summary.format().c_str(), stdout);
  std::printf("%llu events, %llu lost, %llu strings read, %llu not readable\n",
              static_cast<unsigned long long>(r->events), static_cast<unsigned long long>(r->lost),
              static_cast<unsigned long long>(r->strings_read),
              static_cast<unsigned long long>(r->strings_failed));
  return 0;
}
