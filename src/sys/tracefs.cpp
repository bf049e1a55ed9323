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

// /proc/mounts escapes ' ', '\t', '\n' and '\\' as \ooo octal.
std::string unescape_mount(std::string_view s) {
  std::string out;
  for (std::size_t i = 0; i < s.size(); ++i) {
    if (s[i] == '\\' && i + 3 < s.size() && s[i + 1] >= '0' && s[i + 1] <= '3') {
      const int v = (s[i + 1] - '0') * 64 + (s[i + 2] - '0') * 8 + (s[i + 3] - '0');
      out += static_cast<char>(v);
      i += 3;
    } else {
      out += s[i];
    }
  }
  return out;
}

/// False with errno set by stat() (ENOTDIR when it exists but is not a directory).
bool is_dir(const std::string& path) {
  struct stat st {};
  if (::stat(path.c_str(), &st) != 0) return false;
  if (S_ISDIR(st.st_mode)) return true;
  errno = ENOTDIR;
  return false;
}

bool plain_name(std::string_view n) {
  return !n.empty() && n != "." && n != ".." && n.find('/') == std::string_view::npos;
}

std::vector<std::string> sub_dirs(const std::string& dir) {
  std::vector<std::string> out;
  DIR* d = ::opendir(dir.c_str());
  if (d == nullptr) return out;
  while (const dirent* ent = ::readdir(d)) {
    const std::string_view n = ent->d_name;
    if (n == "." || n == "..") continue;
    if (ent->d_type == DT_DIR || (ent->d_type == DT_UNKNOWN && is_dir(dir + "/" + ent->d_name))) {
      out.emplace_back(n);
    }
  }
  ::closedir(d);
  std::sort(out.begin(), out.end());
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
    std::string_view rest = *mounts;
    while (!rest.empty()) {
      const auto nl = rest.find('\n');
      const std::string_view line = rest.substr(0, nl);
      rest = nl == std::string_view::npos ? std::string_view{} : rest.substr(nl + 1);
      // "<device> <mountpoint> <fstype> <options> 0 0"
      const auto s1 = line.find(' ');
      if (s1 == std::string_view::npos) continue;
      const auto s2 = line.find(' ', s1 + 1);
      if (s2 == std::string_view::npos) continue;
      const auto s3 = line.find(' ', s2 + 1);
      const std::string_view mnt = line.substr(s1 + 1, s2 - s1 - 1);
      const std::string_view fstype = line.substr(s2 + 1, s3 - s2 - 1);
      if (fstype == "tracefs" && tracefs.empty()) {
        const std::string m = unescape_mount(mnt);
        if (is_dir(m + "/events")) {
          tracefs = m;
        } else if (errno == EACCES && denied.empty()) {
          denied = m;
        }
      } else if (fstype == "debugfs" && debugfs.empty()) {
        const std::string m = unescape_mount(mnt) + "/tracing";
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
