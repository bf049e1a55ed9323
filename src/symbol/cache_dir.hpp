#pragma once
/// \file
/// perfx's on-disk caches (docs/report.md, "Caches"; docs/reliability.md, "Caches"): files
/// named by build-id under $PERFX_CACHE_DIR, else $XDG_CACHE_HOME/perfx, else
/// $HOME/.cache/perfx. Only caches: every reader validates what it reads, every write
/// failure is ignored.
///
/// They are private: directories 0700 and files 0600, owned by the effective user. A
/// cache directory owned by someone else or writable by others (and a directory owned by
/// another user that one would have to be created in: $HOME under `sudo -E`) is neither
/// read nor written; a cache file owned by someone else or writable by others is not
/// read. Each refusal is one warning (take_cache_warnings()), then perfx goes on uncached.

#include <cstddef>
#include <functional>
#include <string>
#include <string_view>
#include <type_traits>
#include <vector>

namespace perfx::symbol {

/// "<cache dir>/<kind>/<build-id>"; "" (no cache) without a build-id (or one that is not
/// lower-case hex, so that a damaged recording cannot name a path), when
/// PERFX_CACHE_DIR is set to "", or when an existing directory on the way is refused
/// (with a warning).
[[nodiscard]] std::string cache_file_path(std::string_view kind, const std::string& build_id);

/// Opens the cache file `path` for reading (O_NOFOLLOW): a regular file owned by the
/// effective user and not writable by others; -1 otherwise, with a warning when a file is
/// there but refused (`*refused` then set, when given). The caller closes the descriptor.
[[nodiscard]] int open_cache_file(const std::string& path, bool* refused = nullptr);

/// Opens the existing cache file `path` to append to it, with the checks of
/// open_cache_file() and one link only; -1 when it cannot (silently: it is rewritten).
[[nodiscard]] int open_cache_file_for_append(const std::string& path);

/// Appends the bytes of `v` (host byte order: a cache is not carried between machines).
template <typename T>
requires std::is_trivially_copyable_v<T>
void append_value(std::string& out, T v) {
  out.append(reinterpret_cast<const char*>(&v), sizeof v);
}

/// Replaces the cache file `path` with what `write` puts into a fresh file descriptor
/// (true = all written): missing directories made 0700 (after the checks above), a
/// temporary 0600 file with an unpredictable name beside it renamed into place
/// (perfx::OutputFile, kWholeFile), so that a reader never sees half a file. Nothing is
/// left behind on failure, and failures are not reported: it is only a cache.
void replace_cache_file(const std::string& path, const std::function<bool(int fd)>& write);

/// Records a warning about the cache (kept once per text until taken).
void cache_warning(std::string text);

/// The cache warnings since the last call (each text once per process), oldest first.
[[nodiscard]] std::vector<std::string> take_cache_warnings();

/// The last path component of `path` (a cache file's name: its build-id).
[[nodiscard]] std::string_view cache_file_name(std::string_view path);

}  // namespace perfx::symbol
