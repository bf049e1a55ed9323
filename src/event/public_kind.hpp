#pragma once
/// \file
/// The public EventKind (perfx/events.hpp) of each internal one, from one table both ways.

#include <utility>

#include "event/event_spec.hpp"
#include "perfx/events.hpp"

namespace perfx::event {

inline constexpr std::pair<EventKind, perfx::EventKind> kPublicKinds[] = {
    {EventKind::kHardware, perfx::EventKind::kHardware},
    {EventKind::kSoftware, perfx::EventKind::kSoftware},
    {EventKind::kHwCache, perfx::EventKind::kHwCache},
    {EventKind::kRaw, perfx::EventKind::kRaw},
    {EventKind::kPmu, perfx::EventKind::kPmu},
    {EventKind::kTracepoint, perfx::EventKind::kTracepoint},
    {EventKind::kBreakpoint, perfx::EventKind::kBreakpoint},
    {EventKind::kUprobe, perfx::EventKind::kUprobe},
};

/// The public kind of an internal one.
[[nodiscard]] constexpr perfx::EventKind to_public(EventKind kind) noexcept {
  for (const auto& [internal, pub] : kPublicKinds)
    if (internal == kind) return pub;
  return perfx::EventKind::kPmu;
}

/// The internal kind of a public one; kKprobe (no perf syntax of its own) is a sysfs PMU.
[[nodiscard]] constexpr EventKind from_public(perfx::EventKind kind) noexcept {
  for (const auto& [internal, pub] : kPublicKinds)
    if (pub == kind) return internal;
  return EventKind::kPmu;
}

}  // namespace perfx::event
