#pragma once
/// \file
/// What the record and live sessions (record_session.cpp, live_session.cpp) share: the
/// target of a plan resolved on this system (CPUs, tasks, cgroup, workload), opening the
/// plan's events with perf's fallbacks and the synthesis of what already runs.

#include <sys/types.h>

#include <cstddef>
#include <cstdint>
#include <optional>
#include <span>
#include <vector>

#include "core/record_walk.hpp"
#include "perfx/error.hpp"
#include "perfx/record.hpp"
#include "perfx/sampler.hpp"
#include "record/sample_layout.hpp"
#include "sys/unique_fd.hpp"
#include "sys/workload.hpp"

namespace perfx::sys {

/// A plan's target on this system.
struct RecordTarget {
  std::vector<pid_t> pids{-1};       ///< what perf_event_open follows (-1: every task)
  std::vector<int> cpus;             ///< -C (empty: every online CPU)
  UniqueFd cgroup;                   ///< -G
  std::vector<pid_t> synth_pids;     ///< the processes whose maps are synthesized
  std::optional<Workload> workload;  ///< the command, forked and waiting for start()
};

/// Resolves -C (checked against the online CPUs), -G, -p/-t (every thread of -p's
/// processes) and prepares the command. perf record's precedence: with -a/-C the tasks
/// of -p/-t are not followed; perf top: tasks and CPUs together.
[[nodiscard]] Result<RecordTarget> resolve_record_target(const RecordPlan& plan);

/// Sampler::open() of the plan's events with perf's fallbacks: when the default cycles
/// event has no PMU (ENOENT, EOPNOTSUPP, ENODEV), the first event becomes cpu-clock and
/// it opens again; when the kernel refuses (EACCES/EPERM) under perf_event_paranoid >= 2,
/// the events without explicit u/k/h modifiers become user-space only (exclude_kernel,
/// exclude_hv, named "<event>:u") and it opens again. `plan.events` is changed to what
/// opened; the observer hears of each fallback.
[[nodiscard]] Result<Sampler> open_plan(RecordPlan& plan, const RecordTarget& target,
                                        RecordObserver& observer);

/// Appends the synthesized records of what exists (plan.synthesis) to `out`: the kernel
/// map (a failure goes to observer.on_no_kernel_map()), cgroups, every process or the
/// target's, and the workload (`first`: its "perfx-exec" COMM; later: its maps, when it
/// still runs).
[[nodiscard]] Result<void> synthesize_existing(const RecordPlan& plan, const RecordTarget& target,
                                               const record::SampleLayout& layout, bool first,
                                               RecordObserver& observer,
                                               std::vector<std::byte>& out);

/// A result with the counts of `stats` (samples, lost, throttling, corrupt buffers).
[[nodiscard]] RecordResult result_of(const SamplerStats& stats);

using core::contiguous;
using core::for_each_record;

}  // namespace perfx::sys
