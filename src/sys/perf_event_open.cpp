#include "sys/perf_event_open.hpp"

#include <linux/perf_event.h>
#include <sys/syscall.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <string>

namespace perfx::sys {
namespace {

long raw_open(raw::EventAttr* attr, pid_t pid, int cpu, int group_fd, unsigned long flags) {
  return ::syscall(SYS_perf_event_open, attr, pid, cpu, group_fd, flags);
}

bool tail_is_zero(const raw::EventAttr& attr, std::size_t from) {
  const auto* bytes = reinterpret_cast<const unsigned char*>(&attr);
  for (std::size_t i = from; i < sizeof(attr); ++i) {
    if (bytes[i] != 0) return false;
  }
  return true;
}

}  // namespace

Result<UniqueFd> perf_event_open(raw::EventAttr attr, pid_t pid, int cpu, int group_fd,
                                 unsigned long flags) {
  if (attr.size == 0) attr.size = raw::kAttrSizeVer8;
  flags |= PERF_FLAG_FD_CLOEXEC;
  long fd = raw_open(&attr, pid, cpu, group_fd, flags);
  if (fd < 0 && errno == E2BIG) {
    // The kernel rewrote attr.size to the size it knows (seen: 136 on 6.18,
    // 128 or less on older kernels). Retry only if nothing we set is lost.
    const std::uint32_t kernel_size = attr.size;
    if (kernel_size >= PERF_ATTR_SIZE_VER0 && kernel_size < sizeof(attr) &&
        tail_is_zero(attr, kernel_size)) {
      fd = raw_open(&attr, pid, cpu, group_fd, flags);
    } else {
      errno = E2BIG;
    }
  }
  if (fd < 0 && errno == E2BIG) {
    // Keep the size the kernel asked for: it tells which field is beyond its knowledge.
    return fail_errno(E2BIG, "perf_event_open (the kernel's perf_event_attr is " +
                                 std::to_string(attr.size) + " bytes)");
  }
  if (fd < 0) return fail_errno(errno, "perf_event_open");
  return UniqueFd(static_cast<int>(fd));
}

Result<UniqueFd> perf_event_open_fallback(raw::EventAttr& attr, pid_t pid, int cpu, int group_fd,
                                          unsigned long flags) {
  auto fd = perf_event_open(attr, pid, cpu, group_fd, flags);
  if (fd || fd.error().sys_errno() != EINVAL || (attr.exclude_guest == 0 && attr.exclude_host == 0))
    return fd;
  raw::EventAttr retry = attr;
  retry.exclude_guest = 0;
  retry.exclude_host = 0;
  auto fd2 = perf_event_open(retry, pid, cpu, group_fd, flags);
  if (!fd2) return fd;  // the first error: the exclude bits were not the problem
  attr = retry;
  return fd2;
}

}  // namespace perfx::sys
