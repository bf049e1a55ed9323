// perfx/system.hpp: a facade over sys::read_system_readings() and the CPU and pid list
// parsers (sys/cpu_list.hpp, sys/process.hpp).

#include <sys/stat.h>

#include "perfx/system.hpp"
#include "sys/cpu_list.hpp"
#include "sys/process.hpp"
#include "sys/signals.hpp"
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

Result<std::vector<int>> parse_cpu_list(std::string_view text) { return sys::parse_cpus(text); }

Result<std::vector<int>> online_cpus(const SystemPaths& paths) {
  return sys::read_online_cpus(paths.sysfs + "/devices/system/cpu/online");
}

Result<std::vector<pid_t>> parse_pid_list(std::string_view text) {
  return sys::parse_pid_list(text);
}

void latch_stop_signals() { sys::latch_stop_signals(); }

int take_stop_signal() noexcept { return sys::take_latched_signal(); }

}  // namespace perfx
