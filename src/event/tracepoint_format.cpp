// Tracepoint format files and perf's tracing data (see tracepoint_format.hpp).

#include "event/tracepoint_format.hpp"

#include <charconv>
#include <cstring>

#include "core/byte_reader.hpp"
#include "core/error_format.hpp"

namespace perfx::event {
namespace {

std::string_view trim(std::string_view s) {
  while (!s.empty() && (s.front() == ' ' || s.front() == '\t')) s.remove_prefix(1);
  while (!s.empty() && (s.back() == ' ' || s.back() == '\t' || s.back() == '\r')) {
    s.remove_suffix(1);
  }
  return s;
}

template <typename T>
bool parse_num(std::string_view s, T* out) {
  s = trim(s);
  auto [ptr, ec] = std::from_chars(s.data(), s.data() + s.size(), *out);
  return ec == std::errc() && ptr == s.data() + s.size();
}

// "\tfield:TYPE NAME;\toffset:N;\tsize:N;\tsigned:N;"
std::optional<TracepointField> parse_field_line(std::string_view line) {
  TracepointField f;
  bool have_offset = false, have_size = false;
  while (!line.empty()) {
    const auto semi = line.find(';');
    std::string_view part = trim(line.substr(0, semi));
    line = semi == std::string_view::npos ? std::string_view{} : line.substr(semi + 1);
    const auto colon = part.find(':');
    if (colon == std::string_view::npos) continue;
    const std::string_view key = trim(part.substr(0, colon));
    const std::string_view value = trim(part.substr(colon + 1));
    if (key == "field") {
      // The name is the last word of the declaration, with an optional [N] suffix
      // ("char prev_comm[16]"); "__data_loc char[] name" has its brackets in the type.
      const auto sp = value.find_last_of(" \t*");
      if (sp == std::string_view::npos) return std::nullopt;
      std::string_view name = value.substr(sp + 1);
      std::string suffix;
      if (const auto br = name.find('['); br != std::string_view::npos) {
        suffix = std::string(name.substr(br));
        name = name.substr(0, br);
        f.array = true;
      }
      f.name = std::string(name);
      f.type = std::string(trim(value.substr(0, sp + 1))) + suffix;
      f.dynamic = f.type.starts_with("__data_loc") || f.type.starts_with("__rel_loc");
      if (f.dynamic) f.array = false;
    } else if (key == "offset") {
      have_offset = parse_num(value, &f.offset);
    } else if (key == "size") {
      have_size = parse_num(value, &f.size);
    } else if (key == "signed") {
      unsigned s = 0;
      if (parse_num(value, &s)) f.is_signed = s != 0;
    }
  }
  if (f.name.empty() || !have_offset || !have_size) return std::nullopt;
  return f;
}

}  // namespace

const TracepointField* TracepointFormat::field(std::string_view wanted) const noexcept {
  for (const auto& f : fields) {
    if (f.name == wanted) return &f;
  }
  return nullptr;
}

Result<TracepointFormat> parse_tracepoint_format(std::string_view text, std::string_view system) {
  TracepointFormat out;
  out.system = std::string(system);
  bool have_id = false;
  while (!text.empty()) {
    const auto nl = text.find('\n');
    const std::string_view line = text.substr(0, nl);
    text = nl == std::string_view::npos ? std::string_view{} : text.substr(nl + 1);
    const std::string_view t = trim(line);
    if (t.starts_with("name:")) {
      out.name = std::string(trim(t.substr(5)));
    } else if (t.starts_with("ID:")) {
      have_id = parse_num(t.substr(3), &out.id);
    } else if (t.starts_with("field:")) {
      if (auto f = parse_field_line(t)) out.fields.push_back(std::move(*f));
    } else if (t.starts_with("print fmt:")) {
      out.print_fmt = std::string(trim(t.substr(10)));
    }
  }
  if (out.name.empty() || !have_id || out.fields.empty()) {
    return fail(Errc::kMalformedData, "tracepoint format '{}': missing {}", out.name,
                out.name.empty() ? "name" : (!have_id ? "ID" : "fields"));
  }
  return out;
}

Result<std::vector<TracepointFormat>> parse_tracing_data(std::span<const std::byte> data) {
  core::ByteReader r(data);
  const auto bad = [&](std::string_view what) {
    return fail(Errc::kMalformedData, "tracing data: {} at offset {:#x}", what, r.offset());
  };
  const auto magic = r.take(10);
  static constexpr unsigned char kMagic[10] = {23, 8, 68, 't', 'r', 'a', 'c', 'i', 'n', 'g'};
  if (!r.ok() || std::memcmp(magic.data(), kMagic, sizeof kMagic) != 0) return bad("bad magic");
  // Version: a NUL-terminated string.
  const auto* chars = reinterpret_cast<const char*>(data.data());
  const std::size_t vstart = r.offset();
  const void* nul = std::memchr(chars + vstart, '\0', data.size() - vstart);
  if (nul == nullptr) return bad("no version");
  const std::string_view version(
      chars + vstart, static_cast<std::size_t>(static_cast<const char*>(nul) - (chars + vstart)));
  r.skip(version.size() + 1);
  const bool big_endian = r.u8() != 0;
  r = core::ByteReader(data.subspan(r.offset()),
                       big_endian != (std::endian::native == std::endian::big));
  (void)r.u8();   // sizeof(long)
  (void)r.u32();  // page size
  const auto cstr = [&]() -> std::string_view {
    const auto rest = r.bytes().subspan(r.offset());
    const auto* p = reinterpret_cast<const char*>(rest.data());
    const void* z = std::memchr(p, '\0', rest.size());
    if (z == nullptr) {
      r.fail();
      return {};
    }
    const std::string_view s(p, static_cast<std::size_t>(static_cast<const char*>(z) - p));
    r.skip(s.size() + 1);
    return s;
  };
  for (const char* section : {"header_page", "header_event"}) {
    if (cstr() != section) return bad(std::string("expected ") + section);
    r.skip(static_cast<std::size_t>(std::min<std::uint64_t>(r.u64(), r.remaining() + 1)));
  }
  std::vector<TracepointFormat> out;
  const auto read_formats = [&](std::string_view sys) {
    const std::uint32_t n = r.u32();
    for (std::uint32_t i = 0; i < n && r.ok(); ++i) {
      const std::uint64_t size = r.u64();
      if (size > r.remaining()) {
        r.fail();
        return;
      }
      const auto bytes = r.take(static_cast<std::size_t>(size));
      const std::string_view text(reinterpret_cast<const char*>(bytes.data()), bytes.size());
      if (auto f = parse_tracepoint_format(text, sys)) out.push_back(std::move(*f));
    }
  };
  read_formats("ftrace");
  if (!r.ok()) return bad("truncated ftrace formats");
  const std::uint32_t systems = r.u32();
  for (std::uint32_t s = 0; s < systems && r.ok(); ++s) {
    const std::string sys(cstr());
    if (!r.ok()) break;
    read_formats(sys);
  }
  if (!r.ok()) return bad("truncated event formats");
  return out;  // kallsyms, printk formats and saved cmdlines follow: not needed here
}

std::optional<std::int64_t> read_int_field(const TracepointField& f, std::span<const std::byte> raw,
                                           bool swap) noexcept {
  if (f.offset > raw.size() || f.size > raw.size() - f.offset) return std::nullopt;
  core::ByteReader r(raw.subspan(f.offset, f.size), swap);
  switch (f.size) {
    case 1: {
      const auto v = r.u8();
      return f.is_signed ? std::int64_t{static_cast<std::int8_t>(v)} : std::int64_t{v};
    }
    case 2: {
      const auto v = r.u16();
      return f.is_signed ? std::int64_t{static_cast<std::int16_t>(v)} : std::int64_t{v};
    }
    case 4: {
      const auto v = r.u32();
      return f.is_signed ? std::int64_t{static_cast<std::int32_t>(v)} : std::int64_t{v};
    }
    case 8:
      return static_cast<std::int64_t>(r.u64());
    default:
      return std::nullopt;
  }
}

std::string_view read_string_field(const TracepointField& f, std::span<const std::byte> raw,
                                   bool swap) noexcept {
  std::uint32_t off = f.offset, len = f.size;
  if (f.dynamic) {
    TracepointField loc_field;
    loc_field.offset = f.offset;
    loc_field.size = 4;
    const auto loc = read_int_field(loc_field, raw, swap);
    if (!loc) return {};
    const auto v = static_cast<std::uint32_t>(*loc);
    off = v & 0xffffu;
    len = v >> 16;
    if (f.type.starts_with("__rel_loc")) off += f.offset + f.size;
  }
  if (off > raw.size() || len > raw.size() - off) return {};
  const auto* p = reinterpret_cast<const char*>(raw.data()) + off;
  const void* z = std::memchr(p, '\0', len);
  return {p, z == nullptr ? len : static_cast<std::size_t>(static_cast<const char*>(z) - p)};
}

}  // namespace perfx::event
