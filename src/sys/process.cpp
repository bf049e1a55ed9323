#include "sys/process.hpp"

#include <dirent.h>

#include <algorithm>
#include <cerrno>
#include <charconv>

#include "core/error_format.hpp"
#include "sys/pmu_sysfs.hpp"

namespace perfx::sys {

namespace {

// The numeric entries of a /proc directory, sorted.
std::vector<pid_t> numeric_entries(DIR* d) {
  std::vector<pid_t> ids;
  while (const dirent* ent = ::readdir(d)) {
    const std::string_view name = ent->d_name;
    pid_t id = 0;
    auto [ptr, ec] = std::from_chars(name.data(), name.data() + name.size(), id);
    if (ec == std::errc() && ptr == name.data() + name.size() && id > 0) ids.push_back(id);
  }
  ::closedir(d);
  std::sort(ids.begin(), ids.end());
  return ids;
}

}  // namespace

Result<std::vector<pid_t>> all_processes(const std::string& proc) {
  DIR* d = ::opendir(proc.c_str());
  if (d == nullptr) return fail_errno(errno, "reading " + proc);
  return numeric_entries(d);
}

Result<std::vector<pid_t>> process_threads(pid_t pid, const std::string& proc) {
  const std::string dir = proc + "/" + std::to_string(pid) + "/task";
  DIR* d = ::opendir(dir.c_str());
  if (d == nullptr) {
    const int e = errno;
    if (e == ENOENT) {
      return tl::unexpected(
          Error(Errc::kNotFound, "no process with pid " + std::to_string(pid), ESRCH));
    }
    return fail_errno(e, "reading " + dir);
  }
  const std::vector<pid_t> tids = numeric_entries(d);
  if (tids.empty()) {
    return fail(Errc::kNotFound, "no process with pid {} (no threads)", pid);
  }
  return tids;
}

std::string thread_comm(pid_t tid, const std::string& proc) {
  auto text = read_text_file(proc + "/" + std::to_string(tid) + "/comm");
  if (!text) return "?";
  std::string s = std::move(*text);
  while (!s.empty() && (s.back() == '\n' || s.back() == ' ')) s.pop_back();
  return s.empty() ? "?" : s;
}

Result<std::vector<pid_t>> parse_pid_list(std::string_view text) {
  std::vector<pid_t> out;
  std::size_t pos = 0;
  while (pos <= text.size()) {
    std::size_t comma = text.find(',', pos);
    if (comma == std::string_view::npos) comma = text.size();
    std::string_view item = text.substr(pos, comma - pos);
    while (!item.empty() && item.front() == ' ') item.remove_prefix(1);
    while (!item.empty() && item.back() == ' ') item.remove_suffix(1);
    pid_t v = 0;
    auto [ptr, ec] = std::from_chars(item.data(), item.data() + item.size(), v);
    if (item.empty() || ec != std::errc() || ptr != item.data() + item.size() || v <= 0) {
      return fail(Errc::kInvalidArgument, "bad pid list '{}': '{}' is not a process id", text,
                  item);
    }
    out.push_back(v);
    pos = comma + 1;
  }
  return out;
}

}  // namespace perfx::sys
