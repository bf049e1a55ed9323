#include "symbol/file_text.hpp"

#include <fcntl.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <utility>

namespace perfx::symbol {
namespace {

// The rest of `fd` appended to `out`, in large reads; false on a read error.
bool read_all(int fd, std::string& out) {
  constexpr std::size_t kChunk = 1 << 16;
  for (;;) {
    const std::size_t old = out.size();
    // Into the reserved space when there is some (a regular file's size), else a chunk.
    const std::size_t want = out.capacity() > old ? out.capacity() - old : kChunk;
    out.resize(old + want);
    const ssize_t n = ::read(fd, out.data() + old, want);
    if (n < 0 && errno == EINTR) {
      out.resize(old);
      continue;
    }
    out.resize(old + static_cast<std::size_t>(n < 0 ? 0 : n));
    if (n <= 0) return n == 0;
  }
}

}  // namespace

std::optional<std::string> read_text_file(const std::string& path) {
  const int fd = ::open(path.c_str(), O_RDONLY | O_CLOEXEC);
  if (fd < 0) return std::nullopt;
  std::string out;
  struct stat st {};
  if (::fstat(fd, &st) == 0 && S_ISREG(st.st_mode) && st.st_size > 0)
    out.reserve(static_cast<std::size_t>(st.st_size) + 1);
  const bool ok = read_all(fd, out);
  ::close(fd);
  if (!ok) return std::nullopt;
  return out;
}

std::optional<FileText> FileText::open(const std::string& path) {
  const int fd = ::open(path.c_str(), O_RDONLY | O_CLOEXEC);
  if (fd < 0) return std::nullopt;
  auto f = from_fd(fd);
  ::close(fd);
  return f;
}

std::optional<FileText> FileText::from_fd(int fd) {
  FileText f;
  struct stat st {};
  bool ok = true;
  if (::fstat(fd, &st) == 0 && S_ISREG(st.st_mode) && st.st_size > 0) {
    void* p = ::mmap(nullptr, static_cast<std::size_t>(st.st_size), PROT_READ, MAP_PRIVATE, fd, 0);
    if (p != MAP_FAILED) {
      f.mapped_ = static_cast<const char*>(p);
      f.size_ = static_cast<std::size_t>(st.st_size);
    } else {
      ok = read_all(fd, f.buffer_);
    }
  } else {
    ok = read_all(fd, f.buffer_);
  }
  if (!ok) return std::nullopt;
  return f;
}

FileText::FileText(FileText&& other) noexcept
    : mapped_(std::exchange(other.mapped_, nullptr)),
      size_(std::exchange(other.size_, 0)),
      buffer_(std::move(other.buffer_)) {}

FileText& FileText::operator=(FileText&& other) noexcept {
  if (this != &other) {
    FileText old(std::move(*this));
    mapped_ = std::exchange(other.mapped_, nullptr);
    size_ = std::exchange(other.size_, 0);
    buffer_ = std::move(other.buffer_);
  }
  return *this;
}

FileText::~FileText() {
  if (mapped_ != nullptr) ::munmap(const_cast<char*>(mapped_), size_);
}

}  // namespace perfx::symbol
