// perfx::EventHandle / EventFd (include/perfx/event_handle.hpp): the public face of
// sys/ioctl.hpp and sys/perf_event_open.hpp, plus read(2) decoding through the record
// decoder's read_format parser.

#include "perfx/event_handle.hpp"

#include <linux/perf_event.h>
#include <unistd.h>

#include <cerrno>

#include "record/read_format.hpp"
#include "sys/explain.hpp"
#include "sys/ioctl.hpp"
#include "sys/perf_event_open.hpp"
#include "sys/signals.hpp"

namespace perfx {
namespace {

sys::IocScope to_sys(IocScope s) {
  return s == IocScope::kGroup ? sys::IocScope::kGroup : sys::IocScope::kEvent;
}

constexpr std::uint64_t kTimes = PERF_FORMAT_TOTAL_TIME_ENABLED | PERF_FORMAT_TOTAL_TIME_RUNNING;

}  // namespace

// ------------------------------------------------------------------ read_format

bool ReadResult::timed() const noexcept { return (read_format & kTimes) == kTimes; }

RawCount ReadResult::raw(std::size_t i) const {
  const ReadEntry& e = values.at(i);
  return RawCount{e.value, time_enabled, time_running, e.lost};
}

Count ReadResult::count(std::size_t i) const {
  if (timed()) return scale_count(raw(i));
  Count c;
  c.value = static_cast<double>(values.at(i).value);
  c.raw = values.at(i).value;
  c.lost = values.at(i).lost;
  c.trust = Trust::kCounted;
  return c;
}

const ReadEntry* ReadResult::find_id(std::uint64_t id) const noexcept {
  if ((read_format & PERF_FORMAT_ID) == 0) return nullptr;
  for (const ReadEntry& e : values) {
    if (e.id == id) return &e;
  }
  return nullptr;
}

std::size_t read_size(std::uint64_t read_format, std::size_t members) noexcept {
  auto bit = [read_format](std::uint64_t b) -> std::size_t { return (read_format & b) ? 1 : 0; };
  const std::size_t per = 1 + bit(PERF_FORMAT_ID) + bit(PERF_FORMAT_LOST);
  const std::size_t times =
      bit(PERF_FORMAT_TOTAL_TIME_ENABLED) + bit(PERF_FORMAT_TOTAL_TIME_RUNNING);
  if (read_format & PERF_FORMAT_GROUP) return 8 * (1 + times + per * members);
  return 8 * (times + per);
}

Result<ReadResult> parse_read(std::span<const std::byte> bytes, std::uint64_t read_format) {
  if (bytes.empty()) {  // EOF: a pinned event the kernel could not schedule (error state)
    ReadResult out;
    out.read_format = read_format;
    out.pinned_error = true;
    return out;
  }
  PERFX_TRY(v, record::decode_read_format(bytes, read_format));
  ReadResult out;
  out.read_format = read_format;
  out.time_enabled = v.time_enabled;
  out.time_running = v.time_running;
  out.values.reserve(v.size());
  for (std::size_t i = 0; i < v.size(); ++i) {
    const record::ReadValue rv = v[i];
    out.values.push_back(ReadEntry{rv.value, rv.id, rv.lost});
  }
  return out;
}

// ------------------------------------------------------------------ ioctls

Result<void> EventHandle::enable(IocScope scope) const {
  return sys::ioc_enable(fd_, to_sys(scope));
}
Result<void> EventHandle::disable(IocScope scope) const {
  return sys::ioc_disable(fd_, to_sys(scope));
}
Result<void> EventHandle::reset(IocScope scope) const { return sys::ioc_reset(fd_, to_sys(scope)); }
Result<void> EventHandle::refresh(int overflows) const { return sys::ioc_refresh(fd_, overflows); }
Result<void> EventHandle::set_period(std::uint64_t period) const {
  return sys::ioc_period(fd_, period);
}
Result<void> EventHandle::set_output(EventHandle target) const {
  if (!target.valid()) {
    return fail(Errc::kInvalidArgument,
                "ioctl PERF_EVENT_IOC_SET_OUTPUT: the target handle is invalid (use "
                "detach_output() to stop redirecting)");
  }
  return sys::ioc_set_output(fd_, target.fd());
}
Result<void> EventHandle::detach_output() const { return sys::ioc_detach_output(fd_); }
Result<void> EventHandle::set_filter(const std::string& filter) const {
  return sys::ioc_set_filter(fd_, filter);
}
Result<std::uint64_t> EventHandle::id() const { return sys::ioc_id(fd_); }
Result<void> EventHandle::set_bpf(int bpf_prog_fd) const {
  return sys::ioc_set_bpf(fd_, bpf_prog_fd);
}
Result<std::vector<std::uint32_t>> EventHandle::query_bpf(std::uint32_t max_ids) const {
  return sys::ioc_query_bpf(fd_, max_ids);
}
Result<void> EventHandle::pause_output() const { return sys::ioc_pause_output(fd_, true); }
Result<void> EventHandle::resume_output() const { return sys::ioc_pause_output(fd_, false); }
Result<void> EventHandle::modify_attributes(const raw::EventAttr& attr) const {
  return sys::ioc_modify_attributes(fd_, attr);
}

Result<void> EventHandle::route_signals(int signo, pid_t tid) const {
  return sys::route_overflow_signal(fd_, signo, tid == 0 ? ::gettid() : tid);
}

Result<ReadResult> EventHandle::read(std::uint64_t read_format, std::size_t members) const {
  std::vector<std::byte> buf(read_size(read_format, members == 0 ? 1 : members));
  for (;;) {
    const ssize_t n = ::read(fd_, buf.data(), buf.size());
    if (n < 0 && errno == EINTR) continue;
    if (n < 0) {
      if (errno == ENOSPC) {
        return fail_errno(ENOSPC, "reading an event: the group has more than " +
                                      std::to_string(members) + " members");
      }
      return fail_errno(errno, "reading an event");
    }
    buf.resize(static_cast<std::size_t>(n));
    return parse_read(buf, read_format);
  }
}

// ------------------------------------------------------------------ EventFd

Result<EventFd> EventFd::open(const raw::EventAttr& attr, const OpenTarget& target,
                              const std::string& name) {
  raw::EventAttr a = attr;
  if (a.size == 0) a.size = raw::kAttrSizeVer8;
  const auto flags = static_cast<unsigned long>(target.flags);
  auto fd = sys::perf_event_open_fallback(a, target.pid, target.cpu, target.group_fd, flags);
  if (!fd) {
    const int err = fd.error().sys_errno();
    if (err == 0) return tl::unexpected(std::move(fd).error());
    sys::OpenRequest req;
    req.attr = a;
    req.event_name = name;
    req.pid = target.pid;
    req.cpu = target.cpu;
    req.group_fd = target.group_fd;
    req.flags = flags;
    Error e = sys::explain_open_error(err, req, sys::read_system_readings());
    if (err == EINVAL) return tl::unexpected(Error(Errc::kInvalidArgument, e.message(), err));
    return tl::unexpected(std::move(e));
  }
  EventFd out(fd->release());
  out.read_format_ = a.read_format;
  return out;
}

EventFd& EventFd::operator=(EventFd&& o) noexcept {
  if (this != &o) {
    if (fd_ >= 0) ::close(fd_);
    fd_ = o.fd_;
    read_format_ = o.read_format_;
    o.fd_ = -1;
  }
  return *this;
}

EventFd::~EventFd() {
  if (fd_ >= 0) ::close(fd_);
}

int EventFd::release() noexcept {
  const int fd = fd_;
  fd_ = -1;
  return fd;
}

Result<void> task_events_enable() { return sys::task_events_enable(); }
Result<void> task_events_disable() { return sys::task_events_disable(); }

}  // namespace perfx
