#include "symbol/srcline_cache.hpp"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <cstdint>
#include <span>

#include "core/byte_reader.hpp"
#include "core/fd_io.hpp"
#include "symbol/cache_dir.hpp"

namespace perfx::symbol {
namespace {

// The file format and the meaning of its answers: change the digit when the format or
// Dso::Impl::lookup_srcline()'s answers change, so that older files are replaced.
constexpr std::string_view kMagic = "PERFXSL1";
constexpr std::uint32_t kHasLine = 1u << 31;
constexpr std::size_t kMaxName = 0xffff;
constexpr off_t kMaxFileSize = off_t{64} << 20;

void put_record(std::string& out, std::uint64_t addr, const SrclineAnswer& line) {
  append_value(out, addr);
  if (!line || line->first.size() > kMaxName) {  // an absurd name is not kept
    append_value(out, std::uint32_t{0});
    append_value(out, std::uint32_t{0});
    return;
  }
  append_value(out, line->second);
  append_value(out, kHasLine | static_cast<std::uint32_t>(line->first.size()));
  out += line->first;
}

std::string header(std::string_view identity) {
  std::string out(kMagic);
  append_value(out, static_cast<std::uint32_t>(identity.size()));
  out += identity;
  return out;
}

}  // namespace

std::string srcline_cache_path(const std::string& build_id) {
  return cache_file_path("srclines", build_id);
}

SrclineCache SrclineCache::load(const std::string& path, std::string_view identity) {
  SrclineCache cache;
  if (path.empty()) return cache;
  cache.file_ = FileText::open(path);
  if (!cache.file_) return cache;
  cache.state_ = SrclineCacheState::kStale;
  const std::string_view bytes = cache.file_->text();
  const std::string head = header(identity);
  if (bytes.substr(0, head.size()) != head || bytes.size() > std::size_t{UINT32_MAX}) {
    cache.file_.reset();
    return cache;
  }
  core::ByteReader r(std::as_bytes(std::span(bytes)));
  (void)r.take(head.size());
  // At most one record per 16 bytes: no regrowth (each a copy into fresh pages); the
  // pages never written are never faulted in.
  cache.index_.reserve((bytes.size() - head.size()) / 16);
  while (!r.at_end()) {
    const auto at = static_cast<std::uint32_t>(r.offset());
    const auto addr = r.u64();
    (void)r.u32();
    const auto flags = r.u32();
    (void)r.take(flags & kMaxName);
    if (!r.ok() || (flags & ~(kHasLine | kMaxName)) != 0) {
      cache.index_.clear();
      cache.file_.reset();
      return cache;
    }
    cache.index_.emplace_back(addr, at);
  }
  std::stable_sort(cache.index_.begin(), cache.index_.end(),
                   [](const auto& a, const auto& b) { return a.first < b.first; });
  cache.state_ = SrclineCacheState::kValid;
  return cache;
}

std::optional<SrclineAnswer> SrclineCache::find(std::uint64_t addr) const {
  const auto it = std::lower_bound(index_.begin(), index_.end(), addr,
                                   [](const auto& e, std::uint64_t a) { return e.first < a; });
  if (it == index_.end() || it->first != addr) return std::nullopt;
  const std::string_view bytes = file_->text();
  core::ByteReader r(std::as_bytes(std::span(bytes.substr(it->second))));
  (void)r.u64();
  const auto line = r.u32();
  const auto flags = r.u32();
  const auto name = r.take(flags & kMaxName);  // checked by load()
  if ((flags & kHasLine) == 0) return SrclineAnswer{};
  return SrclineAnswer{
      std::pair{std::string(reinterpret_cast<const char*>(name.data()), name.size()), line}};
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
