#include "symbol/cache_dir.hpp"

#include <fcntl.h>
#include <unistd.h>

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

void replace_cache_file(const std::string& path, const std::function<bool(int fd)>& write) {
  if (path.empty()) return;
  std::error_code ec;
  std::filesystem::create_directories(std::filesystem::path(path).parent_path(), ec);
  if (ec) return;
  const std::string tmp = path + ".tmp." + std::to_string(::getpid());
  const int fd = ::open(tmp.c_str(), O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
  if (fd < 0) return;
  bool ok = write(fd);
  ok = ::close(fd) == 0 && ok;
  if (!ok || ::rename(tmp.c_str(), path.c_str()) != 0) ::unlink(tmp.c_str());
}

}  // namespace perfx::symbol
