// Tracefs `format` files (perfx/trace.hpp): parsing, field reads and perf-trace-style
// field text. Pure: the text comes from the caller (sys reads the files).

#include <fmt/format.h>

#include <cctype>
#include <charconv>
#include <cstring>
#include <string>
#include <string_view>

#include "perfx/trace.hpp"

namespace perfx {
namespace {

std::string_view trim(std::string_view s) {
  while (!s.empty() && (s.front() == ' ' || s.front() == '\t')) s.remove_prefix(1);
  while (!s.empty() && (s.back() == ' ' || s.back() == '\t' || s.back() == '\r'))
    s.remove_suffix(1);
  return s;
}

// The value of "key:value;" inside a field line, or nullopt.
std::optional<std::string_view> attribute(std::string_view line, std::string_view key) {
  std::size_t pos = 0;
  while ((pos = line.find(key, pos)) != std::string_view::npos) {
    const bool at_start =
        pos == 0 || line[pos - 1] == '\t' || line[pos - 1] == ' ' || line[pos - 1] == ';';
    if (at_start && pos + key.size() < line.size() && line[pos + key.size()] == ':') {
      const std::size_t begin = pos + key.size() + 1;
      const std::size_t end = line.find(';', begin);
      if (end == std::string_view::npos) return std::nullopt;
      return trim(line.substr(begin, end - begin));
    }
    pos += key.size();
  }
  return std::nullopt;
}

template <typename T>
bool to_number(std::string_view s, T& out) {
  const auto r = std::from_chars(s.data(), s.data() + s.size(), out);
  return r.ec == std::errc() && r.ptr == s.data() + s.size();
}

// "field:const char * filename" -> type "const char *", name "filename"; arrays
// "char prev_comm[16]" -> name "prev_comm", array_len 16; "__data_loc char[] name".
bool split_declaration(std::string_view decl, TraceField& f) {
  decl = trim(decl);
  std::size_t name_end = decl.size();
  if (!decl.empty() && decl.back() == ']') {
    const std::size_t open = decl.rfind('[');
    if (open == std::string_view::npos) return false;
    const std::string_view len = decl.substr(open + 1, decl.size() - open - 2);
    std::uint32_t n = 0;
    if (!len.empty() && !to_number(len, n)) n = 0;  // [] or [SIZE_MACRO]: length unknown
    f.array_len = n == 0 ? 1 : n;
    name_end = open;
  }
  std::size_t name_begin = name_end;
  while (name_begin > 0 && (std::isalnum(static_cast<unsigned char>(decl[name_begin - 1])) ||
                            decl[name_begin - 1] == '_'))
    --name_begin;
  if (name_begin == name_end) return false;
  f.name = std::string(decl.substr(name_begin, name_end - name_begin));
  std::string_view type = trim(decl.substr(0, name_begin));
  if (type.starts_with("__data_loc")) {
    f.is_dynamic = true;
    type = trim(type.substr(10));
  }
  f.type = std::string(type);
  return !f.type.empty();
}

bool is_char_type(std::string_view type) {
  return type == "char" || type == "const char" || type == "unsigned char" || type == "char[]" ||
         type == "u8";
}

std::string quoted(std::string_view bytes) {
  std::string out = "\"";
  for (char c : bytes) {
    if (c == '\0') break;
    if (c == '"' || c == '\\') {
      out += '\\';
      out += c;
    } else if (static_cast<unsigned char>(c) < 0x20 || c == 0x7f) {
      out += fmt::format("\\x{:02x}", static_cast<unsigned char>(c));
    } else {
      out += c;
    }
  }
  return out + '"';
}

}  // namespace

const TraceField* TraceFormat::field(std::string_view field_name) const noexcept {
  for (const auto& f : fields)
    if (f.name == field_name) return &f;
  return nullptr;
}

Result<TraceFormat> parse_trace_format(std::string_view text) {
  TraceFormat out;
  std::size_t line_no = 0;
  while (!text.empty()) {
    const std::size_t nl = text.find('\n');
    const std::string_view line = text.substr(0, nl);
    text = nl == std::string_view::npos ? std::string_view() : text.substr(nl + 1);
    ++line_no;
    const std::string_view t = trim(line);
    if (t.starts_with("name:")) {
      out.name = std::string(trim(t.substr(5)));
    } else if (t.starts_with("ID:")) {
      if (!to_number(trim(t.substr(3)), out.id))
        return tl::unexpected(
            Error(Errc::kMalformedData, fmt::format("format line {}: bad ID '{}'", line_no, t)));
    } else if (t.starts_with("field:")) {
      TraceField f;
      const std::size_t semi = t.find(';');
      const auto offset = attribute(t, "offset");
      const auto size = attribute(t, "size");
      const auto sign = attribute(t, "signed");
      if (semi == std::string_view::npos || !offset || !size ||
          !split_declaration(t.substr(6, semi - 6), f) || !to_number(*offset, f.offset) ||
          !to_number(*size, f.size))
        return tl::unexpected(Error(Errc::kMalformedData,
                                    fmt::format("format line {}: cannot parse '{}'", line_no, t)));
      f.is_signed = sign && *sign == "1";
      if (f.array_len > 1 && f.size / f.array_len == 0) f.array_len = 1;
      out.fields.push_back(std::move(f));
    }
  }
  if (out.fields.empty())
    return tl::unexpected(Error(Errc::kMalformedData, "format has no field lines"));
  return out;
}

std::optional<std::uint64_t> read_trace_field(std::span<const std::byte> raw,
                                              const TraceField& f) noexcept {
  if (f.size == 0 || f.size > 8 || f.offset > raw.size() || raw.size() - f.offset < f.size)
    return std::nullopt;
  std::uint64_t v = 0;
  std::memcpy(&v, raw.data() + f.offset, f.size);  // little-endian host (x86_64 tracepoints)
  if (f.is_signed && f.size < 8) {
    const unsigned shift = 64 - 8 * f.size;
    v = static_cast<std::uint64_t>(static_cast<std::int64_t>(v << shift) >> shift);
  }
  return v;
}

std::string format_trace_fields(std::span<const std::byte> raw, const TraceFormat& format) {
  std::string out;
  for (const auto& f : format.fields) {
    if (f.name.starts_with("common_")) continue;
    if (!out.empty()) out += ", ";
    out += f.name;
    out += ": ";
    const std::string_view elem_type = f.type.ends_with("[]")
                                           ? std::string_view(f.type).substr(0, f.type.size() - 2)
                                           : std::string_view(f.type);
    if (f.is_dynamic) {
      // __data_loc: u32 = (length << 16) | offset of the data inside the payload.
      const auto loc = read_trace_field(raw, TraceField{"", "", f.offset, 4, false, 0, false});
      const std::uint32_t off = loc ? static_cast<std::uint32_t>(*loc & 0xffffu) : 0;
      const std::uint32_t len = loc ? static_cast<std::uint32_t>(*loc >> 16) : 0;
      if (!loc || off > raw.size() || raw.size() - off < len) {
        out += "?";
      } else if (is_char_type(elem_type)) {
        out += quoted(std::string_view(reinterpret_cast<const char*>(raw.data() + off), len));
      } else {
        out += fmt::format("[{} bytes]", len);
      }
      continue;
    }
    if (f.array_len > 0) {
      if (f.offset > raw.size() || raw.size() - f.offset < f.size) {
        out += "?";
      } else if (is_char_type(elem_type)) {
        out +=
            quoted(std::string_view(reinterpret_cast<const char*>(raw.data() + f.offset), f.size));
      } else {
        const std::uint32_t each = f.size / f.array_len;
        out += '[';
        for (std::uint32_t i = 0; i < f.array_len; ++i) {
          TraceField e = f;
          e.offset = f.offset + i * each;
          e.size = each;
          const auto v = read_trace_field(raw, e);
          out += fmt::format("{}{}", i ? ", " : "", v ? fmt::format("{:#x}", *v) : "?");
        }
        out += ']';
      }
      continue;
    }
    const auto v = read_trace_field(raw, f);
    if (!v) {
      out += "?";
    } else if (f.type.find('*') != std::string::npos) {
      out += fmt::format("{:#x}", *v);
    } else if (f.is_signed) {
      out += fmt::format("{}", static_cast<std::int64_t>(*v));
    } else {
      out += fmt::format("{}", *v);
    }
  }
  return out;
}

}  // namespace perfx
