#pragma once
/// \file
/// An on-disk cache of decompressed debug sections, one file per build-id.
///
/// Distributions ship debug files with zlib-compressed sections; inflating libc6-dbg's
/// takes ~20 ms of CPU and 10 MB of fresh memory on every report that wants source lines,
/// however few of its addresses the profile has. The first report stores the inflated
/// sections (like perf's ~/.debug and debuginfod's cache keep files by build-id); later
/// ones map that file, and the page cache shares it between runs.
///
/// File layout (host byte order; a cache is not carried between machines):
///   "PERFXDS2", u32 build-id length, build-id (the file's name), u64 count,
///   count x {u64 section index, u64 compressed size, u64 uncompressed size,
///   u64 file offset}, then the sections' bytes (64-byte aligned).
/// A file whose entries do not match the ELF's compressed sections exactly (a truncated
/// write, a lying size), that names another build-id, or that is not the user's
/// (cache_dir.hpp) is ignored with a warning (take_cache_warnings()) and rewritten: its
/// bytes go to libdw, so nothing in it is believed unchecked.

#include <cstdint>
#include <optional>
#include <span>
#include <string>
#include <vector>

#include "symbol/file_text.hpp"

namespace perfx::symbol {

/// One decompressed section. `data` is filled by load_section_cache() (pointing into its
/// mapping) or given to store_section_cache().
struct CachedSection {
  std::uint64_t index = 0;     ///< ELF section index
  std::uint64_t in_size = 0;   ///< compressed size, header included
  std::uint64_t out_size = 0;  ///< decompressed size
  const char* data = nullptr;
};

/// Where the cache file of `build_id` lives: $PERFX_CACHE_DIR, else
/// $XDG_CACHE_HOME/perfx, else $HOME/.cache/perfx, then "/debug-sections/<build-id>".
/// "" (no cache) without a build-id (or one that is not lower-case hex) or when
/// PERFX_CACHE_DIR is set to "".
[[nodiscard]] std::string section_cache_path(const std::string& build_id);

/// Maps `path` and points want[i].data at its sections when the file names the build-id
/// it is stored under and lists exactly `want`'s sections (same indices and sizes, in
/// order, each inside the file after the entries); nullopt otherwise, with a warning
/// when a file was there but refused or damaged. The returned mapping owns the bytes.
[[nodiscard]] std::optional<FileText> load_section_cache(const std::string& path,
                                                         std::vector<CachedSection>& want);

/// Writes `sections` to `path` through a temporary file renamed into place, so a reader
/// never sees half a file. Failures are ignored: it is only a cache.
void store_section_cache(const std::string& path, std::span<const CachedSection> sections);

}  // namespace perfx::symbol
