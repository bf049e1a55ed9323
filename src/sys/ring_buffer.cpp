#include "sys/ring_buffer.hpp"

#include <linux/perf_event.h>
#include <sys/ioctl.h>
#include <sys/mman.h>
#include <unistd.h>

#include <bit>
#include <cerrno>
#include <string>

#include "core/error_format.hpp"
#include "sys/text_files.hpp"

namespace perfx::sys {

Result<RingBuffer> RingBuffer::map(int fd, std::size_t data_pages, RingMode mode) {
  if (data_pages != 0 && !std::has_single_bit(data_pages)) {
    return fail(Errc::kInvalidArgument,
                "ring buffer size must be a power of two number of pages, got {}", data_pages);
  }
  RingBuffer rb;
  rb.fd_ = fd;
  rb.mode_ = mode;
  rb.page_size_ = static_cast<std::size_t>(::sysconf(_SC_PAGESIZE));
  const std::size_t len = (1 + data_pages) * rb.page_size_;
  const int prot = mode == RingMode::kForward ? (PROT_READ | PROT_WRITE) : PROT_READ;
  void* addr = ::mmap(nullptr, len, prot, MAP_SHARED, fd, 0);
  if (addr == MAP_FAILED) {
    const int err = errno;
    auto e = fail_errno(err, fmt::format("mapping {} KiB ring buffer", len / 1024));
    if (err == EPERM || err == ENOMEM) {
      return fail(Errc::kResourceLimit,
                  "mapping a {} KiB ring buffer: {} (perf_event_mlock_kb is {} KiB per user; "
                  "use a smaller -m, or raise RLIMIT_MEMLOCK / the sysctl)",
                  len / 1024, e.value().message(),
                  read_first_line("/proc/sys/kernel/perf_event_mlock_kb"));
    }
    if (err == EINVAL) {
      return fail(Errc::kInvalidArgument,
                  "mapping the ring buffer: EINVAL (an inherited per-task event cannot be "
                  "mmapped; all mappings of one event must have the same size)");
    }
    return e;
  }
  rb.map_ = Mapping(addr, len);
  rb.reader_ = record::RingReader(rb.data());
  if (data_pages != 0) rb.tail_ = rb.head();  // normally 0; a re-map may start later
  return rb;
}

perf_event_mmap_page* RingBuffer::control() const noexcept {
  return static_cast<perf_event_mmap_page*>(map_.data());
}

std::span<const std::byte> RingBuffer::data() const noexcept {
  if (!map_.valid() || map_.size() <= page_size_) return {};
  return {static_cast<const std::byte*>(map_.data()) + page_size_, map_.size() - page_size_};
}

std::uint64_t RingBuffer::head() const noexcept {
  return __atomic_load_n(&control()->data_head, __ATOMIC_ACQUIRE);
}

void RingBuffer::set_tail(std::uint64_t tail) noexcept {
  tail_ = tail;
  if (mode_ == RingMode::kForward) __atomic_store_n(&control()->data_tail, tail, __ATOMIC_RELEASE);
}

record::RingChunk RingBuffer::pending() const { return reader_.collect_forward(head(), tail_); }

void RingBuffer::consume(const record::RingChunk& chunk) noexcept {
  counters_ += chunk.counters;
  set_tail(chunk.new_tail);
}

Result<std::vector<std::vector<std::byte>>> RingBuffer::snapshot() {
  PERFX_CHECK(pause_output(fd_, true));
  const std::uint64_t h = head();
  auto recs = reader_.snapshot_backward(h);
  PERFX_CHECK(pause_output(fd_, false));
  return recs;
}

Result<void> pause_output(int fd, bool pause) {
  if (::ioctl(fd, PERF_EVENT_IOC_PAUSE_OUTPUT, pause ? 1UL : 0UL) != 0) {
    return fail_errno(errno,
                      pause ? "PERF_EVENT_IOC_PAUSE_OUTPUT(1)" : "PERF_EVENT_IOC_PAUSE_OUTPUT(0)");
  }
  return {};
}

Result<void> set_output(int fd, int target_fd) {
  const unsigned long arg =
      target_fd < 0 ? static_cast<unsigned long>(-1L) : static_cast<unsigned long>(target_fd);
  if (::ioctl(fd, PERF_EVENT_IOC_SET_OUTPUT, arg) != 0) {
    return fail_errno(errno,
                      "PERF_EVENT_IOC_SET_OUTPUT (the target must be on the same CPU "
                      "with the same clock and ring direction)");
  }
  return {};
}

}  // namespace perfx::sys
