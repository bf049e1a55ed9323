#pragma once
/// \file
/// Walking ring-buffer bytes record by record (what a recorder and a live view do with
/// each drained range): join a range that wrapped, then visit each whole record.

#include <cstddef>
#include <cstdint>
#include <cstring>
#include <span>
#include <vector>

namespace perfx::core {

/// A drained range as one span: `first` itself, or both pieces copied into `scratch`
/// when the range wrapped around the ring buffer's end.
[[nodiscard]] inline std::span<const std::byte> contiguous(std::span<const std::byte> first,
                                                           std::span<const std::byte> second,
                                                           std::vector<std::byte>& scratch) {
  if (second.empty()) return first;
  scratch.assign(first.begin(), first.end());
  scratch.insert(scratch.end(), second.begin(), second.end());
  return scratch;
}

/// Calls `fn` with each whole record of contiguous ring-buffer bytes; stops at a header
/// whose size is below 8 or runs past the end.
template <typename Fn>
void for_each_record(std::span<const std::byte> bytes, Fn&& fn) {
  std::size_t off = 0;
  while (off + 8 <= bytes.size()) {
    std::uint16_t size = 0;
    std::memcpy(&size, bytes.data() + off + 6, 2);
    if (size < 8 || size > bytes.size() - off) break;
    fn(bytes.subspan(off, size));
    off += size;
  }
}

}  // namespace perfx::core
