#include "symbol/section_cache.hpp"

#include <cstring>
#include <string_view>

#include "core/fd_io.hpp"
#include "symbol/cache_dir.hpp"

namespace perfx::symbol {
namespace {

constexpr std::string_view kMagic = "PERFXDS1";
constexpr std::size_t kAlign = 64;
constexpr std::size_t kEntryWords = 4;  // index, compressed size, size, offset

std::size_t aligned(std::size_t n) { return (n + kAlign - 1) / kAlign * kAlign; }

std::uint64_t word(std::string_view bytes, std::size_t at) {
  std::uint64_t v = 0;
  std::memcpy(&v, bytes.data() + at, sizeof v);
  return v;
}

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
  const std::size_t head = kMagic.size() + sizeof(std::uint64_t);
  if (bytes.size() < head || bytes.substr(0, kMagic.size()) != kMagic) return std::nullopt;
  const std::uint64_t count = word(bytes, kMagic.size());
  if (count != want.size() || (bytes.size() - head) / (kEntryWords * 8) < count)
    return std::nullopt;
  for (std::size_t i = 0; i < want.size(); ++i) {
    const std::size_t at = head + i * kEntryWords * 8;
    const std::uint64_t offset = word(bytes, at + 24);
    CachedSection& s = want[i];
    if (word(bytes, at) != s.index || word(bytes, at + 8) != s.in_size ||
        word(bytes, at + 16) != s.out_size || offset > bytes.size() ||
        bytes.size() - offset < s.out_size)
      return std::nullopt;
    s.data = bytes.data() + offset;
  }
  return file;
}

void store_section_cache(const std::string& path, std::span<const CachedSection> sections) {
  if (path.empty()) return;
  // Header and entries, then each section at its aligned offset.
  std::string head(kMagic);
  auto put = [&head](std::uint64_t v) { head.append(reinterpret_cast<const char*>(&v), sizeof v); };
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
