#pragma once
/// \file
/// The AUX area (man perf_event_open(2), "aux_head, aux_tail, aux_offset, aux_size"): a
/// second ring buffer beside an event's data area, for high-bandwidth hardware streams
/// (Intel PT, Arm CoreSight/SPE ...). The kernel announces each stretch it wrote with a
/// PERF_RECORD_AUX in the normal ring buffer ({aux_offset, aux_size, flags}), and the
/// tracer that started with a PERF_RECORD_ITRACE_START; AUX_OUTPUT_HW_ID names the hardware
/// id of an aux_output event.
///
/// Setting one up: map the event's ring buffer (header page + 2^n data pages), write
/// aux_offset (page aligned, at or past data_offset + data_size) and aux_size (a power-of-two
/// number of pages) into the metadata page, then mmap that range of the same fd.
///  - PROT_READ|PROT_WRITE (AuxMode::kTruncate): the reader releases bytes by storing
///    aux_tail; when the area is full the kernel truncates (PERF_AUX_FLAG_TRUNCATED).
///  - PROT_READ (AuxMode::kOverwrite): a ring that keeps the newest data; the reader must
///    disable the event while reading, and where new data began may be unknowable.
/// AUX pages count against RLIMIT_MEMLOCK and perf_event_mlock_kb like the data area.
/// Only PMUs with AUX support accept the mapping; any other event gives EOPNOTSUPP.

#include <cstddef>
#include <cstdint>
#include <memory>
#include <span>
#include <vector>

#include "perfx/error.hpp"
#include "perfx/export.hpp"
#include "perfx/mmap_page.hpp"

namespace perfx {

/// How the AUX area is mapped.
enum class AuxMode : std::uint8_t {
  kTruncate,   ///< read-write: aux_tail is ours; a full area truncates new data
  kOverwrite,  ///< read-only: a ring keeping the newest data (disable the event to read)
};

/// The `flags` word of a PERF_RECORD_AUX.
struct PERFX_API AuxFlags {
  std::uint64_t bits = 0;       ///< the raw word
  bool truncated = false;       ///< PERF_AUX_FLAG_TRUNCATED (0x01): cut to fit the area
  bool overwrite = false;       ///< PERF_AUX_FLAG_OVERWRITE (0x02): from overwrite mode
  bool partial = false;         ///< PERF_AUX_FLAG_PARTIAL (0x04): the data has gaps
  bool collision = false;       ///< PERF_AUX_FLAG_COLLISION (0x08): the sample collided
  std::uint8_t pmu_format = 0;  ///< PERF_AUX_FLAG_PMU_FORMAT_TYPE_MASK (0xff00) >> 8
  /// Splits a raw flags word.
  [[nodiscard]] static AuxFlags from_bits(std::uint64_t bits) noexcept;
};

/// Where an AUX area goes in the fd's mapping space.
struct PERFX_API AuxArea {
  std::uint64_t offset = 0;  ///< aux_offset: page aligned, >= data_offset + data_size
  std::uint64_t size = 0;    ///< aux_size: a power-of-two number of pages
};

/// Places an AUX area of `aux_pages` pages right after the data area the page describes.
/// Errors: kInvalidArgument when aux_pages is 0 or not a power of two, when the page has no
/// data area (data_size 0: map the ring buffer with data pages first), or page_size is not
/// a power of two.
[[nodiscard]] PERFX_API Result<AuxArea> plan_aux_area(const MmapPageSnapshot& page,
                                                      std::size_t page_size, std::size_t aux_pages);

/// Bytes of the AUX stream in ring order: the stream positions [begin, end) as up to two
/// pieces of the mapped area (`second` is non-empty when the range wraps).
struct PERFX_API AuxChunk {
  std::span<const std::byte> first;
  std::span<const std::byte> second;
  std::uint64_t begin = 0;   ///< stream position of first[0]
  std::uint64_t end = 0;     ///< stream position after the last byte
  std::uint64_t lapped = 0;  ///< bytes of the asked range already overwritten (dropped)
  [[nodiscard]] std::uint64_t size() const noexcept { return first.size() + second.size(); }
  /// The bytes, joined.
  [[nodiscard]] std::vector<std::byte> copy() const;
};

/// The bytes [begin, end) of the stream in `ring` (its size a power of two). A range longer
/// than the ring keeps its newest ring-size bytes and counts the rest in `lapped`. A
/// PERF_RECORD_AUX's data is aux_slices(ring, aux_offset, aux_offset + aux_size).
[[nodiscard]] PERFX_API AuxChunk aux_slices(std::span<const std::byte> ring, std::uint64_t begin,
                                            std::uint64_t end) noexcept;

/// A mapped AUX area. Move-only; unmaps on destruction. The event fd and its ring-buffer
/// mapping are borrowed and must outlive it.
class PERFX_API AuxBuffer {
 public:
  /// Maps `aux_pages` pages (a power of two) of AUX area for `fd`, whose ring buffer
  /// (header page and data pages) is mapped at `page`. Errors: kNotSupported (EOPNOTSUPP)
  /// when the event's PMU has no AUX support, e.g. a software event or, as on VMs without a
  /// PMU, every event; kResourceLimit (EPERM/ENOMEM) naming perf_event_mlock_kb; the
  /// plan_aux_area() errors; any other mmap errno.
  static Result<AuxBuffer> map(int fd, MmapPageView page, std::size_t aux_pages, AuxMode mode);

  AuxBuffer(AuxBuffer&&) noexcept;
  AuxBuffer& operator=(AuxBuffer&&) noexcept;
  AuxBuffer(const AuxBuffer&) = delete;
  AuxBuffer& operator=(const AuxBuffer&) = delete;
  ~AuxBuffer();

  /// The mapped area.
  [[nodiscard]] std::span<const std::byte> data() const noexcept;
  /// Where it sits in the fd's mapping space.
  [[nodiscard]] AuxArea area() const noexcept;
  [[nodiscard]] AuxMode mode() const noexcept;
  /// aux_head (acquire).
  [[nodiscard]] std::uint64_t head() const noexcept;
  /// aux_tail as last released by consume().
  [[nodiscard]] std::uint64_t tail() const noexcept;
  /// The bytes written since the last consume() (kTruncate), or the newest area's worth
  /// (kOverwrite, where the tail is not ours).
  [[nodiscard]] AuxChunk pending() const noexcept;
  /// Releases a chunk returned by pending(): stores aux_tail = chunk.end (release) in
  /// kTruncate mode; in kOverwrite mode only remembers it.
  void consume(const AuxChunk& chunk) noexcept;
  /// The data a PERF_RECORD_AUX announced (see aux_slices).
  [[nodiscard]] AuxChunk record_data(std::uint64_t aux_offset,
                                     std::uint64_t aux_size) const noexcept;

 private:
  struct Impl;
  explicit AuxBuffer(std::unique_ptr<Impl> impl) noexcept;
  std::unique_ptr<Impl> impl_;
};

}  // namespace perfx
