// The one place perfx creates files (include/perfx/output_file.hpp, docs/reliability.md).
//
// Everything happens relative to one descriptor of the target's directory: the checks
// (lstat), the temporary, the rename and the .old rotation all see the same directory
// even when a component of the path is renamed meanwhile. Nothing is opened for writing
// without O_NOFOLLOW, and nothing is created without O_EXCL: a symlink planted at the
// target (or at the temporary's name) makes creation fail, it is never followed.

#include "perfx/output_file.hpp"
#include "core/error_format.hpp"
#include "core/fd_io.hpp"

#include <fcntl.h>
#include <sys/random.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstdint>
#include <ctime>
#include <utility>

namespace perfx {
namespace {

constexpr int kWriteFlags = O_WRONLY | O_NOFOLLOW | O_NOCTTY | O_CLOEXEC;

// An entry written in place rather than created: a FIFO or a device (/dev/null).
bool is_stream(mode_t m) { return S_ISFIFO(m) || S_ISCHR(m); }

tl::unexpected<Error> lost_race(const std::string& path) {
  return fail(Errc::kIo,
              "cannot create '{}': another file appeared there while perfx was creating it "
              "(nothing was written through it; is another process racing for this name?)",
              path);
}

tl::unexpected<Error> refuse_entry(const std::string& path, mode_t m) {
  if (S_ISLNK(m)) {
    return fail(Errc::kInvalidArgument,
                "'{}' is a symbolic link: perfx never writes through one (remove it, or name "
                "the file it points to)",
                path);
  }
  if (S_ISDIR(m)) return fail(Errc::kInvalidArgument, "'{}' is a directory", path);
  return fail(Errc::kInvalidArgument, "'{}' is not a file perfx can write (a socket?)", path);
}

// ".<name>.<16 random hex digits>.tmp": unpredictable, so nobody can plant it beforehand
// (O_EXCL would refuse a planted one anyway; the randomness makes that a retry, not a
// failure).
std::string temp_name(const std::string& name) {
  std::uint64_t r = 0;
  if (::getrandom(&r, sizeof r, 0) != static_cast<ssize_t>(sizeof r)) {
    // No entropy source (very old kernel): pid and clock bits, still retried on EEXIST.
    timespec ts{};
    ::clock_gettime(CLOCK_MONOTONIC, &ts);
    r = (static_cast<std::uint64_t>(::getpid()) << 40) ^ static_cast<std::uint64_t>(ts.tv_nsec) ^
        (static_cast<std::uint64_t>(ts.tv_sec) << 20);
  }
  static constexpr char kHex[] = "0123456789abcdef";
  std::string out = "." + name + ".";
  for (int i = 0; i < 16; ++i) out += kHex[(r >> (4 * i)) & 0xf];
  return out + ".tmp";
}

// openat() of an existing entry for writing; ELOOP (O_NOFOLLOW met a symlink swapped in)
// is a lost race, other errors say "<what> '<path>'".
Result<int> open_existing(int dir_fd, const std::string& name, const std::string& path, int extra,
                          const char* what) {
  const int fd = ::openat(dir_fd, name.c_str(), kWriteFlags | extra);
  if (fd >= 0) return fd;
  const int err = errno;
  if (err == ELOOP) return lost_race(path);
  return fail_errno(err, fmt::format("{} '{}'", what, path));
}

// Opens an existing FIFO/device in place: it must still be one once opened (O_NOFOLLOW
// refuses a symlink swapped in, the fstat a regular file linked in).
Result<int> open_stream(int dir_fd, const std::string& name, const std::string& path, int extra) {
  PERFX_TRY(fd, open_existing(dir_fd, name, path, extra, "cannot write"));
  struct stat st {};
  if (::fstat(fd, &st) != 0 || !is_stream(st.st_mode)) {
    ::close(fd);
    return lost_race(path);
  }
  return fd;
}

// O_CREAT|O_EXCL|O_NOFOLLOW: EEXIST means someone made the name since it was removed.
Result<int> create_exclusive(int dir_fd, const std::string& name, const std::string& path,
                             unsigned perms) {
  const int fd = ::openat(dir_fd, name.c_str(), kWriteFlags | O_CREAT | O_EXCL, perms);
  if (fd >= 0) return fd;
  const int err = errno;
  if (err == EEXIST || err == ELOOP) return lost_race(path);
  return fail_errno(err, "cannot create '" + path + "'");
}

}  // namespace

OutputFile::OutputFile(OutputFile&& other) noexcept
    : path_(std::move(other.path_)),
      name_(std::move(other.name_)),
      temp_name_(std::move(other.temp_name_)),
      dir_fd_(std::exchange(other.dir_fd_, -1)),
      fd_(std::exchange(other.fd_, -1)),
      regular_(other.regular_) {}

OutputFile& OutputFile::operator=(OutputFile&& other) noexcept {
  if (this != &other) {
    discard();
    path_ = std::move(other.path_);
    name_ = std::move(other.name_);
    temp_name_ = std::move(other.temp_name_);
    dir_fd_ = std::exchange(other.dir_fd_, -1);
    fd_ = std::exchange(other.fd_, -1);
    regular_ = other.regular_;
  }
  return *this;
}

OutputFile::~OutputFile() { discard(); }

void OutputFile::discard() noexcept {
  if (fd_ >= 0) ::close(fd_);
  fd_ = -1;
  if (!temp_name_.empty() && dir_fd_ >= 0) (void)::unlinkat(dir_fd_, temp_name_.c_str(), 0);
  temp_name_.clear();
  if (dir_fd_ >= 0) ::close(dir_fd_);
  dir_fd_ = -1;
}

Result<OutputFile> OutputFile::create(const std::string& path, CreateMode mode, unsigned perms) {
  if (path.empty()) return fail(Errc::kInvalidArgument, "an output file needs a name");
  const auto slash = path.rfind('/');
  const std::string dir = slash == std::string::npos ? "."
                          : slash == 0               ? "/"
                                                     : path.substr(0, slash);
  const std::string name = slash == std::string::npos ? path : path.substr(slash + 1);
  if (name.empty() || name == "." || name == "..")
    return fail(Errc::kInvalidArgument, "'{}' is a directory", path);
  const int dir_fd = ::open(dir.c_str(), O_RDONLY | O_DIRECTORY | O_CLOEXEC);
  if (dir_fd < 0) return fail_errno(errno, "cannot create '" + path + "'");
  return make(dir_fd, name, path, mode, perms);
}

Result<OutputFile> OutputFile::create_in(int dir_fd, const std::string& name, CreateMode mode,
                                         unsigned perms) {
  if (name.empty() || name.find('/') != std::string::npos || name == "." || name == "..")
    return fail(Errc::kInvalidArgument, "'{}' is not a file name", name);
  const int dup = ::fcntl(dir_fd, F_DUPFD_CLOEXEC, 0);
  if (dup < 0) return fail_errno(errno, "cannot create '" + name + "'");
  return make(dup, name, name, mode, perms);
}

Result<OutputFile> OutputFile::make(int dir_fd, const std::string& name, const std::string& path,
                                    CreateMode mode, unsigned perms) {
  OutputFile out;  // owns dir_fd from here on
  out.dir_fd_ = dir_fd;
  out.path_ = path;
  out.name_ = name;
  struct stat st {};
  bool exists = true;
  if (::fstatat(dir_fd, name.c_str(), &st, AT_SYMLINK_NOFOLLOW) != 0) {
    const int err = errno;
    if (err != ENOENT) return fail_errno(err, "cannot create '" + path + "'");
    exists = false;
  }
  if (exists && is_stream(st.st_mode)) {
    PERFX_TRY(fd, open_stream(dir_fd, name, path, mode == CreateMode::kAppend ? O_APPEND : 0));
    out.fd_ = fd;
    out.regular_ = false;
    return out;
  }
  if (exists && !S_ISREG(st.st_mode) && !(S_ISLNK(st.st_mode) && mode == CreateMode::kNewKeepOld))
    return refuse_entry(path, st.st_mode);

  switch (mode) {
    case CreateMode::kWholeFile: {
      for (int attempt = 0; out.fd_ < 0; ++attempt) {
        std::string temp = temp_name(name);
        const int fd = ::openat(dir_fd, temp.c_str(), kWriteFlags | O_CREAT | O_EXCL, perms);
        if (fd >= 0) {
          out.fd_ = fd;
          out.temp_name_ = std::move(temp);
        } else if (errno != EEXIST || attempt >= 16) {
          return fail_errno(errno, "cannot create '" + path + "'");
        }
      }
      // A file the caller owns keeps its permissions when it is replaced.
      if (exists && st.st_uid == ::geteuid()) (void)::fchmod(out.fd_, st.st_mode & 07777);
      return out;
    }
    case CreateMode::kAppend:
      if (exists) {
        PERFX_TRY(fd, open_existing(dir_fd, name, path, O_APPEND, "cannot append to"));
        struct stat now {};
        // The entry checked above, and the only name of that file: appending through a
        // hard link someone else made to a file of ours would write into that file.
        if (::fstat(fd, &now) != 0 || now.st_dev != st.st_dev || now.st_ino != st.st_ino) {
          ::close(fd);
          return lost_race(path);
        }
        if (now.st_nlink != 1) {
          ::close(fd);
          return fail(Errc::kInvalidArgument,
                      "'{}' has {} hard links: perfx appends only to a file with one name", path,
                      now.st_nlink);
        }
        out.fd_ = fd;
        return out;
      }
      break;
    case CreateMode::kNew:
      if (exists && ::unlinkat(dir_fd, name.c_str(), 0) != 0 && errno != ENOENT)
        return fail_errno(errno, "cannot replace '" + path + "'");
      break;
    case CreateMode::kNewKeepOld:
      if (exists) {
        if (S_ISREG(st.st_mode) && st.st_size == 0) {
          // Nothing worth keeping: perf truncates an empty file rather than keep it.
          if (::unlinkat(dir_fd, name.c_str(), 0) != 0 && errno != ENOENT)
            return fail_errno(errno, "cannot replace '" + path + "'");
          break;
        }
        const std::string old = name + ".old";
        struct stat old_st {};
        if (::fstatat(dir_fd, old.c_str(), &old_st, AT_SYMLINK_NOFOLLOW) == 0 &&
            S_ISDIR(old_st.st_mode)) {
          return fail(Errc::kIo, "cannot keep '{}' as '{}.old': that is a directory; remove it",
                      path, path);
        }
        // rename(2) works on names: a symlink at either name is moved or replaced itself.
        if (::renameat(dir_fd, name.c_str(), dir_fd, old.c_str()) != 0 && errno != ENOENT)
          return fail_errno(errno, "cannot rename '" + path + "' to '" + path + ".old'");
      }
      break;
  }
  PERFX_TRY(fd, create_exclusive(dir_fd, name, path, perms));
  out.fd_ = fd;
  return out;
}

Result<void> OutputFile::write(const void* data, std::size_t size) {
  if (!core::write_fully(fd_, data, size)) return fail_errno(errno, "cannot write '" + path_ + "'");
  return {};
}

Result<void> OutputFile::commit() {
  if (fd_ < 0 && temp_name_.empty()) return {};
  int err = 0;
  if (fd_ >= 0 && ::close(fd_) != 0) err = errno;
  fd_ = -1;
  if (err == 0 && !temp_name_.empty() &&
      ::renameat(dir_fd_, temp_name_.c_str(), dir_fd_, name_.c_str()) != 0)
    err = errno;
  if (err == 0) temp_name_.clear();
  discard();  // removes the temporary when it was not renamed
  if (err != 0) return fail_errno(err, "cannot write '" + path_ + "'");
  return {};
}

int OutputFile::release() noexcept {
  if (!temp_name_.empty()) return -1;
  const int fd = std::exchange(fd_, -1);
  discard();
  return fd;
}

}  // namespace perfx
