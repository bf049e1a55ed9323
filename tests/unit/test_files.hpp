#pragma once
// Reading and writing whole files in tests (fixtures on disk, fake sysfs/procfs trees).

#include <filesystem>
#include <fstream>
#include <iterator>
#include <sstream>
#include <string>
#include <vector>

namespace perfx::test_support {

/// The bytes of the file at `path` as a string ("" when it cannot be read).
inline std::string slurp(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  std::ostringstream text;
  text << in.rdbuf();
  return text.str();
}

/// The bytes of the file at `path` (none when it cannot be read).
inline std::vector<std::byte> slurp_bytes(const std::string& path) {
  const std::string text = slurp(path);
  const auto* first = reinterpret_cast<const std::byte*>(text.data());
  return {first, first + text.size()};
}

/// Replaces the file at `path` with `bytes`.
inline void spit(const std::string& path, const std::string& bytes) {
  std::ofstream(path, std::ios::binary | std::ios::trunc) << bytes;
}

/// Replaces the file at `path` with `bytes`.
inline void spit(const std::string& path, const std::vector<std::byte>& bytes) {
  std::ofstream out(path, std::ios::binary | std::ios::trunc);
  out.write(reinterpret_cast<const char*>(bytes.data()),
            static_cast<std::streamsize>(bytes.size()));
}

/// Writes `text` to `path`, creating the directories above it first.
inline void write_tree_file(const std::string& path, const std::string& text) {
  std::filesystem::create_directories(std::filesystem::path(path).parent_path());
  spit(path, text);
}

}  // namespace perfx::test_support
