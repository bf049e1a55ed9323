#include "symbol/srcline_cache.hpp"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cstring>

#include "core/fd_io.hpp"
#include "symbol/cache_dir.hpp"
#include "symbol/file_text.hpp"

namespace perfx::symbol {
namespace {

// The file format and the meaning of its answers: change the digit when the format or
// Dso::Impl::lookup_srcline()'s answers change, so that older files are replaced.
constexpr std::string_view kMagic = "PERFXSL1";
constexpr std::uint32_t kHasLine = 1u << 31;
constexpr std::size_t kMaxName = 0xffff;
constexpr std::size_t kRecordHead = 8 + 4 + 4;
constexpr off_t kMaxFileSize = off_t{64} << 20;

template <typename T>
T get(std::string_view bytes, std::size_t at) {
  T v{};
  std::memcpy(&v, bytes.data() + at, sizeof v);
  return v;
}

template <typename T>
void put(std::string& out, T v) {
  out.append(reinterpret_cast<const char*>(&v), sizeof v);
}

void put_record(std::string& out, std::uint64_t addr,
                const std::optional<std::pair<std::string, std::uint32_t>>& line) {
  put(out, addr);
  if (!line || line->first.size() > kMaxName) {  // an absurd name is not kept
    put(out, std::uint32_t{0});
    put(out, std::uint32_t{0});
    return;
  }
  put(out, line->second);
  put(out, kHasLine | static_cast<std::uint32_t>(line->first.size()));
  out += line->first;
}

std::string header(std::string_view identity) {
  std::string out(kMagic);
  put(out, static_cast<std::uint32_t>(identity.size()));
  out += identity;
  return out;
}

}  // namespace

std::string srcline_cache_path(const std::string& build_id) {
  return cache_file_path("srclines", build_id);
}

SrclineCacheState load_srcline_cache(const std::string& path, std::string_view identity,
                                     SrclineMemo& memo) {
  if (path.empty()) return SrclineCacheState::kAbsent;
  auto file = FileText::open(path);
  if (!file) return SrclineCacheState::kAbsent;
  const std::string_view bytes = file->text();
  const std::string head = header(identity);
  if (bytes.substr(0, head.size()) != head) return SrclineCacheState::kStale;
  std::size_t at = head.size();
  while (at < bytes.size()) {
    if (bytes.size() - at < kRecordHead) return SrclineCacheState::kStale;
    const auto addr = get<std::uint64_t>(bytes, at);
    const auto line = get<std::uint32_t>(bytes, at + 8);
    const auto flags = get<std::uint32_t>(bytes, at + 12);
    const std::size_t name = flags & kMaxName;
    at += kRecordHead;
    if ((flags & ~(kHasLine | kMaxName)) != 0 || bytes.size() - at < name)
      return SrclineCacheState::kStale;
    if (flags & kHasLine)
      memo.try_emplace(addr, std::pair{std::string(bytes.substr(at, name)), line});
    else
      memo.try_emplace(addr, std::nullopt);
    at += name;
  }
  return SrclineCacheState::kValid;
}

void store_srcline_cache(const std::string& path, std::string_view identity,
                         SrclineCacheState state, const SrclineMemo& memo,
                         std::span<const std::uint64_t> added) {
  if (path.empty() || added.empty()) return;
  std::string bytes;
  if (state == SrclineCacheState::kValid) {
    const int fd = ::open(path.c_str(), O_RDWR | O_APPEND | O_CLOEXEC);
    if (fd < 0) return;
    // Another run may have replaced the file since it was read (a debug package
    // installed meanwhile): append only under the same identity.
    const std::string head = header(identity);
    std::string now(head.size(), '\0');
    struct stat st {};
    if (::pread(fd, now.data(), now.size(), 0) == static_cast<ssize_t>(now.size()) && now == head &&
        ::fstat(fd, &st) == 0 && st.st_size < kMaxFileSize) {
      for (std::uint64_t addr : added)
        if (auto it = memo.find(addr); it != memo.end()) put_record(bytes, addr, it->second);
      (void)core::write_fully(fd, bytes.data(), bytes.size());  // one write: appends do not mix
    }
    ::close(fd);
    return;
  }
  bytes = header(identity);
  for (const auto& [addr, line] : memo) put_record(bytes, addr, line);
  replace_cache_file(path,
                     [&](int fd) { return core::write_fully(fd, bytes.data(), bytes.size()); });
}

}  // namespace perfx::symbol
