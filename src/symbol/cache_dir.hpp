#pragma once
/// \file
/// perfx's on-disk caches (docs/report.md, "Caches"): files named by build-id under
/// $PERFX_CACHE_DIR, else $XDG_CACHE_HOME/perfx, else $HOME/.cache/perfx. Only caches:
/// every reader validates what it reads, every write failure is ignored.

#include <cstddef>
#include <string>
#include <string_view>

namespace perfx::symbol {

/// "<cache dir>/<kind>/<build-id>"; "" (no cache) without a build-id (or one that is not
/// lower-case hex, so that a damaged recording cannot name a path) or when
/// PERFX_CACHE_DIR is set to "".
[[nodiscard]] std::string cache_file_path(std::string_view kind, const std::string& build_id);

/// Creates the directory that will hold `path`; false when it cannot.
bool make_cache_dir(const std::string& path);

/// write(2) of all `n` bytes, retried on EINTR; false on error.
bool write_fully(int fd, const char* p, std::size_t n);

}  // namespace perfx::symbol
