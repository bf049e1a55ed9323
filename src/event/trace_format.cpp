// The public tracepoint-format API of perfx/trace.hpp, over event/tracepoint_format.hpp
// (the one parser of tracefs format files and field reads), plus perf trace's text of a
// tracepoint payload.

#include <fmt/format.h>

#include <charconv>
#include <string>
#include <string_view>

#include "event/tracepoint_format.hpp"
#include "perfx/trace.hpp"

namespace perfx {
namespace {

// The public field of an internal one: "char[16]" -> type "char", array_len 16.
TraceField to_public(const event::TracepointField& f) {
  TraceField out;
  out.name = f.name;
  out.type = f.type;
  out.offset = f.offset;
  out.size = f.size;
  out.is_signed = f.is_signed;
  out.is_dynamic = f.dynamic;
  if (f.array) {
    const std::size_t open = f.type.rfind('[');
    if (open != std::string::npos) {
      const std::string_view len =
          std::string_view(f.type).substr(open + 1, f.type.size() - open - 2);
      std::uint32_t n = 0;
      const auto r = std::from_chars(len.data(), len.data() + len.size(), n);
      out.array_len = r.ec == std::errc() && n > 0 ? n : 1;  // [MACRO]: length unknown
      out.type = f.type.substr(0, open);
      while (!out.type.empty() && out.type.back() == ' ') out.type.pop_back();
    }
  }
  return out;
}

event::TracepointField to_internal(const TraceField& f) {
  event::TracepointField out;
  out.offset = f.offset;
  out.size = f.size;
  out.is_signed = f.is_signed;
  out.dynamic = f.is_dynamic;
  out.array = f.array_len > 0;
  if (f.is_dynamic) out.type = f.type;  // __data_loc / __rel_loc decide the offset base
  return out;
}

// "char", "__data_loc char[]", "const char", "unsigned char", "u8".
bool is_char_type(std::string_view type) {
  for (std::string_view prefix : {"__data_loc ", "__rel_loc "})
    if (type.starts_with(prefix)) type.remove_prefix(prefix.size());
  if (type.ends_with("[]")) type.remove_suffix(2);
  return type == "char" || type == "const char" || type == "unsigned char" || type == "u8";
}

std::string quoted(std::string_view bytes) {
  std::string out = "\"";
  for (char c : bytes) {
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

bool fits(std::span<const std::byte> raw, const TraceField& f) {
  return f.offset <= raw.size() && raw.size() - f.offset >= f.size;
}

}  // namespace

const TraceField* TraceFormat::field(std::string_view field_name) const noexcept {
  for (const auto& f : fields)
    if (f.name == field_name) return &f;
  return nullptr;
}

Result<TraceFormat> parse_trace_format(std::string_view text) {
  auto parsed = event::parse_tracepoint_format(text);
  if (!parsed) return tl::unexpected(parsed.error());
  TraceFormat out;
  out.name = parsed->name;
  out.id = parsed->id;
  for (const auto& f : parsed->fields) out.fields.push_back(to_public(f));
  return out;
}

std::optional<std::uint64_t> read_trace_field(std::span<const std::byte> raw,
                                              const TraceField& f) noexcept {
  const auto v = event::read_int_field(to_internal(f), raw);
  if (!v) return std::nullopt;
  return static_cast<std::uint64_t>(*v);
}

std::string format_trace_fields(std::span<const std::byte> raw, const TraceFormat& format) {
  std::string out;
  for (const auto& f : format.fields) {
    if (f.name.starts_with("common_")) continue;
    if (!out.empty()) out += ", ";
    out += f.name;
    out += ": ";
    if (f.is_dynamic || f.array_len > 0) {
      if (!fits(raw, f)) {
        out += "?";
      } else if (is_char_type(f.type)) {
        if (f.is_dynamic) {
          // A __data_loc word pointing outside the payload reads as no string at all.
          const auto loc = read_trace_field(raw, TraceField{"", "", f.offset, 4, false, 0, false});
          const std::uint32_t off = loc ? static_cast<std::uint32_t>(*loc & 0xffffu) : 0;
          const std::uint32_t len = loc ? static_cast<std::uint32_t>(*loc >> 16) : 0;
          if (!loc || off > raw.size() || raw.size() - off < len) {
            out += "?";
            continue;
          }
        }
        out += quoted(event::read_string_field(to_internal(f), raw));
      } else if (f.is_dynamic) {
        out += fmt::format("[{} bytes]", f.size);
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
    } else if (f.type.find('*') != std::string::npos || f.name.ends_with("ip") ||
               f.name.ends_with("addr")) {
      out += fmt::format("{:#x}", *v);  // pointers, __probe_ip, call_site-like addresses
    } else if (f.is_signed) {
      out += fmt::format("{}", static_cast<std::int64_t>(*v));
    } else {
      out += fmt::format("{}", *v);
    }
  }
  return out;
}

}  // namespace perfx
