#pragma once
/// \file
/// Do hardware breakpoints fire here? Some hypervisors (e.g. PVM guests) accept
/// PERF_TYPE_BREAKPOINT events but never deliver the debug trap: the event opens, and
/// counts 0 whatever the program does. Nothing in the open tells, so this check sets a
/// write breakpoint on a variable of its own, stores to it once and reads the count.

namespace perfx::sys {

enum class BreakpointCheck {
  kFire,         ///< the store was counted
  kSilent,       ///< the event opened and counted nothing: breakpoints do not work here
  kUnavailable,  ///< the event could not be opened (permissions, no free register, ...)
};

/// Runs the check once per process (later calls return the first answer); thread-safe.
[[nodiscard]] BreakpointCheck check_hardware_breakpoints();

/// One line for a user, for a breakpoint event that counted 0 under kSilent.
inline constexpr const char* kSilentBreakpointsNote =
    "hardware breakpoints do not fire on this machine (the hypervisor does not deliver "
    "debug traps): breakpoint counts are 0 whatever the program does";

}  // namespace perfx::sys
