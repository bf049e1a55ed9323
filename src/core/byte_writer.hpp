#pragma once
/// \file
/// ByteWriter: appends integers (native byte order) and bytes to a vector; the writing side
/// of ByteReader, shared by the record encoder and the perf.data feature writer.

#include <cstddef>
#include <cstdint>
#include <span>
#include <type_traits>
#include <vector>

namespace perfx::core {

class ByteWriter {
 public:
  /// Writes after what `out` already holds: this writer's part starts there.
  explicit ByteWriter(std::vector<std::byte>& out) noexcept : out_(out), start_(out.size()) {}

  /// One integer in native byte order.
  template <typename T>
  requires std::is_integral_v<T>
  void put(T v) {
    const auto* b = reinterpret_cast<const std::byte*>(&v);
    out_.insert(out_.end(), b, b + sizeof v);
  }
  void u8(std::uint8_t v) { put(v); }
  void u16(std::uint16_t v) { put(v); }
  void u32(std::uint32_t v) { put(v); }
  void u64(std::uint64_t v) { put(v); }
  void bytes(std::span<const std::byte> b) { out_.insert(out_.end(), b.begin(), b.end()); }
  void zeros(std::size_t n) { out_.insert(out_.end(), n, std::byte{0}); }
  /// Zero bytes up to a multiple of `align` counted from the start of this writer's part.
  void pad_to(std::size_t align) { zeros((align - size() % align) % align); }

  /// The bytes this writer wrote.
  [[nodiscard]] std::size_t size() const noexcept { return out_.size() - start_; }
  /// Removes what this writer wrote.
  void rollback() { out_.resize(start_); }
  /// The whole vector (what was there before this writer, then its part).
  [[nodiscard]] std::vector<std::byte>& buffer() noexcept { return out_; }
  /// Where this writer's part starts in buffer().
  [[nodiscard]] std::size_t start() const noexcept { return start_; }

 private:
  std::vector<std::byte>& out_;
  std::size_t start_;
};

}  // namespace perfx::core
