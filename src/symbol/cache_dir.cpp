#include "symbol/cache_dir.hpp"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstdlib>
#include <mutex>
#include <set>
#include <utility>

#include <fmt/format.h>

#include "perfx/output_file.hpp"

namespace perfx::symbol {
namespace {

std::mutex g_warnings_mutex;
std::set<std::string> g_warned;       // every text once per process
std::vector<std::string> g_warnings;  // not yet taken

// The cache root from the environment, without trailing slashes; "" for none.
std::string cache_root() {
  std::string dir;
  if (const char* own = std::getenv("PERFX_CACHE_DIR"); own != nullptr) {
    dir = own;
  } else if (const char* xdg = std::getenv("XDG_CACHE_HOME"); xdg != nullptr && *xdg != '\0') {
    dir = std::string(xdg) + "/perfx";
  } else if (const char* home = std::getenv("HOME"); home != nullptr && *home != '\0') {
    dir = std::string(home) + "/.cache/perfx";
  }
  while (dir.size() > 1 && dir.back() == '/') dir.pop_back();
  return dir;
}

std::string parent_of(const std::string& path) {
  const auto slash = path.rfind('/');
  if (slash == std::string::npos) return ".";
  return slash == 0 ? "/" : path.substr(0, slash);
}

bool writable_by_others(mode_t m) { return (m & (S_IWGRP | S_IWOTH)) != 0; }

enum class DirCheck { kOk, kMissing, kRefused, kFailed };

DirCheck refuse(std::string text) {
  cache_warning(std::move(text));
  return DirCheck::kRefused;
}

// The directories a cache file at `path` lives in, from the cache root (or the file's
// own directory, for a path outside it) down: each must be a directory owned by the
// effective user and not writable by others. The directory the root is in (the nearest
// that exists) must belong to the user or to root: under `sudo -E`, $HOME is another
// user's, and nothing of ours is created or written there. Missing directories are made
// 0700 when `create`. Checked by path: once a directory is the user's and closed to
// others, nobody else can rename or replace what is in it.
DirCheck check_cache_dirs(const std::string& path, bool create) {
  const std::string dir = parent_of(path);
  const std::string root = cache_root();
  const std::string top =
      !root.empty() && (dir == root || dir.starts_with(root + "/")) ? root : dir;
  std::vector<std::string> chain{top};
  for (std::size_t at = top.size(); at < dir.size();) {
    std::size_t next = dir.find('/', at + 1);
    if (next == std::string::npos) next = dir.size();
    if (next > at + 1) chain.push_back(dir.substr(0, next));
    at = next;
  }
  const uid_t euid = ::geteuid();

  // Where the chain starts: the nearest existing directory above it.
  std::vector<std::string> missing_above;  // between that one and `top`, outermost last
  std::string above = parent_of(top);
  struct stat st {};
  while (::stat(above.c_str(), &st) != 0) {
    if (errno != ENOENT || above == "/" || above == ".") return DirCheck::kFailed;
    missing_above.push_back(above);
    above = parent_of(above);
  }
  if (st.st_uid != euid && st.st_uid != 0) {
    return refuse(fmt::format(
        "cache directory '{}' is in '{}', which belongs to uid {}, not to uid {}: not using "
        "the cache (set PERFX_CACHE_DIR to a directory of your own)",
        top, above, st.st_uid, euid));
  }
  for (auto it = missing_above.rbegin(); it != missing_above.rend(); ++it) {
    if (!create) return DirCheck::kMissing;
    if (::mkdir(it->c_str(), 0700) != 0 && errno != EEXIST) return DirCheck::kFailed;
  }

  for (const std::string& d : chain) {
    if (::lstat(d.c_str(), &st) != 0) {
      if (errno != ENOENT) return DirCheck::kFailed;
      if (!create) return DirCheck::kMissing;
      if (::mkdir(d.c_str(), 0700) != 0 && errno != EEXIST) return DirCheck::kFailed;
      if (::lstat(d.c_str(), &st) != 0) return DirCheck::kFailed;
    }
    if (S_ISLNK(st.st_mode)) {
      // A link of the user's (or root's) to a cache elsewhere; what it points to is
      // checked next. Another user's link could be pointed elsewhere at any time.
      if (st.st_uid != euid && st.st_uid != 0) {
        return refuse(
            fmt::format("cache directory '{}' is a symbolic link of uid {}: not using the cache", d,
                        st.st_uid));
      }
      if (::stat(d.c_str(), &st) != 0) return DirCheck::kFailed;
    }
    if (!S_ISDIR(st.st_mode)) return DirCheck::kFailed;
    if (st.st_uid != euid) {
      return refuse(
          fmt::format("cache directory '{}' belongs to uid {}, not to uid {}: not using the cache",
                      d, st.st_uid, euid));
    }
    if (writable_by_others(st.st_mode)) {
      return refuse(fmt::format(
          "cache directory '{}' is writable by other users (mode {:o}): not using the cache", d,
          st.st_mode & 07777));
    }
  }
  return DirCheck::kOk;
}

// Why an open cache file is not to be trusted; "" when it is.
std::string distrust(const struct stat& st) {
  if (!S_ISREG(st.st_mode)) return "is not a regular file";
  if (st.st_uid != ::geteuid())
    return fmt::format("belongs to uid {}, not to uid {}", st.st_uid, ::geteuid());
  if (writable_by_others(st.st_mode))
    return fmt::format("is writable by other users (mode {:o})", st.st_mode & 07777);
  return {};
}

}  // namespace

std::string cache_file_path(std::string_view kind, const std::string& build_id) {
  if (build_id.empty() || build_id.find_first_not_of("0123456789abcdef") != std::string::npos)
    return {};
  const std::string root = cache_root();
  if (root.empty()) return {};
  std::string path = root + "/" + std::string(kind) + "/" + build_id;
  if (check_cache_dirs(path, false) == DirCheck::kRefused) return {};
  return path;
}

int open_cache_file(const std::string& path, bool* refused) {
  if (refused != nullptr) *refused = false;
  if (path.empty()) return -1;
  // O_NONBLOCK: a FIFO planted here must not hang the reader.
  const int fd = ::open(path.c_str(), O_RDONLY | O_NOFOLLOW | O_NONBLOCK | O_CLOEXEC);
  std::string why;
  struct stat st {};
  if (fd < 0) {
    if (errno != ELOOP) return -1;
    why = "is a symbolic link";
  } else if (::fstat(fd, &st) != 0) {
    ::close(fd);
    return -1;
  } else {
    why = distrust(st);
    if (why.empty()) return fd;
    ::close(fd);
  }
  if (refused != nullptr) *refused = true;
  cache_warning(fmt::format("cache file '{}' {}: ignored", path, why));
  return -1;
}

int open_cache_file_for_append(const std::string& path) {
  const int fd = ::open(path.c_str(), O_RDWR | O_APPEND | O_NOFOLLOW | O_NONBLOCK | O_CLOEXEC);
  if (fd < 0) return -1;
  struct stat st {};
  if (::fstat(fd, &st) != 0 || !distrust(st).empty() || st.st_nlink != 1) {
    ::close(fd);
    return -1;
  }
  return fd;
}

void replace_cache_file(const std::string& path, const std::function<bool(int fd)>& write) {
  if (path.empty() || check_cache_dirs(path, true) != DirCheck::kOk) return;
  // Only a regular file (or nothing) is replaced: something else there is not ours.
  struct stat st {};
  if (::lstat(path.c_str(), &st) == 0 && !S_ISREG(st.st_mode)) return;
  auto file = OutputFile::create(path, CreateMode::kWholeFile, 0600);
  if (!file) return;
  (void)::fchmod(file->fd(), 0600);  // not the mode of the file it replaces
  if (write(file->fd())) (void)file->commit();
}

void cache_warning(std::string text) {
  std::lock_guard lock(g_warnings_mutex);
  if (g_warned.insert(text).second) g_warnings.push_back(std::move(text));
}

std::vector<std::string> take_cache_warnings() {
  std::lock_guard lock(g_warnings_mutex);
  return std::exchange(g_warnings, {});
}

std::string_view cache_file_name(std::string_view path) {
  const auto slash = path.rfind('/');
  return slash == std::string_view::npos ? path : path.substr(slash + 1);
}

}  // namespace perfx::symbol
