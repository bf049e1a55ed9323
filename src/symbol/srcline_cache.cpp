#include "symbol/srcline_cache.hpp"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <cstdint>
#include <cstring>
#include <span>

#include <fmt/format.h>

#include "core/byte_reader.hpp"
#include "core/fd_io.hpp"
#include "symbol/cache_dir.hpp"

namespace perfx::symbol {
namespace {

// The file format and the meaning of its answers: change the digit when the format or
// Dso::Impl::lookup_srcline()'s answers change, so that older files are replaced.
constexpr std::string_view kMagic = "PERFXSL4";
constexpr std::string_view kMagicFamily = "PERFXSL";  // older formats: replaced quietly
constexpr std::uint32_t kHasLine = 1u << 31;
constexpr std::size_t kMaxName = 0xffff;
constexpr std::size_t kEntrySize = 16;
constexpr off_t kMaxFileSize = off_t{64} << 20;

// Appended records a file may hold before it is rewritten sorted.
std::size_t appended_limit(std::size_t entries) { return 128 + entries / 16; }

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

// The file's name is its build-id (cache_file_path()); the file says it again, so that a
// file copied or renamed under another build-id is not believed.
std::string header(std::string_view build_id, std::string_view identity) {
  std::string out(kMagic);
  append_value(out, static_cast<std::uint32_t>(build_id.size()));
  out += build_id;
  append_value(out, static_cast<std::uint32_t>(identity.size()));
  out += identity;
  return out;
}

// A whole file: the header, then every answer of `memo` as sorted entries and names.
std::string sorted_file(std::string_view build_id, std::string_view identity,
                        const SrclineMemo& memo) {
  std::vector<std::uint64_t> addrs;
  addrs.reserve(memo.size());
  for (const auto& [addr, line] : memo) addrs.push_back(addr);
  std::sort(addrs.begin(), addrs.end());
  std::string names;
  std::unordered_map<std::string_view, std::uint32_t> name_at;
  std::string entries;
  entries.reserve(addrs.size() * kEntrySize);
  for (std::uint64_t addr : addrs) {
    const SrclineAnswer& line = memo.at(addr);
    std::uint32_t name = 0;
    if (line && line->first.size() <= kMaxName && names.size() < kHasLine - kMaxName - 2) {
      auto [at, added] = name_at.try_emplace(line->first, static_cast<std::uint32_t>(names.size()));
      if (added) {
        append_value(names, static_cast<std::uint16_t>(line->first.size()));
        names += line->first;
      }
      name = kHasLine | at->second;
    }
    append_value(entries, addr);
    append_value(entries, name != 0 ? line->second : std::uint32_t{0});
    append_value(entries, name);
  }
  std::string out = header(build_id, identity);
  append_value(out, static_cast<std::uint32_t>(addrs.size()));
  append_value(out, static_cast<std::uint32_t>(names.size()));
  return out + entries + names;
}

SrclineAnswer make_answer(std::span<const std::byte> name, std::uint32_t line) {
  return SrclineAnswer{
      std::pair{std::string(reinterpret_cast<const char*>(name.data()), name.size()), line}};
}

}  // namespace

std::string srcline_cache_path(const std::string& build_id) {
  return cache_file_path("srclines", build_id);
}

SrclineCache SrclineCache::load(const std::string& path, std::string_view identity) {
  SrclineCache cache;
  if (path.empty()) return cache;
  bool refused = false;
  const int fd = open_cache_file(path, &refused);
  if (fd >= 0) {
    cache.file_ = FileText::from_fd(fd);
    ::close(fd);
  }
  if (refused) cache.state_ = SrclineCacheState::kStale;
  if (!cache.file_) return cache;
  cache.state_ = SrclineCacheState::kStale;
  auto stale = [&cache, &path](std::string_view why) {
    if (!why.empty()) cache_warning(fmt::format("cache file '{}' {}: ignored", path, why));
    cache.file_.reset();
    cache.entries_ = 0;
    cache.appended_.clear();
    return std::move(cache);
  };
  const std::string_view bytes = cache.file_->text();
  if (bytes.substr(0, kMagic.size()) != kMagic) {
    // An older format is replaced without a word; anything else is not a cache of ours.
    return stale(bytes.starts_with(kMagicFamily) ? "" : "is not a source-line cache");
  }
  if (bytes.size() > std::size_t{UINT32_MAX}) return stale("is too large");
  core::ByteReader r(std::as_bytes(std::span(bytes)));
  (void)r.take(kMagic.size());
  const auto stored_id = r.take(r.u32());
  const auto build_id = cache_file_name(path);
  if (!r.ok()) return stale("is damaged (its header is cut short)");
  if (std::string_view(reinterpret_cast<const char*>(stored_id.data()), stored_id.size()) !=
      build_id) {
    return stale(fmt::format("holds build-id '{}', not '{}'",
                             std::string_view(reinterpret_cast<const char*>(stored_id.data()),
                                              std::min<std::size_t>(stored_id.size(), 40)),
                             build_id));
  }
  const auto stored_identity = r.take(r.u32());
  if (!r.ok()) return stale("is damaged (its header is cut short)");
  // Another identity: the debug file changed since (a package installed). Rewritten.
  if (std::string_view(reinterpret_cast<const char*>(stored_identity.data()),
                       stored_identity.size()) != identity)
    return stale("");
  const std::uint32_t count = r.u32();
  const std::uint32_t names_size = r.u32();
  cache.entries_at_ = r.offset();
  const auto table = r.take_array(count, kEntrySize);
  cache.names_at_ = r.offset();
  (void)r.take(names_size);
  if (!r.ok()) return stale("is damaged (its sizes say more than the file holds)");
  // Ascending addresses (what find() relies on) and names inside the names.
  core::ByteReader t(table);
  std::uint64_t last = 0;
  for (std::uint32_t i = 0; i < count; ++i) {
    const auto addr = t.u64();
    (void)t.u32();
    const auto name = t.u32();
    if ((i > 0 && addr <= last) || (name != 0 && (name & ~kHasLine) >= names_size))
      return stale("is damaged (entries out of order or outside the names)");
    last = addr;
  }
  cache.entries_ = count;
  cache.names_size_ = names_size;
  // The appended records: a few, indexed. At most one per 16 bytes.
  cache.appended_.reserve(r.remaining() / 16);
  while (!r.at_end()) {
    const auto at = static_cast<std::uint32_t>(r.offset());
    const auto addr = r.u64();
    (void)r.u32();
    const auto flags = r.u32();
    (void)r.take(flags & kMaxName);
    if (!r.ok() || (flags & ~(kHasLine | kMaxName)) != 0)
      return stale("is damaged (an appended record is cut short or malformed)");
    cache.appended_.emplace_back(addr, at);
  }
  std::stable_sort(cache.appended_.begin(), cache.appended_.end(),
                   [](const auto& a, const auto& b) { return a.first < b.first; });
  cache.state_ = SrclineCacheState::kValid;
  return cache;
}

SrclineAnswer SrclineCache::entry_answer(std::size_t i) const {
  const std::string_view bytes = file_->text();
  core::ByteReader r(std::as_bytes(std::span(bytes.substr(entries_at_ + i * kEntrySize))));
  (void)r.u64();
  const auto line = r.u32();
  const auto name = r.u32();
  if (name == 0) return SrclineAnswer{};
  // The name's offset was checked by load(); its length is checked here.
  core::ByteReader n(
      std::as_bytes(std::span(bytes.substr(names_at_, names_size_).substr(name & ~kHasLine))));
  const auto text = n.take(n.u16());
  if (!n.ok()) return SrclineAnswer{};
  return make_answer(text, line);
}

SrclineAnswer SrclineCache::record_answer(std::uint32_t offset) const {
  core::ByteReader r(std::as_bytes(std::span(file_->text().substr(offset))));
  (void)r.u64();
  const auto line = r.u32();
  const auto flags = r.u32();
  const auto name = r.take(flags & kMaxName);  // checked by load()
  if ((flags & kHasLine) == 0) return SrclineAnswer{};
  return make_answer(name, line);
}

std::uint64_t SrclineCache::entry_address(std::size_t i) const {
  std::uint64_t a = 0;  // read through memcpy: the mapped entries are not aligned
  std::memcpy(&a, file_->text().data() + entries_at_ + i * kEntrySize, sizeof a);
  return a;
}

std::optional<SrclineAnswer> SrclineCache::find(std::uint64_t addr) const {
  // A binary search over the mapped entries (std::ranges over an iota view would say it
  // shorter, but clang 14 rejects libstdc++ 12's ranges).
  std::size_t lo = 0;
  std::size_t hi = entries_;
  while (lo < hi) {
    const std::size_t mid = lo + (hi - lo) / 2;
    if (entry_address(mid) < addr) {
      lo = mid + 1;
    } else {
      hi = mid;
    }
  }
  if (lo < entries_ && entry_address(lo) == addr) return entry_answer(lo);
  const auto it = std::lower_bound(appended_.begin(), appended_.end(), addr,
                                   [](const auto& e, std::uint64_t a) { return e.first < a; });
  if (it == appended_.end() || it->first != addr) return std::nullopt;
  return record_answer(it->second);
}

SrclineMemo SrclineCache::all() const {
  SrclineMemo out;
  out.reserve(size());
  for (std::size_t i = 0; i < entries_; ++i) out.try_emplace(entry_address(i), entry_answer(i));
  for (const auto& [addr, offset] : appended_)
    if (!out.contains(addr)) out.try_emplace(addr, record_answer(offset));
  return out;
}

void store_srcline_cache(const std::string& path, std::string_view identity,
                         const SrclineCache& loaded, const SrclineMemo& memo,
                         std::span<const std::uint64_t> added) {
  if (path.empty() || added.empty()) return;
  const bool valid = loaded.state() == SrclineCacheState::kValid;
  if (valid && loaded.appended() + added.size() <= appended_limit(loaded.size())) {
    const int fd = open_cache_file_for_append(path);
    if (fd < 0) return;
    // Another run may have replaced the file since it was read (a debug package
    // installed meanwhile): append only under the same identity.
    const std::string head = header(cache_file_name(path), identity);
    std::string now(head.size(), '\0');
    struct stat st {};
    if (::pread(fd, now.data(), now.size(), 0) == static_cast<ssize_t>(now.size()) && now == head &&
        ::fstat(fd, &st) == 0 && st.st_size < kMaxFileSize) {
      std::string bytes;
      for (std::uint64_t addr : added)
        if (auto it = memo.find(addr); it != memo.end()) put_record(bytes, addr, it->second);
      (void)core::write_fully(fd, bytes.data(), bytes.size());  // one write: appends do not mix
    }
    ::close(fd);
    return;
  }
  std::string bytes;
  if (valid) {
    // The earlier answers first (they hold over this run's for the same address).
    SrclineMemo merged = loaded.all();
    for (std::uint64_t addr : added)
      if (auto it = memo.find(addr); it != memo.end()) merged.try_emplace(addr, it->second);
    bytes = sorted_file(cache_file_name(path), identity, merged);
  } else {
    bytes = sorted_file(cache_file_name(path), identity, memo);
  }
  if (bytes.size() >= static_cast<std::size_t>(kMaxFileSize)) return;
  replace_cache_file(path,
                     [&](int fd) { return core::write_fully(fd, bytes.data(), bytes.size()); });
}

}  // namespace perfx::symbol
