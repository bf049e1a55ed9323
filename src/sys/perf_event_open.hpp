#pragma once
// The one place that calls the perf_event_open(2) syscall.

#include <sys/types.h>

#include "perfx/error.hpp"
#include "perfx/raw.hpp"
#include "sys/unique_fd.hpp"

namespace perfx::sys {

/// Opens an event. Sends `attr.size` (default: the full 136-byte struct). On
/// E2BIG the kernel wrote back the size it supports; if every byte past that
/// size is zero we retry with it (older kernels), as the man page describes.
/// FD_CLOEXEC is always added to `flags`. The returned error carries errno and
/// a raw strerror; callers add meaning with sys::explain_open_error().
Result<UniqueFd> perf_event_open(raw::EventAttr attr, pid_t pid, int cpu, int group_fd,
                                 unsigned long flags = 0);

/// perf_event_open() with perf's fallback for PMUs that take no exclude bits at all
/// (PERF_PMU_CAP_NO_EXCLUDE, such as msr): EINVAL with exclude_guest or
/// exclude_host set (every event parsed without modifiers has exclude_guest, as in perf)
/// is retried with both cleared ("switching off exclude_guest, exclude_host" in perf -vv).
/// `attr` is left as the event was opened.
Result<UniqueFd> perf_event_open_fallback(raw::EventAttr& attr, pid_t pid, int cpu, int group_fd,
                                          unsigned long flags = 0);

}  // namespace perfx::sys
