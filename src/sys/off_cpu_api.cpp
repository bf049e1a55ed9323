// perfx/off_cpu.hpp: the events of an off-CPU recording (the analysis is
// profile/off_cpu.hpp, applied when a recording is loaded).

#include "perfx/off_cpu.hpp"

namespace perfx {

Result<OffCpuRecording> off_cpu_recording(const SystemPaths& paths) {
  auto sw = tracepoint_event("sched", "sched_switch", paths);
  if (!sw) {
    return tl::unexpected(std::move(sw).error().context("--off-cpu needs sched:sched_switch"));
  }
  OffCpuRecording out;
  out.switch_event = std::move(*sw);
  out.on_cpu_event = software_event(SoftwareEvent::kCpuClock);
  return out;
}

}  // namespace perfx
