#pragma once
// Files for the fuzz targets that read caches: a directory of this fuzzing run, created on
// first use as /tmp/perfx-fuzz-<what>-<pid> and removed at exit (the path is a static char
// array: the atexit handler runs after static objects with destructors are gone), and the
// cache files written into it.

#include <unistd.h>

#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <string>
#include <string_view>
#include <system_error>

namespace perfx_fuzz {

inline const char* scratch_dir(const char* what) {
  static char dir[128];
  if (dir[0] == '\0') {
    std::snprintf(dir, sizeof dir, "/tmp/perfx-fuzz-%s-%d", what, static_cast<int>(::getpid()));
    std::error_code ec;
    std::filesystem::create_directories(dir, ec);
    std::atexit([] {
      std::error_code ignored;
      std::filesystem::remove_all(dir, ignored);
    });
  }
  return dir;
}

/// Appends `s` after its u32 length (native order), as the cache files store names.
inline void append_sized(std::string& out, std::string_view s) {
  const auto size = static_cast<std::uint32_t>(s.size());
  out.append(reinterpret_cast<const char*>(&size), sizeof size);
  out += s;
}

/// Writes `bytes` as the file `name` of scratch_dir(what), replacing it: its path, or ""
/// when it cannot be written.
inline std::string write_scratch_file(const char* what, std::string_view name,
                                      std::string_view bytes) {
  const std::string path = std::string(scratch_dir(what)) + "/" + std::string(name);
  std::error_code ec;
  std::filesystem::remove(path, ec);
  std::FILE* f = std::fopen(path.c_str(), "wb");
  if (f == nullptr) return {};
  std::fwrite(bytes.data(), 1, bytes.size(), f);
  std::fclose(f);
  return path;
}

}  // namespace perfx_fuzz
