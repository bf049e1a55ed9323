#pragma once
/// \file
/// An on-disk cache of source lines by address, one file per build-id.
///
/// A report with source lines (pprof and json exports, --sort srcline) reads DWARF: for
/// libc6-dbg, libdw indexes 2000 compilation units (dwarf_getaranges, ~15 ms) and parses
/// the line tables of the units the profile touches, on every run, for a few hundred
/// addresses. The answers are kept here by build-id; a later report of the same
/// binaries finds its addresses in this file and opens the DWARF only for new ones.
///
/// File layout (host byte order; a cache is not carried between machines):
///   "PERFXSL4", u32 build-id length, build-id (the file's name), u32 identity length,
///   identity bytes,
///   u32 entry count, u32 names size,
///   entries: {u64 address, u32 line, u32 name}, addresses strictly ascending, where name
///     is bit 31 ("the address has a line") | the offset of its file name in the names,
///     or 0 for an address without a line,
///   names: {u16 length, bytes} each file name once,
///   then appended records {u64 address, u32 line, u32 flags_and_length, file name bytes},
///   where bit 31 of flags_and_length says the address has a line and the low 16 bits
///   are the length of the file name.
/// The sorted entries are searched where they are mapped: loading checks their order and
/// parses only the appended records. The identity names the file the DWARF came from
/// (path, size, modification time): installing a debug package gives a new identity, and
/// a file whose identity differs is rewritten. Later runs append their new answers (one
/// write(2) with O_APPEND each) until the appended records outgrow a sixteenth of the
/// entries; then the file is rewritten sorted. A damaged file, one that names another
/// build-id, and one that is not the user's (cache_dir.hpp) are ignored with a warning
/// (take_cache_warnings()) and rewritten.

#include <cstdint>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <unordered_map>
#include <utility>
#include <vector>

#include "symbol/file_text.hpp"

namespace perfx::symbol {

/// The source file and line of an address (nullopt: the address has none).
using SrclineAnswer = std::optional<std::pair<std::string, std::uint32_t>>;

/// Answers by address.
using SrclineMemo = std::unordered_map<std::uint64_t, SrclineAnswer>;

/// Where the cache file of `build_id` lives (cache_file_path(), kind "srclines").
[[nodiscard]] std::string srcline_cache_path(const std::string& build_id);

/// What SrclineCache::load() found.
enum class SrclineCacheState {
  kAbsent,  ///< no file (or no cache path): store_srcline_cache() writes a new one
  kValid,   ///< read whole, same identity: new records can be appended
  kStale,   ///< another identity or damaged: store_srcline_cache() replaces it
};

/// The answers of one cache file, found by address. The file stays mapped and is searched
/// where it lies: libc's file holds every address any earlier run asked for (tens of
/// thousands), a run asks for a few hundred of them, and making a string of each record
/// (or even an index of them) cost more than the lookups. Move-only.
class SrclineCache {
 public:
  /// Indexes the file at `path` when it has `identity` (kValid); an empty cache otherwise.
  [[nodiscard]] static SrclineCache load(const std::string& path, std::string_view identity);

  [[nodiscard]] SrclineCacheState state() const noexcept { return state_; }
  /// Answers in the file: sorted entries and appended records (an address appended by two
  /// runs counts twice).
  [[nodiscard]] std::size_t size() const noexcept { return entries_ + appended_.size(); }
  /// Appended records: what the next load parses.
  [[nodiscard]] std::size_t appended() const noexcept { return appended_.size(); }
  /// The answer kept for `addr` (the first, if a concurrent run appended it twice), or
  /// nullopt when the file has none.
  [[nodiscard]] std::optional<SrclineAnswer> find(std::uint64_t addr) const;
  /// Every answer (the first of each address), for rewriting the file.
  [[nodiscard]] SrclineMemo all() const;

 private:
  [[nodiscard]] std::uint64_t entry_address(std::size_t i) const;
  [[nodiscard]] SrclineAnswer entry_answer(std::size_t i) const;
  [[nodiscard]] SrclineAnswer record_answer(std::uint32_t offset) const;

  std::optional<FileText> file_;
  std::size_t entries_ = 0;     // sorted entries
  std::size_t entries_at_ = 0;  // their offset in the file
  std::size_t names_at_ = 0;    // the names' offset
  std::size_t names_size_ = 0;
  std::vector<std::pair<std::uint64_t, std::uint32_t>> appended_;  // {address, record offset}
  SrclineCacheState state_ = SrclineCacheState::kAbsent;
};

/// Saves the answers for `added` (addresses in `memo`) after `loaded` (what
/// SrclineCache::load() read from `path` before): appended to a kValid file (unless it has
/// been replaced under another identity since), or the file rewritten sorted with
/// `loaded`'s answers and `memo`'s when the appended records would outgrow a sixteenth of
/// the entries (128 at least); else a new file with `identity` and every answer of `memo`.
/// New files go through a temporary file renamed into place. A file past 64 MiB is left
/// as it is. Failures are ignored.
void store_srcline_cache(const std::string& path, std::string_view identity,
                         const SrclineCache& loaded, const SrclineMemo& memo,
                         std::span<const std::uint64_t> added);

}  // namespace perfx::symbol
