#pragma once
/// \file
/// Reading the kernel's text files (/proc, sysfs, tracefs): whole files, first lines,
/// directory listings and /proc/mounts.

#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "perfx/error.hpp"

namespace perfx::sys {

/// The whole file, at most about `max_bytes` of it (read in chunks, stopping after the
/// chunk that passes the bound). Errors: fail_errno of open(2) or read(2).
Result<std::string> slurp_file(const std::string& path, std::size_t max_bytes = SIZE_MAX);

/// A small sysfs/tracefs/procfs value file (at most ~1 MiB), trailing blanks and newlines
/// removed.
Result<std::string> read_text_file(const std::string& path);

/// The first line of a file, "" when it cannot be read.
std::string read_first_line(const std::string& path);

/// One entry of a directory: its name and readdir(3)'s d_type (DT_DIR, DT_LNK, DT_UNKNOWN...).
struct DirEntry {
  std::string name;
  unsigned char type = 0;
};

/// The entries of `dir` sorted by name, without "." and ".."; empty when it cannot be opened.
std::vector<DirEntry> read_dir(const std::string& dir);

/// A name that stays inside its directory: not empty, ".", ".." and without '/'.
bool plain_name(std::string_view name) noexcept;

/// One /proc/mounts line: "<source> <mount point> <fstype> <options> 0 0".
struct MountEntry {
  std::string source;
  std::string mount_point;  ///< unescaped (/proc/mounts writes ' ', '\t', '\n', '\\' as \ooo)
  std::string fstype;
};

/// The mounts of a /proc/mounts text (lines with fewer than three fields are skipped).
std::vector<MountEntry> parse_mounts(std::string_view text);

}  // namespace perfx::sys
