// perfx/system.hpp: a facade over sys::read_system_readings().

#include <sys/stat.h>

#include "perfx/system.hpp"
#include "sys/system_info.hpp"

namespace perfx {

PerfSettings perf_settings(const SystemPaths& paths) {
  const sys::SystemReadings r = sys::read_system_readings(paths.procfs);
  PerfSettings s;
  s.paranoid = r.paranoid;
  s.max_sample_rate = r.max_sample_rate;
  s.max_stack = r.max_stack;
  s.mlock_kb = r.mlock_kb;
  s.cpu_time_max_percent = r.cpu_time_max_percent;
  s.cap_effective = r.caps.effective;
  s.cap_perfmon = r.caps.has(sys::kCapPerfmon);
  s.cap_sys_admin = r.caps.has(sys::kCapSysAdmin);
  return s;
}

bool perf_events_supported(const SystemPaths& paths) {
  struct stat st {};
  return ::stat((paths.procfs + "/sys/kernel/perf_event_paranoid").c_str(), &st) == 0;
}

}  // namespace perfx
