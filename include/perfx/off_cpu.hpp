#pragma once
/// \file
/// Off-CPU and wall-clock profiles without BPF: what `perfx record --off-cpu` (alias
/// `--wall`) adds to a recording so that reading it shows where each thread was blocked
/// and for how long, on the same time scale as its cpu-clock samples.
///
/// The recording gets `sched:sched_switch` sampled at every switch with callchains (the
/// sample is taken in the thread leaving the CPU: its stack is where it blocked, its
/// prev_state says whether it blocked or was preempted) and context-switch records
/// (PERF_RECORD_SWITCH: the time each thread got a CPU back). Loading the recording pairs
/// each switch-out with the thread's next switch-in and adds one sample per interval,
/// weighted by its length in nanoseconds (the unit of cpu-clock periods), its stack
/// ending in an "[off-cpu]" frame (blocked) or "[run-queue]" (preempted, waiting for a
/// CPU). See docs/off-cpu.md for how this compares with perf's BPF-based --off-cpu.
///
/// \code
///   auto oc = perfx::off_cpu_recording();
///   // add oc->switch_event to the sampled events (period 1, PERF_SAMPLE_RAW and
///   // PERF_SAMPLE_CALLCHAIN), set attr.context_switch on the tracking event.
/// \endcode

#include <cstdint>

#include "perfx/error.hpp"
#include "perfx/events.hpp"

namespace perfx {

/// How reading an off-CPU recording presents its intervals (the profile loader's
/// `off_cpu` option).
enum class OffCpuView : std::uint8_t {
  kNone,      ///< leave the sched_switch samples as they are
  kSeparate,  ///< perf's way: new events "offcpu-time" and "runqueue-time" (ns)
  kWall,      ///< one time scale: the intervals join the on-CPU clock event's samples,
              ///< the event renamed "<event>+offcpu-time" (the default)
};

/// The events and attr bits an off-CPU recording needs.
struct PERFX_API OffCpuRecording {
  /// `sched:sched_switch`, to be sampled at every hit (period 1) with PERF_SAMPLE_RAW,
  /// PERF_SAMPLE_TID, PERF_SAMPLE_TIME and PERF_SAMPLE_CALLCHAIN.
  EventSpec switch_event;
  /// The on-CPU event sharing the time scale: `cpu-clock` (its periods are nanoseconds;
  /// a hardware cycles event's are not), used when no event was chosen.
  EventSpec on_cpu_event;
  /// attr.context_switch on the tracking event: PERF_RECORD_SWITCH "in" records give
  /// the end of each off-CPU interval (a per-thread recording sees no sched_switch of
  /// the thread coming back).
  bool context_switch_records = true;
  /// The switch-out stacks need callchains: frame pointers (-g) unless a call-graph mode
  /// was chosen.
  bool needs_callchains = true;
};

/// What `record --off-cpu` adds. kNotFound when tracefs or sched:sched_switch is missing
/// (the message says how to mount tracefs), kPermission when tracefs cannot be read.
[[nodiscard]] PERFX_API Result<OffCpuRecording> off_cpu_recording(const SystemPaths& paths = {});

}  // namespace perfx
