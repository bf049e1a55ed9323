#pragma once
// The file behind a command's -o option (report, script, diff).
//
// An existing file is written over in place and cut to the new length when done, rather
// than truncated when opened: its page-cache pages are reused instead of freed and
// allocated again. Re-exporting an 8 MB Firefox profile over the previous one saves
// ~4 ms of truncation and ~2 ms of page allocation on our VMs (docs/exports.md). The
// file is opened after the input was read, so a bad input leaves it untouched, and an
// export that fails before writing anything does too. A write error (disk full) is
// reported with the file's name.

#include <memory>
#include <ostream>
#include <string>

#include "perfx/error.hpp"

namespace perfx::cli {

class OutputFile {
 public:
  /// Opens PATH for writing (created 0666 & umask when missing); "" and "-" are stdout.
  [[nodiscard]] static Result<OutputFile> open(const std::string& path);
  OutputFile(OutputFile&&) noexcept;
  OutputFile& operator=(OutputFile&&) = delete;
  ~OutputFile();  // an unfinished file is cut to what was written, if anything was

  [[nodiscard]] std::ostream& stream() { return *out_; }
  /// Writes what is buffered, cuts a regular file to the bytes written and closes it;
  /// the first write error, naming the file.
  [[nodiscard]] Result<void> finish();

 private:
  class FdBuf;
  OutputFile();  // stdout
  OutputFile(std::string path, int fd);
  std::string path_;
  std::unique_ptr<FdBuf> buf_;         // null for stdout
  std::unique_ptr<std::ostream> own_;  // over buf_
  std::ostream* out_ = nullptr;        // own_ or std::cout (never null once made)
};

}  // namespace perfx::cli
