#pragma once
/// \file
/// A perf_event ring buffer mapped from an event fd: the header page plus a power-of-two
/// data area. `data_head` is loaded with acquire, `data_tail` stored with release (man
/// page, "MMAP layout"); parsing is record::RingReader's job.

#include <cstddef>
#include <cstdint>
#include <span>
#include <vector>

#include "perfx/error.hpp"
#include "record/ring_reader.hpp"
#include "sys/mapping.hpp"

struct perf_event_mmap_page;

namespace perfx::sys {

/// How a ring buffer is mapped.
enum class RingMode : std::uint8_t {
  kForward,    ///< PROT_READ|PROT_WRITE: the reader owns data_tail; a full buffer loses
               ///< new records (counted in PERF_RECORD_LOST / PERF_FORMAT_LOST)
  kOverwrite,  ///< PROT_READ, event opened with write_backward: a flight recorder that
               ///< keeps the newest data; read with pause + snapshot
};

/// One mmapped ring buffer. Move-only; unmaps on destruction (the fd stays the caller's).
class RingBuffer {
 public:
  /// Maps `1 + data_pages` pages of `fd`. `data_pages` must be a power of two (0 maps
  /// only the header page, for counting events' self-monitoring fields).
  /// Errors: kInvalidArgument for a non-power-of-two size; EPERM from mmap names
  /// perf_event_mlock_kb and RLIMIT_MEMLOCK.
  static Result<RingBuffer> map(int fd, std::size_t data_pages, RingMode mode);

  RingBuffer() = default;
  RingBuffer(RingBuffer&&) noexcept = default;
  RingBuffer& operator=(RingBuffer&&) noexcept = default;

  /// The event fd this buffer was mapped from.
  [[nodiscard]] int fd() const noexcept { return fd_; }
  [[nodiscard]] RingMode mode() const noexcept { return mode_; }
  /// The kernel's control page.
  [[nodiscard]] perf_event_mmap_page* control() const noexcept;
  /// The data area (size = data_pages * page size).
  [[nodiscard]] std::span<const std::byte> data() const noexcept;

  /// data_head, loaded with acquire so the record bytes before it are visible.
  [[nodiscard]] std::uint64_t head() const noexcept;
  /// data_tail as last published by us.
  [[nodiscard]] std::uint64_t tail() const noexcept { return tail_; }
  /// Publishes data_tail with release: the kernel may reuse the bytes before it.
  void set_tail(std::uint64_t tail) noexcept;

  /// Forward mode: the pending bytes [tail, head) validated (see RingReader). Copy the
  /// slices out, then call consume(chunk) to release them to the kernel.
  [[nodiscard]] record::RingChunk pending() const;
  /// Publishes chunk.new_tail and adds the chunk's counters to this buffer's totals.
  void consume(const record::RingChunk& chunk) noexcept;

  /// Overwrite mode: PERF_EVENT_IOC_PAUSE_OUTPUT(1), copies the records (oldest first),
  /// then resumes output. Records written while paused are lost (the kernel counts them).
  [[nodiscard]] Result<std::vector<std::vector<std::byte>>> snapshot();

  /// Record-by-record reader over this buffer's data area (shares the scratch buffer).
  [[nodiscard]] record::RingReader& reader() noexcept { return reader_; }

  /// Totals over every consumed chunk.
  [[nodiscard]] const record::RingCounters& counters() const noexcept { return counters_; }

 private:
  Mapping map_;
  int fd_ = -1;
  RingMode mode_ = RingMode::kForward;
  std::size_t page_size_ = 4096;
  std::uint64_t tail_ = 0;
  record::RingReader reader_{{}};
  record::RingCounters counters_;
};

/// Pause or resume writing into `fd`'s ring buffer (PERF_EVENT_IOC_PAUSE_OUTPUT).
Result<void> pause_output(int fd, bool pause);

/// Redirects `fd`'s output into `target_fd`'s buffer (PERF_EVENT_IOC_SET_OUTPUT); both must
/// be on the same CPU (kernel behaviour 3) and use the same clock. target_fd = -1 detaches
/// (passed as (unsigned long)-1, kernel behaviour 4).
Result<void> set_output(int fd, int target_fd);

}  // namespace perfx::sys
