#pragma once
// Helpers shared by the exporters and the stat JSON writer (internal to src/report).

#include <charconv>
#include <cstdint>
#include <cstring>
#include <memory>
#include <ostream>
#include <string>
#include <string_view>
#include <type_traits>
#include <vector>

#include "perfx/error.hpp"
#include "profile/profile.hpp"
#include "report/export.hpp"

namespace perfx::report::detail {

/// Export text on its way to a stream, through a fixed 256 KiB buffer. The per-sample
/// exporters append millions of integers and short strings: here each is a few pointer
/// writes (std::string's appends are out-of-line calls with growth checks, and a
/// Result per "flush if large" check cost as much again). Memory stays bounded. A failed
/// write is remembered; finish() writes the rest and reports it.
class TextSink {
 public:
  using value_type = char;  // for std::back_inserter (fmt::format_to)

  explicit TextSink(std::ostream& out);
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
    if (end_ - cur_ < 24) spill();
    if constexpr (std::is_signed_v<Int>) {
      if (v < 0) {
        cur_ = std::to_chars(cur_, end_, v).ptr;
        return;
      }
    }
    const auto u = static_cast<std::make_unsigned_t<Int>>(v);
    if constexpr (sizeof(Int) == 8) {
      // Nanosecond times have 13-19 digits: the low nine in 32-bit arithmetic, two at a
      // time, instead of ten 64-bit divisions by 100.
      if (u >= 1000000000u) {
        const std::uint64_t high = u / 1000000000u;
        if (high < 1000000000u)
          put_uint32(static_cast<std::uint32_t>(high));
        else
          cur_ = std::to_chars(cur_, end_, high).ptr;
        put_nine_digits(static_cast<std::uint32_t>(u % 1000000000u));
        return;
      }
    }
    put_uint32(static_cast<std::uint32_t>(u));
  }
  /// Appends `v` / 10^6 with six decimals ("1234.000567"): nanoseconds as milliseconds.
  [[gnu::always_inline]] void append_millis(std::uint64_t ns) {
    append_integer(ns / 1000000u);
    const auto frac = static_cast<std::uint32_t>(ns % 1000000u);
    if (end_ - cur_ < 8) spill();
    // Through a local pointer (a char store could alias cur_ itself and force a reload
    // after each), three independent digit pairs.
    char* p = cur_;
    p[0] = '.';
    std::memcpy(p + 1, kPairs + 2 * (frac / 10000u), 2);
    std::memcpy(p + 3, kPairs + 2 * (frac / 100u % 100u), 2);
    std::memcpy(p + 5, kPairs + 2 * (frac % 100u), 2);
    cur_ = p + 7;
  }
  /// Writes what is buffered; the first write error since construction, if any.
  [[nodiscard]] Result<void> finish();

 private:
  void spill();                     // writes the buffer out and empties it
  static constexpr char kPairs[] =  // "00" to "99"
      "00010203040506070809101112131415161718192021222324252627282930313233343536373839"
      "40414243444546474849505152535455565758596061626364656667686970717273747576777879"
      "8081828384858687888990919293949596979899";
  // The decimal digits of `v` (room checked by the caller): the indices, thread and cpu
  // numbers of the per-sample columns are mostly one to three digits.
  [[gnu::always_inline]] void put_uint32(std::uint32_t v) {
    if (v < 10) {
      *cur_++ = static_cast<char>('0' + v);
      return;
    }
    if (v < 100) {
      std::memcpy(cur_, kPairs + 2 * v, 2);
      cur_ += 2;
      return;
    }
    const int n = v < 1000u         ? 3
                  : v < 10000u      ? 4
                  : v < 100000u     ? 5
                  : v < 1000000u    ? 6
                  : v < 10000000u   ? 7
                  : v < 100000000u  ? 8
                  : v < 1000000000u ? 9
                                    : 10;
    char* p = cur_ + n;
    while (v >= 100) {
      p -= 2;
      std::memcpy(p, kPairs + 2 * (v % 100u), 2);
      v /= 100u;
    }
    if (v >= 10)
      std::memcpy(p - 2, kPairs + 2 * v, 2);
    else
      p[-1] = static_cast<char>('0' + v);
    cur_ += n;
  }
  void put_nine_digits(std::uint32_t v) {  // v < 10^9, zero-padded
    char* p = cur_;  // local: see append_millis()
    p[0] = static_cast<char>('0' + v / 100000000u);
    v %= 100000000u;
    const std::uint32_t high = v / 10000u;
    const std::uint32_t low = v % 10000u;
    std::memcpy(p + 1, kPairs + 2 * (high / 100u), 2);
    std::memcpy(p + 3, kPairs + 2 * (high % 100u), 2);
    std::memcpy(p + 5, kPairs + 2 * (low / 100u), 2);
    std::memcpy(p + 7, kPairs + 2 * (low % 100u), 2);
    cur_ = p + 9;
  }
  TextSink& append_long(std::string_view s);

  std::ostream& out_;
  std::unique_ptr<char[]> buf_;
  char* cur_;
  char* end_;
  std::size_t failed_bytes_ = 0;  // size of the first write that failed; 0 = none
};

/// Appends `s` to `out` (a std::string or a TextSink) escaped for the inside of a JSON
/// string (UTF-8 kept; '<' escaped too, so that "</script>" stays inert inside HTML).
template <typename Out>
void append_json_escaped(Out& out, std::string_view s) {
  std::size_t plain = 0;  // start of the run of characters that need no escape
  for (std::size_t i = 0; i < s.size(); ++i) {
    const auto c = static_cast<unsigned char>(s[i]);
    if (c >= 0x20 && c != '"' && c != '\\' && c != '<') continue;
    out += s.substr(plain, i - plain);
    plain = i + 1;
    switch (c) {
      case '"':
        out += "\\\"";
        break;
      case '\\':
        out += "\\\\";
        break;
      case '\n':
        out += "\\n";
        break;
      case '\r':
        out += "\\r";
        break;
      case '\t':
        out += "\\t";
        break;
      case '<':
        out += "\\u003c";
        break;
      default: {
        constexpr char kHex[] = "0123456789abcdef";
        const char esc[] = {'\\', 'u', '0', '0', kHex[c >> 4], kHex[c & 15]};
        out += std::string_view(esc, sizeof esc);
      }
    }
  }
  out += s.substr(plain);
}

/// Appends `s` to `out` as a JSON string literal: quotes around append_json_escaped().
template <typename Out>
void append_json_string(Out& out, std::string_view s) {
  out.push_back('"');
  append_json_escaped(out, s);
  out.push_back('"');
}

/// Appends the decimal digits of `v` to `out` (no fmt/locale machinery: exporters write
/// millions of integers).
void append_uint(std::string& out, std::uint64_t v);
[[gnu::always_inline]] inline void append_uint(TextSink& out, std::uint64_t v) {
  out.append_integer(v);
}

/// Appends a signed integer in decimal to `out`.
void append_int(std::string& out, std::int64_t v);
[[gnu::always_inline]] inline void append_int(TextSink& out, std::int64_t v) {
  out.append_integer(v);
}

/// Indices of the samples of `event` (-1 = every event), grouped by (event, thread) in
/// ascending order; each group is in time order (recording order for equal times).
/// Linear for the loader's time-ordered samples (a bucket pass, no comparison sort).
[[nodiscard]] std::vector<std::uint32_t> samples_by_thread(const profile::Profile& profile,
                                                           std::int64_t event);

/// Appends `s` to `out` with XML/HTML special characters escaped.
void append_xml_escaped(std::string& out, std::string_view s);

/// The event index the single-event exporters (folded, flame graphs) use:
/// options.event when set, else the first event that has samples (0 when none).
[[nodiscard]] Result<std::uint32_t> select_event(const profile::Profile& profile,
                                                 const ExportOptions& options);

/// Title for pictures: options.title, else "perfx: <recorded command>" (the part after
/// " -- " when the command line has one), else "perfx profile".
[[nodiscard]] std::string display_title(const profile::Profile& profile,
                                        const ExportOptions& options);

/// Short lower-case name of a frame kind: "user", "kernel", "jit", "unknown".
[[nodiscard]] std::string_view kind_name(profile::FrameKind kind) noexcept;

/// Writes `data` to `out`; kIo error when the stream failed.
[[nodiscard]] Result<void> write_all(std::ostream& out, std::string_view data);

}  // namespace perfx::report::detail
