#pragma once
/// \file
/// Creating the files perfx writes, without ever writing through a symlink
/// (docs/reliability.md, "Files perfx writes"). Every writer of the library and the CLI
/// opens its file here: perf.data and its switch-output files, exports and the text of
/// `-o`, stat output and the caches.
///
///   PERFX_TRY(out, perfx::OutputFile::create("profile.json", perfx::CreateMode::kWholeFile));
///   write_all(out.fd(), text);   // into a temporary beside profile.json
///   PERFX_CHECK(out.commit());   // renamed over profile.json
///
/// The modes:
///  - kWholeFile (exports, text outputs, caches): a temporary created with O_EXCL under an
///    unpredictable name in the target's directory, renamed over the target by commit();
///    an existing regular file is replaced, an uncommitted one is removed, so a reader
///    sees the old file or the whole new one.
///  - kNew / kNewKeepOld (perf.data, streams read while written): an existing entry is
///    removed (kNew) or renamed to PATH.old (kNewKeepOld, as perf does), then the file is
///    created with O_CREAT|O_EXCL|O_NOFOLLOW and written in place, so a killed writer
///    leaves what it wrote.
///  - kAppend: an existing regular file with one link is appended to; else as kNew.
/// In every mode an existing FIFO or character device (/dev/null, a named pipe) is
/// written in place, a symlink or directory at PATH is refused, and a file that appears
/// while it is being created (a lost race with another process) is one error naming it.

#include <cstddef>
#include <string>

#include "perfx/error.hpp"

namespace perfx {

/// How OutputFile::create() makes its file; see the file comment.
enum class CreateMode {
  kWholeFile,   ///< temporary + rename by commit(); for files written whole
  kNew,         ///< created in place after removing what was there
  kNewKeepOld,  ///< created in place after renaming what was there to PATH.old
  kAppend,      ///< appended to when it is a regular file, else created as kNew
};

/// A file being written. Move-only; owns its descriptor (and the temporary of kWholeFile).
class PERFX_API OutputFile {
 public:
  /// Creates (or opens, see CreateMode) `path` for writing; `perms` are the permission
  /// bits of a new file, less the umask (a replaced file owned by the caller keeps its
  /// own). Errors name the path: kInvalidArgument for a symlink, a directory or an empty
  /// name; kIo "... appeared while perfx was creating it" for a lost race; the errno's
  /// category otherwise (a missing directory, no permission).
  [[nodiscard]] static Result<OutputFile> create(const std::string& path, CreateMode mode,
                                                 unsigned perms = 0666);

  /// As create(), for the file `name` (no '/') in the open directory `dir_fd` (which is
  /// duplicated, not taken): for callers that checked the directory themselves (caches).
  [[nodiscard]] static Result<OutputFile> create_in(int dir_fd, const std::string& name,
                                                    CreateMode mode, unsigned perms = 0666);

  OutputFile(OutputFile&& other) noexcept;
  OutputFile& operator=(OutputFile&& other) noexcept;
  OutputFile(const OutputFile&) = delete;
  OutputFile& operator=(const OutputFile&) = delete;
  /// Uncommitted: a kWholeFile temporary is removed (the target stays as it was); a file
  /// written in place stays with what was written.
  ~OutputFile();

  /// The descriptor to write to (-1 after commit() or release()).
  [[nodiscard]] int fd() const noexcept { return fd_; }
  /// The path as given, for messages.
  [[nodiscard]] const std::string& path() const noexcept { return path_; }
  /// False when writing to an existing FIFO or device in place (no length, no rename).
  [[nodiscard]] bool regular() const noexcept { return regular_; }

  /// Writes all `size` bytes at `data` to the file, retrying short writes and EINTR.
  /// Errors: the errno's category, "cannot write '<path>': <reason>" (disk full...); the
  /// file keeps what reached it.
  [[nodiscard]] Result<void> write(const void* data, std::size_t size);

  /// Closes the file; kWholeFile renames the temporary over the target. Errors (a close
  /// or rename failure) name the path; the temporary is removed then.
  [[nodiscard]] Result<void> commit();

  /// Gives the descriptor to the caller, who closes it (kNew, kNewKeepOld, kAppend and
  /// in-place devices only: a kWholeFile temporary needs commit(); -1 then).
  [[nodiscard]] int release() noexcept;

 private:
  OutputFile() = default;
  // create() and create_in() once the directory is open (`dir_fd` is taken).
  static Result<OutputFile> make(int dir_fd, const std::string& name, const std::string& path,
                                 CreateMode mode, unsigned perms);
  void discard() noexcept;

  std::string path_;
  std::string name_;       // the target's name in its directory
  std::string temp_name_;  // kWholeFile's temporary; "" when written in place
  int dir_fd_ = -1;
  int fd_ = -1;
  bool regular_ = true;
};

}  // namespace perfx
