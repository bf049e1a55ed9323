#pragma once
// Bounds-checked little reader over untrusted bytes (ARCHITECTURE.md, "Binary data").
// Loads go through memcpy (no casting bytes to structs); the first failure is
// sticky: every later read returns zero values and ok() stays false, so a
// decoder can read a whole struct and check once.

#include <bit>
#include <cstddef>
#include <cstdint>
#include <cstring>
#include <span>
#include <string_view>
#include <type_traits>

#include "core/error_format.hpp"

namespace perfx::core {

class ByteReader {
 public:
  ByteReader() = default;
  explicit ByteReader(std::span<const std::byte> bytes, bool swap = false)
      : data_(bytes), swap_(swap) {}

  /// False once any read went past the end (sticky).
  [[nodiscard]] bool ok() const noexcept { return ok_; }
  [[nodiscard]] std::size_t offset() const noexcept { return pos_; }
  [[nodiscard]] std::size_t remaining() const noexcept { return data_.size() - pos_; }
  [[nodiscard]] std::size_t size() const noexcept { return data_.size(); }
  [[nodiscard]] bool at_end() const noexcept { return pos_ == data_.size(); }
  [[nodiscard]] std::span<const std::byte> bytes() const noexcept { return data_; }
  /// Whether multi-byte loads are byte-swapped (file written on the other endianness).
  [[nodiscard]] bool swapped() const noexcept { return swap_; }

  /// Reads one trivially copyable integer (byte-swapped if the reader swaps).
  template <typename T>
  requires std::is_integral_v<T> T read()
  noexcept {
    T value{};
    if (!ok_ || remaining() < sizeof(T)) {
      fail();
      return T{};
    }
    std::memcpy(&value, data_.data() + pos_, sizeof(T));
    pos_ += sizeof(T);
    if constexpr (sizeof(T) > 1) {
      if (swap_) value = byteswap(value);
    }
    return value;
  }

  std::uint8_t u8() noexcept { return read<std::uint8_t>(); }
  std::uint16_t u16() noexcept { return read<std::uint16_t>(); }
  std::uint32_t u32() noexcept { return read<std::uint32_t>(); }
  std::uint64_t u64() noexcept { return read<std::uint64_t>(); }
  std::int64_t i64() noexcept { return read<std::int64_t>(); }

  /// Takes the next n bytes as a view (empty and failed if fewer remain).
  std::span<const std::byte> take(std::size_t n) noexcept {
    if (!ok_ || remaining() < n) {
      fail();
      return {};
    }
    auto out = data_.subspan(pos_, n);
    pos_ += n;
    return out;
  }

  /// Takes `count` elements of `elem_size` bytes; the count is checked against
  /// what is left before multiplying, so a huge count cannot overflow.
  std::span<const std::byte> take_array(std::uint64_t count, std::size_t elem_size) noexcept {
    if (!ok_ || elem_size == 0 || count > remaining() / elem_size) {
      fail();
      return {};
    }
    return take(static_cast<std::size_t>(count) * elem_size);
  }

  /// A sub-reader over the next n bytes (same byte order); advances past them.
  ByteReader sub(std::size_t n) noexcept {
    auto s = take(n);
    ByteReader r(s, swap_);
    if (!ok_) r.fail();
    return r;
  }

  void skip(std::size_t n) noexcept { (void)take(n); }

  /// A NUL-terminated string inside the next `bound` bytes; consumes all of
  /// `bound`. Fails if no NUL lies within the bound.
  std::string_view cstring_in(std::size_t bound) noexcept {
    auto s = take(bound);
    if (!ok_) return {};
    const auto* chars = reinterpret_cast<const char*>(s.data());
    const void* nul = std::memchr(chars, '\0', s.size());
    if (nul == nullptr) {
      fail();
      return {};
    }
    return {chars, static_cast<std::size_t>(static_cast<const char*>(nul) - chars)};
  }

  /// Marks the reader failed (for semantic errors found by the caller).
  void fail() noexcept {
    ok_ = false;
    pos_ = data_.size();
  }

  template <typename T>
  static constexpr T byteswap(T v) noexcept {
    using U = std::make_unsigned_t<T>;
    auto u = static_cast<U>(v);
    U out = 0;
    for (std::size_t i = 0; i < sizeof(T); ++i) {
      out = static_cast<U>((std::uint64_t{out} << 8) | (u & 0xffu));
      u = static_cast<U>(u >> 8);
    }
    return static_cast<T>(out);
  }

 private:
  std::span<const std::byte> data_;
  std::size_t pos_ = 0;
  bool swap_ = false;
  bool ok_ = true;
};

}  // namespace perfx::core
