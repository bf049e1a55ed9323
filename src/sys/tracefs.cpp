// tracefs: mount discovery, tracepoint ids and listing.

#include "sys/tracefs.hpp"

#include <dirent.h>
#include <sys/stat.h>

#include <algorithm>
#include <cerrno>
#include <charconv>

#include "core/error_format.hpp"
#include "sys/pmu_sysfs.hpp"

namespace perfx::sys {
namespace {

/// False with errno set by stat() (ENOTDIR when it exists but is not a directory).
bool is_dir(const std::string& path) {
  struct stat st {};
  if (::stat(path.c_str(), &st) != 0) return false;
  if (S_ISDIR(st.st_mode)) return true;
  errno = ENOTDIR;
  return false;
}

std::vector<std::string> sub_dirs(const std::string& dir) {
  std::vector<std::string> out;
  for (DirEntry& e : read_dir(dir)) {
    if (e.type == DT_DIR || (e.type == DT_UNKNOWN && is_dir(dir + "/" + e.name))) {
      out.push_back(std::move(e.name));
    }
  }
  return out;
}

}  // namespace

Result<std::string> find_tracefs(const std::string& mounts_file) {
  auto mounts = read_text_file(mounts_file);
  std::string tracefs;
  std::string debugfs;
  std::string denied;  // mounted, but stat(<mnt>/events) failed with EACCES
  std::string denied_debugfs;
  if (mounts) {
    for (const MountEntry& mount : parse_mounts(*mounts)) {
      const std::string_view fstype = mount.fstype;
      if (fstype == "tracefs" && tracefs.empty()) {
        const std::string& m = mount.mount_point;
        if (is_dir(m + "/events")) {
          tracefs = m;
        } else if (errno == EACCES && denied.empty()) {
          denied = m;
        }
      } else if (fstype == "debugfs" && debugfs.empty()) {
        const std::string m = mount.mount_point + "/tracing";
        if (is_dir(m + "/events")) {
          debugfs = m;
        } else if (errno == EACCES && denied_debugfs.empty()) {
          denied_debugfs = m;
        }
      }
    }
  }
  if (!tracefs.empty()) return tracefs;
  if (!debugfs.empty()) return debugfs;
  // Mounted but not searchable (tracefs is mode 700 by default): a permission problem,
  // as perf says ("No permissions to read ...; Try 'sudo mount -o remount,mode=755'").
  if (denied.empty()) denied = denied_debugfs;
  if (!denied.empty()) {
    return fail(Errc::kPermission,
                "no permission to read {}/events: tracefs is mounted but only root may read it "
                "(tracepoints need it); as root run 'mount -o remount,mode=755 {}', or run "
                "perfx as root",
                denied, denied);
  }
  return fail(Errc::kNotFound,
              "tracefs is not mounted (tracepoints need it); as root run "
              "'mount -t tracefs nodev /sys/kernel/tracing'");
}

Result<std::uint64_t> read_tracepoint_id(const std::string& root, std::string_view subsys,
                                         std::string_view name) {
  if (!plain_name(subsys) || !plain_name(name)) {
    return fail(Errc::kInvalidArgument, "'{}:{}' is not a valid tracepoint name", subsys, name);
  }
  const std::string dir = root + "/events/" + std::string(subsys);
  const std::string path = dir + "/" + std::string(name) + "/id";
  auto text = read_text_file(path);
  if (!text) {
    if (text.error().code() == Errc::kNotFound) {
      if (!is_dir(dir)) {
        return fail(Errc::kNotFound,
                    "unknown tracepoint '{}:{}': no subsystem '{}' in {}/events (see 'perfx "
                    "list')",
                    subsys, name, subsys, root);
      }
      return fail(Errc::kNotFound, "unknown tracepoint '{}:{}' (see 'perfx list {}:*')", subsys,
                  name, subsys);
    }
    return tl::unexpected(
        std::move(text).error().context(fmt::format("tracepoint '{}:{}'", subsys, name)));
  }
  std::uint64_t id = 0;
  auto [ptr, ec] = std::from_chars(text->data(), text->data() + text->size(), id);
  if (ec != std::errc() || ptr != text->data() + text->size()) {
    return fail(Errc::kMalformedData, "{}: '{}' is not a tracepoint id", path, *text);
  }
  return id;
}

Result<std::vector<event::TracepointName>> list_tracepoints(const std::string& root) {
  const std::string events = root + "/events";
  if (!is_dir(events)) return fail(Errc::kNotFound, "no tracepoint directory {}", events);
  std::vector<event::TracepointName> out;
  for (const auto& subsys : sub_dirs(events)) {
    for (const auto& name : sub_dirs(events + "/" + subsys)) out.push_back({subsys, name});
  }
  return out;
}

}  // namespace perfx::sys
