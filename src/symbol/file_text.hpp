#pragma once
/// \file
/// The whole text of a file, for the parsers of kallsyms and JIT maps.
///
/// A regular file is mapped read-only, not copied: kallsyms (5 MB on a Debian kernel) is
/// read once per report, and on a VM each freshly touched page is an expensive fault;
/// a mapping costs one fault per fault-around window instead of one or two per page of a
/// heap copy. Files without a size (/proc/kallsyms and other proc files) are read.

#include <optional>
#include <string>
#include <string_view>

namespace perfx::symbol {

/// Read-only text of a file; move-only (owns a mapping or a buffer).
class FileText {
 public:
  /// Opens and maps (or reads) `path`; nullopt when it cannot be opened or read.
  [[nodiscard]] static std::optional<FileText> open(const std::string& path);
  /// The same from an open descriptor (read from where it is; not closed here).
  [[nodiscard]] static std::optional<FileText> from_fd(int fd);

  FileText(FileText&& other) noexcept;
  FileText& operator=(FileText&& other) noexcept;
  FileText(const FileText&) = delete;
  FileText& operator=(const FileText&) = delete;
  ~FileText();

  /// The file's bytes; valid while this object lives.
  [[nodiscard]] std::string_view text() const noexcept {
    return mapped_ != nullptr ? std::string_view(mapped_, size_) : std::string_view(buffer_);
  }

 private:
  FileText() = default;
  const char* mapped_ = nullptr;  ///< the mapping, or nullptr when `buffer_` holds the text
  std::size_t size_ = 0;
  std::string buffer_;
};

/// Reads a whole file into a string; nullopt when it cannot be opened or read.
[[nodiscard]] std::optional<std::string> read_text_file(const std::string& path);

}  // namespace perfx::symbol
