#include "symbol/cache_dir.hpp"

#include <unistd.h>

#include <cerrno>
#include <cstdlib>
#include <filesystem>

namespace perfx::symbol {

std::string cache_file_path(std::string_view kind, const std::string& build_id) {
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
  return dir + "/" + std::string(kind) + "/" + build_id;
}

bool make_cache_dir(const std::string& path) {
  std::error_code ec;
  std::filesystem::create_directories(std::filesystem::path(path).parent_path(), ec);
  return !ec;
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

}  // namespace perfx::symbol
