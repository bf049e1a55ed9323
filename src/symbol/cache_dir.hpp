#pragma once
/// \file
/// perfx's on-disk caches (docs/report.md, "Caches"): files named by build-id under
/// $PERFX_CACHE_DIR, else $XDG_CACHE_HOME/perfx, else $HOME/.cache/perfx. Only caches:
/// every reader validates what it reads, every write failure is ignored.

#include <cstddef>
#include <functional>
#include <string>
#include <string_view>
#include <type_traits>

namespace perfx::symbol {

/// "<cache dir>/<kind>/<build-id>"; "" (no cache) without a build-id (or one that is not
/// lower-case hex, so that a damaged recording cannot name a path) or when
/// PERFX_CACHE_DIR is set to "".
[[nodiscard]] std::string cache_file_path(std::string_view kind, const std::string& build_id);

/// Appends the bytes of `v` (host byte order: a cache is not carried between machines).
template <typename T>
requires std::is_trivially_copyable_v<T>
void append_value(std::string& out, T v) {
  out.append(reinterpret_cast<const char*>(&v), sizeof v);
}

/// Replaces the cache file `path` with what `write` puts into a fresh file descriptor
/// (true = all written): created as a temporary file beside it (directories made as
/// needed) and renamed into place, so that a reader never sees half a file. Nothing is
/// left behind on failure, and failures are not reported: it is only a cache.
void replace_cache_file(const std::string& path, const std::function<bool(int fd)>& write);

}  // namespace perfx::symbol
