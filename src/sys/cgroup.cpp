#include "sys/cgroup.hpp"

#include <fcntl.h>

#include <cerrno>

#include "core/error_format.hpp"
#include "sys/pmu_sysfs.hpp"

namespace perfx::sys {

Result<std::string> find_cgroup2_mount(std::string_view text) {
  for (MountEntry& mount : parse_mounts(text)) {
    if (mount.fstype == "cgroup2") return std::move(mount.mount_point);
  }
  return fail(Errc::kNotFound,
              "no cgroup2 file system is mounted (mount -t cgroup2 none /sys/fs/cgroup)");
}

Result<std::string> cgroup2_mount(const std::string& mounts_path) {
  PERFX_TRY(text, read_text_file(mounts_path));
  return find_cgroup2_mount(text);
}

std::string resolve_cgroup_path(std::string_view name, std::string_view mount) {
  std::string m(mount);
  while (m.size() > 1 && m.back() == '/') m.pop_back();
  if (name.starts_with(m) && (name.size() == m.size() || name[m.size()] == '/')) {
    return std::string(name);
  }
  while (!name.empty() && name.front() == '/') name.remove_prefix(1);
  if (name.empty()) return m;
  return m + "/" + std::string(name);
}

Result<UniqueFd> open_cgroup(std::string_view name, const std::string& mounts_path) {
  PERFX_TRY(mount, cgroup2_mount(mounts_path));
  const std::string path = resolve_cgroup_path(name, mount);
  UniqueFd fd(::open(path.c_str(), O_RDONLY | O_DIRECTORY | O_CLOEXEC));
  if (!fd) {
    const int e = errno;
    auto err = fail_errno(e, "opening cgroup " + path);
    if (e == ENOENT) {
      return tl::unexpected(Error(Errc::kNotFound,
                                  "cgroup '" + std::string(name) + "' does not exist: no " + path +
                                      " (names are relative to the cgroup2 mount " + mount + ")",
                                  e));
    }
    return err;
  }
  return fd;
}

}  // namespace perfx::sys
