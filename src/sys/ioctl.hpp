#pragma once
/// \file
/// Typed wrappers for every perf_event ioctl(2) and the two prctl(2) options
/// (man perf_event_open(2), "ioctl(2) operations"; capabilities.md section 7).
/// Each returns a Result carrying errno and a message naming the ioctl.

#include <cstdint>
#include <string>
#include <vector>

#include "perfx/error.hpp"
#include "perfx/raw.hpp"

namespace perfx::sys {

/// Whether an ENABLE/DISABLE/RESET applies to the one event or (PERF_IOC_FLAG_GROUP)
/// to every event of its group, even when called through a member.
enum class IocScope : std::uint8_t { kEvent, kGroup };

/// PERF_EVENT_IOC_ENABLE. Kernel behaviour 5: prefer toggling the leader (kEvent on the
/// leader fd) over kGroup, because members that were off count nothing until the next
/// context switch on this kernel.
Result<void> ioc_enable(int fd, IocScope scope = IocScope::kEvent);
/// PERF_EVENT_IOC_DISABLE.
Result<void> ioc_disable(int fd, IocScope scope = IocScope::kEvent);
/// PERF_EVENT_IOC_RESET: zeroes the count (not time_enabled/time_running).
Result<void> ioc_reset(int fd, IocScope scope = IocScope::kEvent);
/// PERF_EVENT_IOC_REFRESH: enable for `overflows` more overflows (sampling events only,
/// not inherited; EINVAL on counting events).
Result<void> ioc_refresh(int fd, int overflows);
/// PERF_EVENT_IOC_PERIOD: new sample period (EINVAL for 0 or for counting events).
Result<void> ioc_period(int fd, std::uint64_t period);
/// PERF_EVENT_IOC_SET_OUTPUT: send `fd`'s records to `target_fd`'s ring buffer
/// (same CPU, same clock; `fd` must not have its own mapping).
Result<void> ioc_set_output(int fd, int target_fd);
/// PERF_EVENT_IOC_SET_OUTPUT with -1: stop redirecting. Kernel behaviour 4: the
/// argument must be `(unsigned long)-1`; an int -1 reaches the kernel as 0xffffffff.
Result<void> ioc_detach_output(int fd);
/// PERF_EVENT_IOC_SET_FILTER: an ftrace filter on a tracepoint ("common_pid != 1").
/// Kernel behaviour 9: only once per fd (EEXIST the second time).
Result<void> ioc_set_filter(int fd, const std::string& filter);
/// PERF_EVENT_IOC_ID: the event id (the value PERF_FORMAT_ID / PERF_SAMPLE_ID report).
Result<std::uint64_t> ioc_id(int fd);
/// PERF_EVENT_IOC_SET_BPF: attach a BPF program (by fd) to a tracepoint/kprobe event.
Result<void> ioc_set_bpf(int fd, int bpf_prog_fd);
/// PERF_EVENT_IOC_PAUSE_OUTPUT: pause (true) or resume (false) the ring buffer.
Result<void> ioc_pause_output(int fd, bool pause);
/// PERF_EVENT_IOC_QUERY_BPF: ids of the BPF programs attached to a tracepoint event.
/// Asks for at most `max_ids`; when more are attached the kernel says ENOSPC and we
/// retry with the count it reported.
Result<std::vector<std::uint32_t>> ioc_query_bpf(int fd, std::uint32_t max_ids = 64);
/// PERF_EVENT_IOC_MODIFY_ATTRIBUTES: change an open event in place (breakpoints only:
/// bp_addr/bp_type/bp_len).
Result<void> ioc_modify_attributes(int fd, const raw::EventAttr& attr);

/// prctl(PR_TASK_PERF_EVENTS_ENABLE): enables every event group *this process* opened.
Result<void> task_events_enable();
/// prctl(PR_TASK_PERF_EVENTS_DISABLE): disables every event group this process opened.
Result<void> task_events_disable();

}  // namespace perfx::sys
