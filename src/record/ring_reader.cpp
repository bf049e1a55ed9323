#include "record/ring_reader.hpp"

#include <algorithm>
#include <bit>
#include <cstring>

#include "perfx/raw.hpp"

namespace perfx::record {

RingCounters& RingCounters::operator+=(const RingCounters& o) noexcept {
  records += o.records;
  samples += o.samples;
  bytes += o.bytes;
  lost_records += o.lost_records;
  lost_samples += o.lost_samples;
  throttle += o.throttle;
  unthrottle += o.unthrottle;
  corrupt_events += o.corrupt_events;
  dropped_bytes += o.dropped_bytes;
  wrapped_records += o.wrapped_records;
  return *this;
}

RingReader::RingReader(std::span<const std::byte> data) noexcept
    : data_(data), mask_(data.empty() ? 0 : data.size() - 1) {}

bool RingReader::valid_size() const noexcept {
  return !data_.empty() && std::has_single_bit(data_.size());
}

void RingReader::copy_out(std::uint64_t pos, std::size_t n, std::byte* out) const noexcept {
  const std::uint64_t off = pos & mask_;
  const std::size_t first =
      static_cast<std::size_t>(std::min<std::uint64_t>(n, data_.size() - off));
  std::memcpy(out, data_.data() + off, first);
  if (first < n) std::memcpy(out + first, data_.data(), n - first);
}

RingRecordHeader RingReader::header_at(std::uint64_t pos) const noexcept {
  std::byte raw[8];
  copy_out(pos, sizeof(raw), raw);
  RingRecordHeader h;
  std::memcpy(&h.type, raw, 4);
  std::memcpy(&h.misc, raw + 4, 2);
  std::memcpy(&h.size, raw + 6, 2);
  return h;
}

std::uint64_t RingReader::u64_at(std::uint64_t pos) const noexcept {
  std::byte raw[8];
  copy_out(pos, sizeof(raw), raw);
  std::uint64_t v = 0;
  std::memcpy(&v, raw, 8);
  return v;
}

void RingReader::count(RingCounters& c, const RingRecordHeader& h, std::uint64_t lost) noexcept {
  ++c.records;
  c.bytes += h.size;
  switch (h.type) {
    case PERF_RECORD_SAMPLE:
      ++c.samples;
      break;
    case PERF_RECORD_LOST:
      ++c.lost_records;
      c.lost_samples += lost;
      break;
    case PERF_RECORD_THROTTLE:
      ++c.throttle;
      break;
    case PERF_RECORD_UNTHROTTLE:
      ++c.unthrottle;
      break;
    default:
      break;
  }
}

void RingReader::slices(std::uint64_t from, std::uint64_t n, RingChunk& chunk) const noexcept {
  if (n == 0) return;
  const std::uint64_t off = from & mask_;
  const std::uint64_t first = std::min<std::uint64_t>(n, data_.size() - off);
  chunk.first = data_.subspan(static_cast<std::size_t>(off), static_cast<std::size_t>(first));
  if (first < n) chunk.second = data_.first(static_cast<std::size_t>(n - first));
}

RingChunk RingReader::collect_forward(std::uint64_t head, std::uint64_t tail) const {
  RingChunk chunk;
  chunk.new_tail = head;
  const std::uint64_t pending = head - tail;
  if (pending == 0) return chunk;
  if (!valid_size() || pending > data_.size()) {
    // The writer ran over the reader (or the area is unusable): nothing is trustworthy.
    chunk.corrupt = true;
    chunk.corrupt_at = tail;
    chunk.counters.corrupt_events = 1;
    chunk.counters.dropped_bytes = pending;
    return chunk;
  }
  std::uint64_t pos = tail;
  while (pos != head) {
    const std::uint64_t left = head - pos;
    if (left < 8) {
      chunk.corrupt = true;
      break;
    }
    const RingRecordHeader h = header_at(pos);
    if (h.size < 8 || h.size % 8 != 0 || h.size > left) {
      chunk.corrupt = true;
      break;
    }
    std::uint64_t lost = 0;
    if (h.type == PERF_RECORD_LOST && h.size >= 24) lost = u64_at(pos + 16);
    count(chunk.counters, h, lost);
    if ((pos & mask_) + h.size > data_.size()) ++chunk.counters.wrapped_records;
    pos += h.size;
  }
  if (chunk.corrupt) {
    chunk.corrupt_at = pos;
    chunk.counters.corrupt_events = 1;
    chunk.counters.dropped_bytes = head - pos;
  }
  slices(tail, pos - tail, chunk);
  return chunk;
}

void RingReader::begin(std::uint64_t head, std::uint64_t tail) noexcept {
  pos_ = tail;
  head_ = head;
  corrupt_ = false;
  if (head - tail != 0 && (!valid_size() || head - tail > data_.size())) {
    corrupt_ = true;
    ++counters_.corrupt_events;
    counters_.dropped_bytes += head - tail;
    pos_ = head;
  }
}

std::optional<std::span<const std::byte>> RingReader::next() {
  if (corrupt_ || pos_ == head_) return std::nullopt;
  const std::uint64_t left = head_ - pos_;
  RingRecordHeader h;
  if (left >= 8) h = header_at(pos_);
  if (left < 8 || h.size < 8 || h.size % 8 != 0 || h.size > left) {
    corrupt_ = true;
    ++counters_.corrupt_events;
    counters_.dropped_bytes += left;
    pos_ = head_;
    return std::nullopt;
  }
  std::uint64_t lost = 0;
  if (h.type == PERF_RECORD_LOST && h.size >= 24) lost = u64_at(pos_ + 16);
  count(counters_, h, lost);
  const std::uint64_t off = pos_ & mask_;
  std::span<const std::byte> rec;
  if (off + h.size <= data_.size()) {
    rec = data_.subspan(static_cast<std::size_t>(off), h.size);
  } else {
    ++counters_.wrapped_records;
    // Fixed size: a record is at most 65535 bytes (u16 size), so one allocation, made on
    // the first wrap, serves every later one.
    if (scratch_.size() < kMaxRecordSize) scratch_.resize(kMaxRecordSize);
    copy_out(pos_, h.size, scratch_.data());
    rec = std::span<const std::byte>(scratch_.data(), h.size);
  }
  pos_ += h.size;
  return rec;
}

RingChunk RingReader::collect_backward(std::uint64_t head) const {
  RingChunk chunk;
  chunk.new_tail = head;
  if (!valid_size()) {
    chunk.corrupt = true;
    chunk.counters.corrupt_events = 1;
    return chunk;
  }
  const std::uint64_t cap = data_.size();
  std::uint64_t walked = 0;
  while (walked + 8 <= cap) {
    const RingRecordHeader h = header_at(head + walked);
    if (h.size == 0) break;  // never-written space: the buffer has not wrapped yet
    if (h.size < 8 || h.size % 8 != 0) {
      chunk.corrupt = true;
      chunk.corrupt_at = head + walked;
      chunk.counters.corrupt_events = 1;
      chunk.counters.dropped_bytes = cap - walked;
      break;
    }
    // The oldest record may have been partly overwritten by the newest one.
    if (walked + h.size > cap) break;
    std::uint64_t lost = 0;
    if (h.type == PERF_RECORD_LOST && h.size >= 24) lost = u64_at(head + walked + 16);
    count(chunk.counters, h, lost);
    walked += h.size;
  }
  slices(head, walked, chunk);
  return chunk;
}

std::vector<std::vector<std::byte>> RingReader::snapshot_backward(std::uint64_t head) {
  const RingChunk chunk = collect_backward(head);
  counters_ += chunk.counters;
  std::vector<std::vector<std::byte>> out;
  out.reserve(chunk.counters.records);
  std::uint64_t pos = head;
  const std::uint64_t end = head + chunk.size();
  while (pos != end) {
    const RingRecordHeader h = header_at(pos);
    std::vector<std::byte> rec(h.size);
    copy_out(pos, h.size, rec.data());
    out.push_back(std::move(rec));
    pos += h.size;
  }
  std::reverse(out.begin(), out.end());
  return out;
}

}  // namespace perfx::record
