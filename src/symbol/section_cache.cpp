#include "symbol/section_cache.hpp"

#include <unistd.h>

#include <string_view>

#include <fmt/format.h>

#include "core/byte_reader.hpp"
#include "core/fd_io.hpp"
#include "symbol/cache_dir.hpp"

namespace perfx::symbol {
namespace {

constexpr std::string_view kMagic = "PERFXDS2";
constexpr std::string_view kMagicFamily = "PERFXDS";  // older formats: replaced quietly
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
  const int fd = open_cache_file(path);
  if (fd < 0) return std::nullopt;
  auto file = FileText::from_fd(fd);
  ::close(fd);
  if (!file) return std::nullopt;
  auto ignore = [&path](std::string_view why) -> std::optional<FileText> {
    if (!why.empty()) cache_warning(fmt::format("cache file '{}' {}: ignored", path, why));
    return std::nullopt;
  };
  const std::string_view bytes = file->text();
  if (!bytes.starts_with(kMagic))
    return ignore(bytes.starts_with(kMagicFamily) ? "" : "is not a debug-section cache");
  core::ByteReader r(std::as_bytes(std::span(bytes)));
  (void)r.take(kMagic.size());
  const auto id = r.take(r.u32());
  const std::uint64_t count = r.u64();
  if (!r.ok()) return ignore("is damaged (its header is cut short)");
  const std::string_view stored(reinterpret_cast<const char*>(id.data()), id.size());
  if (stored != cache_file_name(path)) {
    return ignore(
        fmt::format("holds build-id '{}', not '{}'", stored.substr(0, 40), cache_file_name(path)));
  }
  if (count != want.size()) return ignore("does not list the debug file's compressed sections");
  const std::size_t entries_end = r.offset() + want.size() * kEntryWords * 8;
  std::vector<const char*> data;
  for (const CachedSection& s : want) {
    const std::uint64_t index = r.u64();
    const std::uint64_t in_size = r.u64();
    const std::uint64_t out_size = r.u64();
    const std::uint64_t offset = r.u64();
    if (!r.ok()) return ignore("is damaged (its entries are cut short)");
    if (index != s.index || in_size != s.in_size || out_size != s.out_size)
      return ignore("does not list the debug file's compressed sections");
    if (offset < entries_end || offset > bytes.size() || bytes.size() - offset < out_size)
      return ignore("is damaged (a section's size or offset lies past the file's end)");
    data.push_back(bytes.data() + offset);
  }
  for (std::size_t i = 0; i < want.size(); ++i) want[i].data = data[i];
  return file;
}

void store_section_cache(const std::string& path, std::span<const CachedSection> sections) {
  if (path.empty()) return;
  // Header and entries, then each section at its aligned offset.
  std::string head(kMagic);
  const std::string_view build_id = cache_file_name(path);
  append_value(head, static_cast<std::uint32_t>(build_id.size()));
  head += build_id;
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
