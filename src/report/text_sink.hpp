#pragma once
// TextSink: the exporters' output buffer and their integer and time writers (internal
// to src/report).

#include <charconv>
#include <cstddef>
#include <cstdint>
#include <cstring>
#include <memory>
#include <ostream>
#include <string_view>
#include <type_traits>

#include "core/huge_pages.hpp"
#include "perfx/error.hpp"

namespace perfx::report::detail {

/// Export text on its way to a stream, through a fixed 256 KiB buffer. The per-sample
/// exporters append millions of integers and short strings: here each is a few pointer
/// writes (std::string's appends are out-of-line calls with growth checks, and a
/// Result per "flush if large" check cost as much again). Memory stays bounded. A failed
/// write is remembered; finish() writes the rest and reports it.
///
/// A row of small items (a Firefox sample, a number and its comma) can be written
/// through row(): one room check for the row instead of one per item.
///
/// A TextSink made without a stream keeps its text in memory (from 256 KiB on in
/// recycled huge-page blocks, grown as needed) for text() to give: how SideText formats
/// on another thread.
class TextSink {
 public:
  using value_type = char;  // for std::back_inserter (fmt::format_to)

  explicit TextSink(std::ostream& out);
  /// In memory, with room for `expected_bytes` before it grows.
  explicit TextSink(std::size_t expected_bytes);
  TextSink(const TextSink&) = delete;
  TextSink& operator=(const TextSink&) = delete;

  [[gnu::always_inline]] void push_back(char c) {
    if (cur_ == end_) spill();
    *cur_++ = c;
  }
  TextSink& operator+=(std::string_view s) {
    if (s.size() > static_cast<std::size_t>(end_ - cur_)) return append_long(s);
    std::memcpy(cur_, s.data(), s.size());
    cur_ += s.size();
    return *this;
  }
  TextSink& operator+=(char c) {
    push_back(c);
    return *this;
  }
  template <typename Int>
  [[gnu::always_inline]] void append_integer(Int v) {
    if (end_ - cur_ < kMaxInteger) spill();
    cur_ = put_integer(cur_, v);
  }
  /// Appends nanoseconds as milliseconds at microsecond resolution (truncated, three
  /// decimals: "1234.050"). Trimming trailing zeros costs more than the bytes it saves.
  [[gnu::always_inline]] void append_millis(std::uint64_t ns) {
    if (end_ - cur_ < kMaxMillis) spill();
    cur_ = put_millis(cur_, ns);
  }

  class TimeDigits;

  /// Unchecked writes into room reserved by TextSink::row(); the sink resumes after
  /// them when the Row goes away. Writing more than the room asked for is a bug.
  class Row {
   public:
    Row(const Row&) = delete;
    Row& operator=(const Row&) = delete;
    ~Row() { sink_.cur_ = p_; }
    [[gnu::always_inline]] void put(char c) { *p_++ = c; }
    template <std::size_t N>
    [[gnu::always_inline]] void put(const char (&literal)[N]) {
      std::memcpy(p_, literal, N - 1);
      p_ += N - 1;
    }
    template <typename Int>
    [[gnu::always_inline]] void put_integer(Int v) {
      p_ = TextSink::put_integer(p_, v);
    }
    [[gnu::always_inline]] void put_millis(std::uint64_t ns) { p_ = TextSink::put_millis(p_, ns); }
    /// A nanosecond time of a column, written through `digits` (TimeDigits).
    [[gnu::always_inline]] void put_time(TimeDigits& digits, std::uint64_t ns);

   private:
    friend class TextSink;
    Row(TextSink& sink, char* p) : sink_(sink), p_(p) {}
    TextSink& sink_;
    char* p_;  // local to the row: a char store cannot be taken to change it
  };
  /// Room for `bytes` of unchecked writes (a row: tens of bytes, far below the buffer's
  /// 256 KiB); see Row.
  [[gnu::always_inline]] Row row(std::size_t bytes) {
    if (static_cast<std::size_t>(end_ - cur_) < bytes) spill();
    return Row(*this, cur_);
  }
  /// The digits of a column of nanosecond times, which mostly ascend: a row's digits above
  /// its last six (its milliseconds) are the row before's for tens of rows in a row, so
  /// they are copied from the last row instead of computed again. One per column; a
  /// row takes at most 22 bytes.
  class TimeDigits {
   public:
    [[gnu::always_inline]] char* put(char* p, std::uint64_t ns) {
      const std::uint64_t ms = ns / 1000000u;
      if (ms != ms_) [[unlikely]]
        set_head(ms);
      const auto low = static_cast<std::uint32_t>(ns - ms * 1000000u);
      if (head_len_ == 0) [[unlikely]]
        return put_uint32(p, low);  // below a millisecond: not zero-padded
      std::memcpy(p, head_, sizeof head_);
      p += head_len_;
      std::memcpy(p, kPairs + 2 * (low / 10000u), 2);
      std::memcpy(p + 2, kPairs + 2 * (low / 100u % 100u), 2);
      std::memcpy(p + 4, kPairs + 2 * (low % 100u), 2);
      return p + 6;
    }

   private:
    void set_head(std::uint64_t ms) {
      ms_ = ms;
      head_len_ = ms == 0 ? 0 : static_cast<std::size_t>(put_integer(head_, ms) - head_);
    }
    std::uint64_t ms_ = ~std::uint64_t{0};  // no time has these milliseconds
    char head_[16] = {};                    // up to 14 digits (2^64 ns / 10^6)
    std::size_t head_len_ = 0;
  };

  static constexpr std::ptrdiff_t kMaxInteger = 20;  ///< "-9223372036854775808"
  static constexpr std::ptrdiff_t kMaxMillis = 18;   ///< 14 digits, '.', three decimals

  /// Writes what is buffered; the first write error since construction, if any.
  [[nodiscard]] Result<void> finish();
  /// The text of an in-memory sink.
  [[nodiscard]] std::string_view text() const noexcept {
    return {buf_.get(), static_cast<std::size_t>(cur_ - buf_.get())};
  }

 private:
  void spill();                 // writes the buffer out and empties it; in memory: grows it
  void grow(std::size_t room);  // in memory: room for `room` more bytes
  TextSink& append_long(std::string_view s);

  // The writers below work on a local pointer and return the end: a store through
  // char* may alias anything, so writing through cur_ would reload it after each digit.
  static constexpr char kPairs[] =  // "00" to "99"
      "00010203040506070809101112131415161718192021222324252627282930313233343536373839"
      "40414243444546474849505152535455565758596061626364656667686970717273747576777879"
      "8081828384858687888990919293949596979899";
  // 0 to 999 as text (left-aligned in four bytes) and its length.
  struct SmallNumbers {
    char digits[1000][4];
    std::uint8_t length[1000];
  };
  static constexpr SmallNumbers kSmall = [] {
    SmallNumbers t{};
    for (int v = 0; v < 1000; ++v) {
      const int n = v < 10 ? 1 : v < 100 ? 2 : 3;
      for (int i = n - 1, x = v; i >= 0; --i, x /= 10)
        t.digits[v][i] = static_cast<char>('0' + x % 10);
      t.length[v] = static_cast<std::uint8_t>(n);
    }
    return t;
  }();
  template <typename Int>
  [[gnu::always_inline]] static char* put_integer(char* p, Int v) {
    if constexpr (std::is_signed_v<Int>) {
      if (v < 0) return std::to_chars(p, p + kMaxInteger, v).ptr;
    }
    const auto u = static_cast<std::make_unsigned_t<Int>>(v);
    if constexpr (sizeof(Int) == 8) {
      // Nanosecond times have 13-19 digits: the low nine in 32-bit arithmetic, in
      // independent pairs, instead of ten dependent 64-bit divisions by 100.
      if (u >= 1000000000u) {
        const std::uint64_t high = u / 1000000000u;
        p = high < 1000000000u ? put_uint32(p, static_cast<std::uint32_t>(high))
                               : std::to_chars(p, p + kMaxInteger, high).ptr;
        return put_nine_digits(p, static_cast<std::uint32_t>(u % 1000000000u));
      }
    }
    return put_uint32(p, static_cast<std::uint32_t>(u));
  }
  [[gnu::always_inline]] static char* put_millis(char* p, std::uint64_t ns) {
    p = put_integer(p, ns / 1000000u);
    const auto micros = static_cast<std::uint32_t>(ns % 1000000u) / 1000u;
    p[0] = '.';
    p[1] = static_cast<char>('0' + micros / 100u);
    std::memcpy(p + 2, kPairs + 2 * (micros % 100u), 2);
    return p + 4;
  }
  // The decimal digits of `v`: the indices, thread and cpu numbers of the per-sample
  // columns are mostly one to three digits.
  [[gnu::always_inline]] static char* put_uint32(char* p, std::uint32_t v) {
    if (v < 1000) {  // one copy and a looked-up length: no branch on the digit count
      std::memcpy(p, kSmall.digits[v], 4);
      return p + kSmall.length[v];
    }
    const int n = v < 10000u        ? 4
                  : v < 100000u     ? 5
                  : v < 1000000u    ? 6
                  : v < 10000000u   ? 7
                  : v < 100000000u  ? 8
                  : v < 1000000000u ? 9
                                    : 10;
    char* q = p + n;
    while (v >= 100) {
      q -= 2;
      std::memcpy(q, kPairs + 2 * (v % 100u), 2);
      v /= 100u;
    }
    if (v >= 10)
      std::memcpy(q - 2, kPairs + 2 * v, 2);
    else
      q[-1] = static_cast<char>('0' + v);
    return p + n;
  }
  static char* put_nine_digits(char* p, std::uint32_t v) {  // v < 10^9, zero-padded
    p[0] = static_cast<char>('0' + v / 100000000u);
    v %= 100000000u;
    const std::uint32_t high = v / 10000u;
    const std::uint32_t low = v % 10000u;
    std::memcpy(p + 1, kPairs + 2 * (high / 100u), 2);
    std::memcpy(p + 3, kPairs + 2 * (high % 100u), 2);
    std::memcpy(p + 5, kPairs + 2 * (low / 100u), 2);
    std::memcpy(p + 7, kPairs + 2 * (low % 100u), 2);
    return p + 9;
  }

  std::ostream* out_;  // null: in memory
  core::HugeBuffer buf_;
  char* cur_;
  char* end_;
  std::size_t failed_bytes_ = 0;  // size of the first write that failed; 0 = none
};

inline void TextSink::Row::put_time(TimeDigits& digits, std::uint64_t ns) {
  p_ = digits.put(p_, ns);
}

}  // namespace perfx::report::detail
