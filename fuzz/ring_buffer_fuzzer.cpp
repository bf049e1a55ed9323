// Fuzz target: record::RingReader over a simulated perf ring buffer.
//
// Input layout: byte 0 = log2 of the data-area size (mod 17; an odd byte 1 makes the size
// not a power of two), bytes 2..9 = tail, bytes 10..17 = head - tail (taken modulo twice
// the capacity, so both valid and overrun distances occur), the rest = the data area
// (zero-filled or cut to the capacity). Runs the bulk pass, the record-by-record pass and
// the backward snapshot, and checks the invariants the recorder relies on: slices stay
// inside the area, new_tail == head, each record is 8..65535 bytes with size % 8 == 0,
// the records of a pass tile [tail, tail + valid bytes) exactly, and both forward walks
// agree.

#include <cstddef>
#include <cstdint>
#include <cstring>
#include <span>
#include <vector>

#include "record/ring_reader.hpp"

namespace {

void check(bool cond) {
  if (!cond) __builtin_trap();
}

std::uint64_t load64(const std::uint8_t* p) {
  std::uint64_t v = 0;
  std::memcpy(&v, p, 8);
  return v;
}

bool inside(std::span<const std::byte> s, std::span<const std::byte> area) {
  if (s.empty()) return true;
  return s.data() >= area.data() && s.data() + s.size() <= area.data() + area.size();
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  if (size < 18) return 0;
  std::size_t cap = std::size_t{1} << (data[0] % 17);
  if (data[1] & 1) cap += data[1] >> 1;  // not a power of two (the reader must refuse it)
  const std::uint64_t tail = load64(data + 2);
  const std::uint64_t dist = load64(data + 10) % (2 * cap + 1);
  const std::uint64_t head = tail + dist;
  std::vector<std::byte> area(cap);
  const std::size_t body = std::min(size - 18, cap);
  if (body > 0) std::memcpy(area.data(), data + 18, body);
  const std::span<const std::byte> span(area);

  perfx::record::RingReader reader(span);
  const auto chunk = reader.collect_forward(head, tail);
  check(chunk.new_tail == head);
  check(inside(chunk.first, span) && inside(chunk.second, span));
  check(chunk.size() <= cap);
  check(chunk.size() + chunk.counters.dropped_bytes == dist);
  check(chunk.corrupt == (chunk.counters.corrupt_events != 0));

  reader.begin(head, tail);
  std::uint64_t walked = 0;
  std::uint64_t records = 0;
  while (auto rec = reader.next()) {
    check(rec->size() >= 8 && rec->size() % 8 == 0 && rec->size() <= 0xffff);
    std::uint16_t hsize = 0;
    std::memcpy(&hsize, rec->data() + 6, 2);
    check(hsize == rec->size());
    walked += rec->size();
    ++records;
    check(walked <= dist);
  }
  check(reader.position() == head);
  check(reader.corrupt() == chunk.corrupt);
  check(walked == chunk.size());
  check(records == chunk.counters.records);
  check(reader.counters().dropped_bytes == chunk.counters.dropped_bytes);

  // Backward (overwrite) mode from the same head.
  const auto back = reader.collect_backward(head);
  check(inside(back.first, span) && inside(back.second, span));
  check(back.size() <= cap);
  const auto snap = reader.snapshot_backward(head);
  check(snap.size() == back.counters.records);
  std::uint64_t snap_bytes = 0;
  for (const auto& r : snap) {
    check(r.size() >= 8 && r.size() % 8 == 0);
    snap_bytes += r.size();
  }
  check(snap_bytes == back.size());
  return 0;
}
