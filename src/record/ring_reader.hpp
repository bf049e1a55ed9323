#pragma once
/// \file
/// Pure reading logic for a perf_event ring buffer's data area (no kernel calls).
///
/// The kernel writes records into a power-of-two data area and publishes `data_head`;
/// the reader consumes [data_tail, data_head) and publishes a new `data_tail`. Positions
/// are free-running u64 counters; the byte at position p lives at `data[p & (size-1)]`.
/// This module works on any byte span (a real mapping or a simulated buffer in tests):
/// sys::RingBuffer loads/stores head and tail with the right memory ordering and hands
/// the values here.
///
/// Validation rule (ARCHITECTURE.md "Binary data"): every record header must have
/// `8 <= size`, `size % 8 == 0`, and the record must end at or before `head`. A record
/// that breaks it means the buffer cannot be resynchronised: the rest of the pending
/// bytes is dropped and counted; the reader never loops.

#include <cstddef>
#include <cstdint>
#include <optional>
#include <span>
#include <vector>

namespace perfx::record {

/// The largest record (header.size is a u16): the size of the join buffer.
inline constexpr std::size_t kMaxRecordSize = 65536;

/// Kernel record header (`struct perf_event_header`), decoded by memcpy.
struct RingRecordHeader {
  std::uint32_t type = 0;
  std::uint16_t misc = 0;
  std::uint16_t size = 0;
};

/// Counters a reader accumulates across passes.
struct RingCounters {
  std::uint64_t records = 0;          ///< valid records seen
  std::uint64_t samples = 0;          ///< of which PERF_RECORD_SAMPLE
  std::uint64_t bytes = 0;            ///< bytes of valid records
  std::uint64_t lost_records = 0;     ///< PERF_RECORD_LOST records seen
  std::uint64_t lost_samples = 0;     ///< sum of their `lost` fields
  std::uint64_t throttle = 0;         ///< PERF_RECORD_THROTTLE records
  std::uint64_t unthrottle = 0;       ///< PERF_RECORD_UNTHROTTLE records
  std::uint64_t corrupt_events = 0;   ///< passes that found a corrupt header
  std::uint64_t dropped_bytes = 0;    ///< bytes dropped because of a corrupt header
  std::uint64_t wrapped_records = 0;  ///< records reassembled across the end of the area

  RingCounters& operator+=(const RingCounters& o) noexcept;
};

/// The valid bytes of one forward pass, as at most two contiguous pieces of the data area
/// (the second is non-empty when the range wraps), ready to be written out in bulk.
struct RingChunk {
  std::span<const std::byte> first;
  std::span<const std::byte> second;
  /// Where data_tail must be set after the bytes were consumed (== head, also when a
  /// corrupt record made the reader drop the remainder).
  std::uint64_t new_tail = 0;
  /// What this pass saw (records/samples/lost/... and any drop).
  RingCounters counters;
  /// True when a corrupt header was found; `first`/`second` hold only the valid prefix.
  bool corrupt = false;
  /// Position (free-running) of the corrupt header, when `corrupt`.
  std::uint64_t corrupt_at = 0;

  [[nodiscard]] std::size_t size() const noexcept { return first.size() + second.size(); }
};

/// Reads records out of a data area. Holds a scratch buffer for records that wrap, so
/// keep one reader per ring buffer and reuse it. Not thread-safe.
class RingReader {
 public:
  /// `data` is the data area; its size must be a non-zero power of two (else every pass
  /// reports corruption and drops everything).
  explicit RingReader(std::span<const std::byte> data) noexcept;

  /// Size of the data area in bytes.
  [[nodiscard]] std::uint64_t capacity() const noexcept { return data_.size(); }

  /// Validates the records in [tail, head) by walking their headers only, and returns the
  /// valid part as (up to) two slices of the data area. Counts SAMPLE, LOST (summing the
  /// lost field), THROTTLE and UNTHROTTLE records on the way. `head - tail` larger than the
  /// capacity is itself corruption (the writer overran the reader): all is dropped.
  /// The slices point into the data area: copy them out before publishing new_tail.
  [[nodiscard]] RingChunk collect_forward(std::uint64_t head, std::uint64_t tail) const;

  /// Starts a record-by-record pass over [tail, head) (forward mode).
  void begin(std::uint64_t head, std::uint64_t tail) noexcept;

  /// The next whole record (header included), or nullopt at the end of the pass or at a
  /// corrupt header (then corrupt() is true and the remainder counts as dropped).
  /// A record that wraps around the end of the area is copied into the reader's fixed
  /// 64 KiB scratch buffer; the returned span is valid until the next call.
  [[nodiscard]] std::optional<std::span<const std::byte>> next();

  /// Position of the next record in the current pass.
  [[nodiscard]] std::uint64_t position() const noexcept { return pos_; }
  /// True when the current pass stopped at a corrupt header.
  [[nodiscard]] bool corrupt() const noexcept { return corrupt_; }
  /// Counters of every pass since construction (or reset_counters()).
  [[nodiscard]] const RingCounters& counters() const noexcept { return counters_; }
  void reset_counters() noexcept { counters_ = {}; }

  /// Snapshot of a backward (write_backward) buffer: parses forward from `head` (the
  /// newest record) until a zero header (never-written space), a record that would extend
  /// past one full buffer length (partly overwritten by newer data), a corrupt header, or
  /// one full buffer length. Returns copies of the records, OLDEST FIRST.
  [[nodiscard]] std::vector<std::vector<std::byte>> snapshot_backward(std::uint64_t head);

  /// Same walk as snapshot_backward, returning the byte range [head, end) of the valid
  /// records (newest first as laid out in memory) without copying.
  [[nodiscard]] RingChunk collect_backward(std::uint64_t head) const;

 private:
  [[nodiscard]] RingRecordHeader header_at(std::uint64_t pos) const noexcept;
  [[nodiscard]] std::uint64_t u64_at(std::uint64_t pos) const noexcept;
  void copy_out(std::uint64_t pos, std::size_t n, std::byte* out) const noexcept;
  [[nodiscard]] bool valid_size() const noexcept;
  /// Splits [from, from+n) of the data area into at most two slices.
  void slices(std::uint64_t from, std::uint64_t n, RingChunk& chunk) const noexcept;
  static void count(RingCounters& c, const RingRecordHeader& h, std::uint64_t lost) noexcept;

  std::span<const std::byte> data_;
  std::uint64_t mask_ = 0;
  std::uint64_t pos_ = 0;
  std::uint64_t head_ = 0;
  bool corrupt_ = false;
  RingCounters counters_;
  /// Join buffer for records that wrap: kMaxRecordSize bytes once the first one wrapped.
  std::vector<std::byte> scratch_;
};

}  // namespace perfx::record
