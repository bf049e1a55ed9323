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

}  // namespace perfx::record
