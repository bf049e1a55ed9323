#pragma once
/// \file
/// cgroup2 directories for PERF_FLAG_PID_CGROUP (perf stat -G): finding the unified
/// hierarchy's mount point and opening a cgroup directory fd.

#include <string>
#include <string_view>

#include "perfx/error.hpp"
#include "sys/unique_fd.hpp"

namespace perfx::sys {

/// The mount point of the cgroup2 file system in /proc/mounts text ("/sys/fs/cgroup" or,
/// on hybrid systems, "/sys/fs/cgroup/unified"). kNotFound when none is mounted.
Result<std::string> find_cgroup2_mount(std::string_view proc_mounts_text);

/// Reads `mounts_path` and returns the cgroup2 mount point.
Result<std::string> cgroup2_mount(const std::string& mounts_path = "/proc/mounts");

/// Resolves a cgroup name: an absolute path under the mount is kept, anything else is
/// taken relative to the cgroup2 mount ("perfx/test" -> "/sys/fs/cgroup/unified/perfx/test",
/// "/" -> the root cgroup).
std::string resolve_cgroup_path(std::string_view name, std::string_view mount);

/// Opens the cgroup directory `name` (see resolve_cgroup_path) O_RDONLY|O_DIRECTORY for
/// perf_event_open's pid argument. kNotFound names the full path tried.
Result<UniqueFd> open_cgroup(std::string_view name,
                             const std::string& mounts_path = "/proc/mounts");

}  // namespace perfx::sys
