#include "symbol/section_cache.hpp"

#include <fcntl.h>
#include <unistd.h>

#include <cerrno>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <string_view>

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

bool write_fully(int fd, const char* p, std::size_t n) {
  while (n > 0) {
    const ssize_t w = ::write(fd, p, n);
    if (w < 0 && errno == EINTR) continue;
    if (w <= 0) return false;
    p += w;
    n -= static_cast<std::size_t>(w);
  }
  return true;
}

}  // namespace

std::string section_cache_path(const std::string& build_id) {
  // A build-id is hex; anything else (a damaged recording's) must not name a path.
  if (build_id.empty() || build_id.find_first_not_of("0123456789abcdef") != std::string::npos)
    return {};
  std::string dir;
  if (const char* own = std::getenv("PERFX_CACHE_DIR"); own != nullptr) {
    if (*own == '\0') return {};
    dir = own;
  } else if (const char* xdg = std::getenv("XDG_CACHE_HOME"); xdg != nullptr && *xdg != '\0') {
    dir = std::string(xdg) + "/perfx";
  } else if (const char* home = std::getenv("HOME"); home != nullptr && *home != '\0') {
    dir = std::string(home) + "/.cache/perfx";
  } else {
    return {};
  }
  return dir + "/debug-sections/" + build_id;
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
  std::error_code ec;
  std::filesystem::create_directories(std::filesystem::path(path).parent_path(), ec);
  if (ec) return;
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
  const std::string tmp = path + ".tmp." + std::to_string(::getpid());
  const int fd = ::open(tmp.c_str(), O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
  if (fd < 0) return;
  static constexpr char kZeros[kAlign] = {};
  bool ok = write_fully(fd, head.data(), head.size());
  std::size_t written = head.size();
  for (const CachedSection& s : sections) {
    ok = ok && write_fully(fd, kZeros, aligned(written) - written);
    written = aligned(written);
    ok = ok && write_fully(fd, s.data, s.out_size);
    written += s.out_size;
  }
  ok = ::close(fd) == 0 && ok;
  if (!ok || ::rename(tmp.c_str(), path.c_str()) != 0) ::unlink(tmp.c_str());
}

}  // namespace perfx::symbol
