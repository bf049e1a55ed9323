#pragma once
/// \file
/// Do hardware breakpoints fire here? Some hypervisors (e.g. PVM guests) accept
/// PERF_TYPE_BREAKPOINT events but never deliver the debug trap: the event opens, and
/// counts 0 whatever the program does. Nothing in the open tells, so this check sets a
/// write breakpoint on a variable of its own, stores to it once and reads the count.

#include <optional>
#include <string>
#include <vector>

#include "perfx/counter.hpp"
#include "perfx/events.hpp"

namespace perfx::sys {

enum class BreakpointCheck {
  kFire,         ///< the store was counted
  kSilent,       ///< the event opened and counted nothing: breakpoints do not work here
  kUnavailable,  ///< the event could not be opened (permissions, no free register, ...)
};

/// Runs the check once per process (later calls return the first answer); thread-safe.
[[nodiscard]] BreakpointCheck check_hardware_breakpoints();

/// Tests only: make check_hardware_breakpoints() answer `forced` (nullopt: the real
/// check again), so the kSilent paths run on machines whose breakpoints do fire.
void force_breakpoint_check_for_testing(std::optional<BreakpointCheck> forced);

/// Why, in the words `perfx list` and `perfx stat` both use.
inline constexpr const char* kSilentBreakpointsReason =
    "hardware breakpoints open but never fire on this machine (the hypervisor delivers no "
    "debug traps)";

// perfx::silent_breakpoint_notes() (perfx/events.hpp) is defined in breakpoint_check.cpp.
using perfx::silent_breakpoint_notes;

}  // namespace perfx::sys
