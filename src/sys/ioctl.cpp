#include "sys/ioctl.hpp"

#include <linux/perf_event.h>
#include <sys/ioctl.h>
#include <sys/prctl.h>

#include <cerrno>
#include <cstdlib>
#include <cstring>
#include <memory>

#include "core/error_format.hpp"

namespace perfx::sys {
namespace {

unsigned long scope_arg(IocScope scope) {
  return scope == IocScope::kGroup ? static_cast<unsigned long>(PERF_IOC_FLAG_GROUP) : 0UL;
}

Result<void> do_ioctl(int fd, unsigned long request, unsigned long arg, const char* name) {
  if (::ioctl(fd, request, arg) < 0) return fail_errno(errno, std::string("ioctl ") + name);
  return {};
}

Result<void> do_ioctl_ptr(int fd, unsigned long request, void* arg, const char* name) {
  if (::ioctl(fd, request, arg) < 0) return fail_errno(errno, std::string("ioctl ") + name);
  return {};
}

}  // namespace

Result<void> ioc_enable(int fd, IocScope scope) {
  return do_ioctl(fd, PERF_EVENT_IOC_ENABLE, scope_arg(scope), "PERF_EVENT_IOC_ENABLE");
}

Result<void> ioc_disable(int fd, IocScope scope) {
  return do_ioctl(fd, PERF_EVENT_IOC_DISABLE, scope_arg(scope), "PERF_EVENT_IOC_DISABLE");
}

Result<void> ioc_reset(int fd, IocScope scope) {
  return do_ioctl(fd, PERF_EVENT_IOC_RESET, scope_arg(scope), "PERF_EVENT_IOC_RESET");
}

Result<void> ioc_refresh(int fd, int overflows) {
  if (overflows <= 0) {
    return fail(Errc::kInvalidArgument, "ioctl PERF_EVENT_IOC_REFRESH: count must be > 0, got {}",
                overflows);
  }
  return do_ioctl(fd, PERF_EVENT_IOC_REFRESH, static_cast<unsigned long>(overflows),
                  "PERF_EVENT_IOC_REFRESH");
}

Result<void> ioc_period(int fd, std::uint64_t period) {
  std::uint64_t value = period;
  return do_ioctl_ptr(fd, PERF_EVENT_IOC_PERIOD, &value, "PERF_EVENT_IOC_PERIOD");
}

Result<void> ioc_set_output(int fd, int target_fd) {
  if (target_fd < 0) return ioc_detach_output(fd);
  return do_ioctl(fd, PERF_EVENT_IOC_SET_OUTPUT, static_cast<unsigned long>(target_fd),
                  "PERF_EVENT_IOC_SET_OUTPUT");
}

Result<void> ioc_detach_output(int fd) {
  // Kernel behaviour 4: pass (unsigned long)-1, not int -1.
  return do_ioctl(fd, PERF_EVENT_IOC_SET_OUTPUT, static_cast<unsigned long>(-1L),
                  "PERF_EVENT_IOC_SET_OUTPUT(-1)");
}

Result<void> ioc_set_filter(int fd, const std::string& filter) {
  // The kernel copies the string; it takes a non-const char*.
  std::string copy = filter;
  auto r = do_ioctl_ptr(fd, PERF_EVENT_IOC_SET_FILTER, copy.data(), "PERF_EVENT_IOC_SET_FILTER");
  if (!r && r.error().sys_errno() == EEXIST) {
    return fail_errno(EEXIST,
                      "ioctl PERF_EVENT_IOC_SET_FILTER: this event already has a filter "
                      "(a tracepoint filter can be set only once per fd)");
  }
  if (!r) return tl::unexpected(std::move(r).error().context(fmt::format("filter '{}'", filter)));
  return {};
}

Result<std::uint64_t> ioc_id(int fd) {
  std::uint64_t id = 0;
  PERFX_CHECK(do_ioctl_ptr(fd, PERF_EVENT_IOC_ID, &id, "PERF_EVENT_IOC_ID"));
  return id;
}

Result<void> ioc_set_bpf(int fd, int bpf_prog_fd) {
  return do_ioctl(fd, PERF_EVENT_IOC_SET_BPF, static_cast<unsigned long>(bpf_prog_fd),
                  "PERF_EVENT_IOC_SET_BPF");
}

Result<void> ioc_pause_output(int fd, bool pause) {
  return do_ioctl(fd, PERF_EVENT_IOC_PAUSE_OUTPUT, pause ? 1UL : 0UL,
                  "PERF_EVENT_IOC_PAUSE_OUTPUT");
}

Result<std::vector<std::uint32_t>> ioc_query_bpf(int fd, std::uint32_t max_ids) {
  for (int attempt = 0; attempt < 2; ++attempt) {
    // struct perf_event_query_bpf { __u32 ids_len; __u32 prog_cnt; __u32 ids[]; }
    std::vector<std::uint32_t> buf(2 + static_cast<std::size_t>(max_ids), 0);
    buf[0] = max_ids;
    if (::ioctl(fd, PERF_EVENT_IOC_QUERY_BPF, buf.data()) == 0) {
      const std::uint32_t count = std::min(buf[1], max_ids);
      return std::vector<std::uint32_t>(buf.begin() + 2, buf.begin() + 2 + count);
    }
    const int err = errno;
    if (err == ENOSPC && buf[1] > max_ids && attempt == 0) {
      max_ids = buf[1];
      continue;
    }
    return fail_errno(err, "ioctl PERF_EVENT_IOC_QUERY_BPF");
  }
  return fail(Errc::kSystem, "ioctl PERF_EVENT_IOC_QUERY_BPF: program count kept growing");
}

Result<void> ioc_modify_attributes(int fd, const raw::EventAttr& attr) {
  raw::EventAttr copy = attr;
  if (copy.size == 0) copy.size = raw::kAttrSizeVer8;
  return do_ioctl_ptr(fd, PERF_EVENT_IOC_MODIFY_ATTRIBUTES, &copy,
                      "PERF_EVENT_IOC_MODIFY_ATTRIBUTES");
}

Result<void> task_events_enable() {
  if (::prctl(PR_TASK_PERF_EVENTS_ENABLE, 0, 0, 0, 0) < 0) {
    return fail_errno(errno, "prctl(PR_TASK_PERF_EVENTS_ENABLE)");
  }
  return {};
}

Result<void> task_events_disable() {
  if (::prctl(PR_TASK_PERF_EVENTS_DISABLE, 0, 0, 0, 0) < 0) {
    return fail_errno(errno, "prctl(PR_TASK_PERF_EVENTS_DISABLE)");
  }
  return {};
}

}  // namespace perfx::sys
