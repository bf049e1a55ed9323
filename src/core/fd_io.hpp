#pragma once
/// \file
/// Whole-buffer writes to a file descriptor.

#include <unistd.h>

#include <cerrno>
#include <cstddef>

namespace perfx::core {

/// write(2) of all `n` bytes, retried after a short write and on EINTR; false on error
/// (errno says which).
inline bool write_fully(int fd, const char* p, std::size_t n) {
  while (n > 0) {
    const ssize_t w = ::write(fd, p, n);
    if (w < 0 && errno == EINTR) continue;
    if (w < 0) return false;
    if (w == 0) {
      errno = EIO;
      return false;
    }
    p += w;
    n -= static_cast<std::size_t>(w);
  }
  return true;
}

}  // namespace perfx::core
