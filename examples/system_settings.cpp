// What this kernel allows for perf events: the perf sysctls and the caller's capabilities.
//
//   $ build/examples/example_system_settings
//   perf events: supported
//   perf_event_paranoid 2, max_sample_rate 100000, max_stack 127, mlock_kb 516 ...

#include <cstdio>
#include <optional>

#include "perfx/system.hpp"

namespace {
int or_minus(const std::optional<int>& v) { return v ? *v : -999; }
}  // namespace

int main() {
  if (!perfx::perf_events_supported()) {
    std::printf("perf events: not supported (no /proc/sys/kernel/perf_event_paranoid)\n");
    return 0;
  }
  const perfx::PerfSettings s = perfx::perf_settings();
  std::printf("perf events: supported\n");
  std::printf(
      "perf_event_paranoid %d, max_sample_rate %d, max_stack %d, mlock_kb %d, "
      "cpu_time_max_percent %d (-999 = absent)\n",
      or_minus(s.paranoid), or_minus(s.max_sample_rate), or_minus(s.max_stack),
      or_minus(s.mlock_kb), or_minus(s.cpu_time_max_percent));
  std::printf("CAP_PERFMON %s, CAP_SYS_ADMIN %s: %s\n", s.cap_perfmon ? "yes" : "no",
              s.cap_sys_admin ? "yes" : "no",
              s.privileged() ? "perf_event_paranoid does not apply"
                             : "perf_event_paranoid limits what can be opened");
  return 0;
}
