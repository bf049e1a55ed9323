#pragma once
/// \file
/// Off-CPU (wall-clock) analysis, pure: pairs each thread's switch-out (a
/// `sched:sched_switch` sample taken in the thread that leaves the CPU, with its
/// callchain and prev_state) with its next switch-in (a PERF_RECORD_SWITCH "in" record of
/// the thread, or a sched_switch whose next_pid is the thread in a system-wide
/// recording), and gives the interval in between: blocked time when prev_state was not
/// runnable (sleep, I/O, lock waits), run-queue time when the thread was preempted and
/// waited for a CPU. load_profile() turns each interval into a sample weighted by its
/// length in nanoseconds, the unit of cpu-clock periods (docs/off-cpu.md).

#include <cstddef>
#include <cstdint>
#include <optional>
#include <span>
#include <unordered_map>

#include "perfx/off_cpu.hpp"

namespace perfx::profile {

/// What load_profile() makes of a recording's off-CPU data (public: perfx/off_cpu.hpp).
using OffCpuView = perfx::OffCpuView;

/// The fields of a sched:sched_switch RAW payload that off-CPU analysis needs.
struct SchedSwitch {
  std::int32_t prev_pid = 0;
  std::int64_t prev_state = 0;
  std::int32_t next_pid = 0;
};

/// Decodes a sched_switch payload (the layout every kernel since 4.x writes: prev_comm[16]
/// at 8, prev_pid at 24, prev_state (long) at 32, next_comm at 40, next_pid at 56);
/// nullopt when it is shorter than 64 bytes.
[[nodiscard]] std::optional<SchedSwitch> decode_sched_switch(std::span<const std::byte> raw);

/// Whether prev_state says the task blocked (S, D, T, t, X, Z, P, I: the low 8 bits of
/// TASK_REPORT), rather than being preempted while runnable (0, or only the
/// TASK_REPORT_MAX "preempted" bit that perf prints as "R+").
[[nodiscard]] constexpr bool is_blocked_state(std::int64_t prev_state) noexcept {
  return (prev_state & 0xff) != 0;
}

/// One off-CPU interval of a thread.
struct OffCpuInterval {
  std::uint32_t stack = 0;   ///< the switch-out sample's stack (caller's index space)
  std::uint32_t thread = 0;  ///< the caller's thread index of the switch-out sample
  std::uint16_t cpu = 0;     ///< the CPU it left
  std::uint64_t start_ns = 0;
  std::uint64_t duration_ns = 0;
  bool blocked = true;  ///< false: run-queue wait after preemption
};

/// Pairs switch-outs with switch-ins per tid. Feed records in time order.
class OffCpuTracker {
 public:
  /// Thread `tid` left the CPU at `time` (its sched_switch sample).
  void switch_out(std::int32_t tid, std::uint64_t time, bool blocked, std::uint32_t stack,
                  std::uint32_t thread, std::uint16_t cpu);
  /// Thread `tid` got a CPU at `time`: the interval since its switch-out, if one is open
  /// (a switch-in without one, e.g. the first of a recording, gives nothing).
  std::optional<OffCpuInterval> switch_in(std::int32_t tid, std::uint64_t time);
  /// Switch-outs never followed by a switch-in (threads that exited or still slept when
  /// the recording ended): not counted as off-CPU time.
  [[nodiscard]] std::size_t open_intervals() const noexcept { return open_.size(); }
  /// Switch-ins earlier than their switch-out (clock trouble): dropped.
  [[nodiscard]] std::uint64_t unpaired_switch_ins() const noexcept { return unpaired_; }

 private:
  std::unordered_map<std::int32_t, OffCpuInterval> open_;
  std::uint64_t unpaired_ = 0;
};

}  // namespace perfx::profile
