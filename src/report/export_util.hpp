#pragma once
// Helpers shared by the exporters and the stat JSON writer (internal to src/report).

#include <cstdint>
#include <ostream>
#include <string>
#include <string_view>
#include <vector>

#include "core/utf8.hpp"
#include "perfx/error.hpp"
#include "profile/profile.hpp"
#include "report/export.hpp"
#include "report/text_sink.hpp"

namespace perfx::report::detail {

/// Appends `s` to `out` (a std::string or a TextSink) escaped for the inside of a JSON
/// string: valid UTF-8 kept, each ill-formed sequence replaced by U+FFFD (core/utf8.hpp),
/// '<' escaped so that "</script>" stays inert inside HTML, and U+FFFE/U+FFFF escaped so
/// that the JSON can sit in an HTML page that XML tools read.
template <typename Out>
void append_json_escaped(Out& out, std::string_view s) {
  std::size_t plain = 0;  // start of the run of characters that need no escape
  for (std::size_t i = 0; i < s.size(); ++i) {
    const auto c = static_cast<unsigned char>(s[i]);
    if (c >= 0x80) {
      const core::Utf8Step step = core::decode_utf8(s, i);
      if (step.valid && step.code_point != 0xFFFE && step.code_point != 0xFFFF) {
        i += step.length - 1u;
        continue;
      }
      out += s.substr(plain, i - plain);
      if (step.valid) {
        out += step.code_point == 0xFFFE ? std::string_view("\\ufffe") : "\\uffff";
      } else {
        out += core::kReplacementChar;
      }
      i += step.length - 1u;
      plain = i + 1;
      continue;
    }
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

/// The samples of an event grouped by (event, thread): see samples_by_thread().
struct SamplesByThread {
  struct Group {
    std::size_t begin;  ///< [begin, end) in `order`
    std::size_t end;
  };
  core::HugeVector<std::uint32_t> order;  ///< sample indices, group after group
  std::vector<Group> groups;              ///< the non-empty groups, in `order`'s order
};

/// Indices of the samples of `event` (-1 = every event), grouped by (event, thread) in
/// ascending order; each group is in time order (recording order for equal times).
/// Linear for the loader's time-ordered samples (a bucket pass, no comparison sort).
[[nodiscard]] SamplesByThread samples_by_thread(const profile::Profile& profile,
                                                std::int64_t event);

/// Appends `s` to `out` with XML/HTML special characters escaped, each ill-formed UTF-8
/// sequence and each character XML 1.0 forbids (C0 controls but tab, newline and
/// carriage return; U+FFFE, U+FFFF) replaced by U+FFFD.
void append_xml_escaped(std::string& out, std::string_view s);

/// The event index the single-event exporters (folded, flame graphs) use:
/// options.event when set, else the first event that has samples (0 when none).
[[nodiscard]] Result<std::uint32_t> select_event(const profile::Profile& profile,
                                                 const ExportOptions& options);

/// Title for pictures: options.title, else "perfx: <recorded command>" (the part after
/// " -- " when the command line has one), else "perfx profile".
[[nodiscard]] std::string display_title(const profile::Profile& profile,
                                        const ExportOptions& options);

/// Short lower-case name of a frame kind: "user", "kernel", "jit", "unknown", "off-cpu".
[[nodiscard]] std::string_view kind_name(profile::FrameKind kind) noexcept;

/// Writes `data` to `out`; kIo error when the stream failed.
[[nodiscard]] Result<void> write_all(std::ostream& out, std::string_view data);

}  // namespace perfx::report::detail
