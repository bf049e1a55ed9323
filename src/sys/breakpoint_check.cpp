#include "sys/breakpoint_check.hpp"

#include <linux/hw_breakpoint.h>
#include <unistd.h>

#include <atomic>
#include <cstdint>

#include "perfx/raw.hpp"
#include "sys/perf_event_open.hpp"

namespace perfx::sys {
namespace {

alignas(8) volatile std::uint64_t g_target = 0;

BreakpointCheck run_check() {
  raw::EventAttr attr{};
  attr.type = PERF_TYPE_BREAKPOINT;
  attr.size = sizeof(attr);
  attr.bp_type = HW_BREAKPOINT_W;
  attr.bp_addr = reinterpret_cast<std::uintptr_t>(&g_target);
  attr.bp_len = HW_BREAKPOINT_LEN_8;
  attr.exclude_kernel = 1;
  attr.exclude_hv = 1;
  auto fd = perf_event_open(attr, 0, -1, -1);  // this thread, counting from now
  if (!fd) return BreakpointCheck::kUnavailable;
  g_target = g_target + 1;
  std::uint64_t count = 0;
  if (::read(fd->get(), &count, sizeof(count)) != static_cast<ssize_t>(sizeof(count)))
    return BreakpointCheck::kUnavailable;
  return count > 0 ? BreakpointCheck::kFire : BreakpointCheck::kSilent;
}

// -1: no override; otherwise a BreakpointCheck value.
std::atomic<int> g_forced{-1};

}  // namespace

BreakpointCheck check_hardware_breakpoints() {
  const int forced = g_forced.load(std::memory_order_relaxed);
  if (forced >= 0) return static_cast<BreakpointCheck>(forced);
  static const BreakpointCheck result = run_check();
  return result;
}

void force_breakpoint_check_for_testing(std::optional<BreakpointCheck> forced) {
  g_forced.store(forced ? static_cast<int>(*forced) : -1, std::memory_order_relaxed);
}

}  // namespace perfx::sys

namespace perfx {

// Declared public in perfx/events.hpp.
std::vector<std::string> silent_breakpoint_notes(const CounterSnapshot& counts) {
  std::vector<std::string> notes;
  for (std::size_t i = 0; i < counts.events.size(); ++i) {
    const auto& ev = counts.events[i];
    if (ev.supported && ev.attr.type == PERF_TYPE_BREAKPOINT && counts.total(i).value == 0 &&
        sys::check_hardware_breakpoints() == sys::BreakpointCheck::kSilent)
      notes.push_back(ev.name + ": " + sys::kSilentBreakpointsReason +
                      ": its count is 0 whatever the program does");
  }
  return notes;
}

}  // namespace perfx
