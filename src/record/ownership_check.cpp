#include "record/ownership_check.hpp"

#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstdio>

#include "core/error_format.hpp"

namespace perfx::record {

Result<void> check_input_owner(const std::string& path, bool force) {
  if (path == "-" || force) return {};
  struct stat st {};
  if (::stat(path.c_str(), &st) != 0) {
    const int err = errno;
    return fail_errno(err, "cannot read '" + path + "'");
  }
  // Pipes, FIFOs and devices are streams, not files someone else left behind.
  if (!S_ISREG(st.st_mode) && !S_ISDIR(st.st_mode)) return {};
  const uid_t euid = ::geteuid();
  if (st.st_uid == 0 || st.st_uid == euid) return {};
  return fail(Errc::kPermission,
              "{}: file not owned by current user (uid {}) or root (owner uid {}); use --force "
              "to read it anyway",
              path, euid, st.st_uid);
}

Result<void> rotate_old_output(const std::string& path) {
  if (path.empty() || path == "-") return {};
  struct stat st {};
  if (::lstat(path.c_str(), &st) != 0) {
    const int err = errno;
    if (err == ENOENT) return {};
    return fail_errno(err, "cannot stat output '" + path + "'");
  }
  // Writing to a pipe/FIFO/device (e.g. -o /dev/stdout) replaces nothing.
  if (S_ISFIFO(st.st_mode) || S_ISCHR(st.st_mode) || S_ISSOCK(st.st_mode)) return {};
  const std::string old = path + ".old";
  struct stat old_st {};
  if (::lstat(old.c_str(), &old_st) == 0 && S_ISDIR(old_st.st_mode)) {
    return fail(Errc::kIo, "cannot keep '{}' as '{}': '{}' is a directory; remove it first", path,
                old, old);
  }
  // rename(2) never follows a symlink at either path: an old symlink is itself replaced.
  if (::rename(path.c_str(), old.c_str()) != 0) {
    const int err = errno;
    return fail_errno(err, "cannot rename '" + path + "' to '" + old + "'");
  }
  return {};
}

}  // namespace perfx::record
