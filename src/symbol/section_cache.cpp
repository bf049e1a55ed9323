#include "symbol/section_cache.hpp"

#include <string_view>

#include "core/byte_reader.hpp"
#include "core/fd_io.hpp"
#include "symbol/cache_dir.hpp"

namespace perfx::symbol {
namespace {

constexpr std::string_view kMagic = "PERFXDS1";
constexpr std::size_t kAlign = 64;
constexpr std::size_t kEntryWords = 4;  // index, compressed size, size, offset

std::size_t aligned(std::size_t n) { return (n + kAlign - 1) / kAlign * kAlign; }

}  // namespace

std::string section_cache_path(const std::string& build_id) {
  return cache_file_path("debug-sections", build_id);
}

std::optional<FileText> load_section_cache(const std::string& path,
                                           std::vector<CachedSection>& want) {
  if (path.empty()) return std::nullopt;
  auto file = FileText::open(path);
  if (!file) return std::nullopt;
  const std::string_view bytes = file->text();
  if (bytes.substr(0, kMagic.size()) != kMagic) return std::nullopt;
  core::ByteReader r(std::as_bytes(std::span(bytes.substr(kMagic.size()))));
  if (r.u64() != want.size() || !r.ok()) return std::nullopt;
  for (CachedSection& s : want) {
    const std::uint64_t index = r.u64();
    const std::uint64_t in_size = r.u64();
    const std::uint64_t out_size = r.u64();
    const std::uint64_t offset = r.u64();
    if (!r.ok() || index != s.index || in_size != s.in_size || out_size != s.out_size ||
        offset > bytes.size() || bytes.size() - offset < s.out_size)
      return std::nullopt;
    s.data = bytes.data() + offset;
  }
  return file;
}

void store_section_cache(const std::string& path, std::span<const CachedSection> sections) {
  if (path.empty()) return;
  // Header and entries, then each section at its aligned offset.
  std::string head(kMagic);
  auto put = [&head](std::uint64_t v) { append_value(head, v); };
  put(sections.size());
  std::size_t offset = aligned(head.size() + sections.size() * kEntryWords * 8);
  for (const CachedSection& s : sections) {
    put(s.index);
    put(s.in_size);
    put(s.out_size);
    put(offset);
    offset = aligned(offset + s.out_size);
  }
  replace_cache_file(path, [&](int fd) {
    static constexpr char kZeros[kAlign] = {};
    bool ok = core::write_fully(fd, head.data(), head.size());
    std::size_t written = head.size();
    for (const CachedSection& s : sections) {
      ok = ok && core::write_fully(fd, kZeros, aligned(written) - written);
      written = aligned(written);
      ok = ok && core::write_fully(fd, s.data, s.out_size);
      written += s.out_size;
    }
    return ok;
  });
}

}  // namespace perfx::symbol
