#pragma once
// UTF-8 validation and repair for text that leaves perfx in a structured format (JSON,
// pprof, HTML, SVG): comms, symbols and paths are bytes, and a process can name itself
// anything. Invalid sequences become U+FFFD, one per maximal subpart (Unicode 15, 3.9
// "U+FFFD Substitution of Maximal Subparts", as the WHATWG decoder and Python do).

#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>

namespace perfx::core {

/// U+FFFD REPLACEMENT CHARACTER in UTF-8.
inline constexpr std::string_view kReplacementChar = "\xEF\xBF\xBD";

/// One step of decoding: `length` bytes (>= 1) were consumed; `valid` says whether they
/// are one well-formed sequence (then `code_point` is its value) or a maximal subpart of
/// an ill-formed one (to be replaced by one U+FFFD).
struct Utf8Step {
  std::uint32_t code_point = 0;
  std::uint8_t length = 1;
  bool valid = false;
};

/// Decodes the sequence starting at s[i] (precondition: i < s.size()).
[[nodiscard]] constexpr Utf8Step decode_utf8(std::string_view s, std::size_t i) noexcept {
  const auto byte = [&](std::size_t k) { return static_cast<unsigned char>(s[k]); };
  const unsigned char b0 = byte(i);
  if (b0 < 0x80) return {b0, 1, true};
  // Table 3-7 of the Unicode standard: the lead byte fixes the length and the range of
  // the second byte; later bytes are 80..BF.
  std::uint8_t need = 0;
  unsigned char lo = 0x80;
  unsigned char hi = 0xBF;
  std::uint32_t cp = 0;
  if (b0 >= 0xC2 && b0 <= 0xDF) {
    need = 1;
    cp = b0 & 0x1Fu;
  } else if (b0 >= 0xE0 && b0 <= 0xEF) {
    need = 2;
    cp = b0 & 0x0Fu;
    if (b0 == 0xE0) lo = 0xA0;
    if (b0 == 0xED) hi = 0x9F;  // no surrogates
  } else if (b0 >= 0xF0 && b0 <= 0xF4) {
    need = 3;
    cp = b0 & 0x07u;
    if (b0 == 0xF0) lo = 0x90;
    if (b0 == 0xF4) hi = 0x8F;  // nothing above U+10FFFF
  } else {
    return {0, 1, false};  // 80..C1, F5..FF never start a sequence
  }
  std::uint8_t len = 1;
  for (; len <= need; ++len) {
    if (i + len >= s.size()) return {0, len, false};
    const unsigned char b = byte(i + len);
    if (b < lo || b > hi) return {0, len, false};
    cp = (cp << 6) | (b & 0x3Fu);
    lo = 0x80;
    hi = 0xBF;
  }
  return {cp, len, true};
}

/// True when `s` is well-formed UTF-8.
[[nodiscard]] bool is_valid_utf8(std::string_view s) noexcept;

/// True for code points XML 1.0 forbids (section 2.2 "Char"): C0 controls other than tab,
/// newline and carriage return, and U+FFFE/U+FFFF. (Surrogates are not valid UTF-8.)
[[nodiscard]] constexpr bool is_xml_forbidden(std::uint32_t cp) noexcept {
  return (cp < 0x20 && cp != '\t' && cp != '\n' && cp != '\r') || cp == 0xFFFE || cp == 0xFFFF;
}

/// Appends `s` to `out` (anything with `+= std::string_view`) with every ill-formed
/// sequence replaced by U+FFFD; valid text is appended unchanged, in runs.
template <typename Out>
void append_valid_utf8(Out& out, std::string_view s) {
  std::size_t plain = 0;
  for (std::size_t i = 0; i < s.size();) {
    if (static_cast<unsigned char>(s[i]) < 0x80) {
      ++i;
      continue;
    }
    const Utf8Step step = decode_utf8(s, i);
    if (!step.valid) {
      out += s.substr(plain, i - plain);
      out += kReplacementChar;
      plain = i + step.length;
    }
    i += step.length;
  }
  out += s.substr(plain);
}

/// `s` as well-formed UTF-8 (see append_valid_utf8()); `s` itself when it already is.
[[nodiscard]] std::string to_valid_utf8(std::string_view s);

}  // namespace perfx::core
