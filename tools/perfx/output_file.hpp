#pragma once
// The file behind a command's -o option (report, script, diff, annotate).
//
// A stream over perfx::OutputFile in kWholeFile mode (include/perfx/output_file.hpp):
// the text goes to a temporary beside the file, renamed over it by finish(), so a
// symlink at the name is never written through (docs/reliability.md). The file is opened
// after the input was read, so a bad input leaves it untouched, and an export that fails
// before writing anything does too. A write error (disk full) is reported with the
// file's name and leaves the old file as it was. FIFOs and devices (/dev/null) are
// written in place.

#include <memory>
#include <ostream>
#include <string>

#include "perfx/error.hpp"
#include "perfx/output_file.hpp"

namespace perfx::cli {

class OutputFile {
 public:
  /// Opens PATH for writing (a new file is 0666 & umask); "" and "-" are stdout.
  [[nodiscard]] static Result<OutputFile> open(const std::string& path);
  OutputFile(OutputFile&&) noexcept;
  OutputFile& operator=(OutputFile&&) = delete;
  ~OutputFile();  // an unfinished file is committed with what was written, if anything was

  [[nodiscard]] std::ostream& stream() { return *out_; }
  /// Writes what is buffered and puts the file in place; the first write error, naming
  /// the file (the old file is then left as it was).
  [[nodiscard]] Result<void> finish();

 private:
  class FdBuf;
  OutputFile();  // stdout
  explicit OutputFile(perfx::OutputFile file);
  std::unique_ptr<perfx::OutputFile> file_;  // null for stdout
  std::unique_ptr<FdBuf> buf_;               // null for stdout and once finished
  std::unique_ptr<std::ostream> own_;        // over buf_
  std::ostream* out_ = nullptr;              // own_ or std::cout (never null once made)
};

}  // namespace perfx::cli
