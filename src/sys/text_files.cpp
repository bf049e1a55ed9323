// Reading the kernel's text files: see text_files.hpp.

#include "sys/text_files.hpp"

#include <dirent.h>
#include <fcntl.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <fstream>

#include "core/error_format.hpp"
#include "core/text.hpp"
#include "sys/unique_fd.hpp"

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

}  // namespace

Result<std::string> slurp_file(const std::string& path, std::size_t max_bytes) {
  UniqueFd fd(::open(path.c_str(), O_RDONLY | O_CLOEXEC));
  if (!fd) return fail_errno(errno, "opening " + path);
  std::string out;
  char buf[65536];
  while (out.size() <= max_bytes) {
    const ssize_t n = ::read(fd.get(), buf, sizeof buf);
    if (n < 0) {
      if (errno == EINTR) continue;
      return fail_errno(errno, "reading " + path);
    }
    if (n == 0) break;
    out.append(buf, static_cast<std::size_t>(n));
  }
  return out;
}

Result<std::string> read_text_file(const std::string& path) {
  // sysfs/tracefs/procfs value files are small; stay bounded.
  PERFX_TRY(out, slurp_file(path, std::size_t{1} << 20));
  out.resize(out.find_last_not_of("\n \t") + 1);  // npos + 1 == 0: all blank
  return out;
}

std::string read_first_line(const std::string& path) {
  std::ifstream in(path);
  std::string line;
  std::getline(in, line);
  return line;
}

std::vector<DirEntry> read_dir(const std::string& dir) {
  std::vector<DirEntry> out;
  DIR* d = ::opendir(dir.c_str());
  if (d == nullptr) return out;
  while (const dirent* ent = ::readdir(d)) {
    const std::string_view n = ent->d_name;
    if (n == "." || n == "..") continue;
    out.push_back(DirEntry{std::string(n), ent->d_type});
  }
  ::closedir(d);
  std::sort(out.begin(), out.end(),
            [](const DirEntry& a, const DirEntry& b) { return a.name < b.name; });
  return out;
}

bool plain_name(std::string_view n) noexcept {
  return !n.empty() && n != "." && n != ".." && n.find('/') == std::string_view::npos;
}

std::vector<MountEntry> parse_mounts(std::string_view text) {
  std::vector<MountEntry> out;
  for (const std::string_view line : core::lines(text)) {
    const std::size_t s1 = line.find(' ');
    if (s1 == std::string_view::npos) continue;
    const std::size_t s2 = line.find(' ', s1 + 1);
    if (s2 == std::string_view::npos) continue;
    const std::size_t s3 = line.find(' ', s2 + 1);
    out.push_back(MountEntry{std::string(line.substr(0, s1)),
                             unescape_mount(line.substr(s1 + 1, s2 - s1 - 1)),
                             std::string(line.substr(s2 + 1, s3 - s2 - 1))});
  }
  return out;
}

}  // namespace perfx::sys
