#pragma once
/// \file
/// Whole-buffer writes to a file descriptor.

#include <unistd.h>

#include <cerrno>
#include <cstddef>

namespace perfx::core {

/// write(2) of all `n` bytes, retried after a short write and on EINTR; false on error
/// (errno says which). `written`, when given, counts the bytes that reached the file,
/// also when it fails part-way.
inline bool write_fully(int fd, const void* data, std::size_t n, std::size_t* written = nullptr) {
  const auto* p = static_cast<const char*>(data);
  std::size_t done = 0;
  bool ok = true;
  while (done < n) {
    const ssize_t w = ::write(fd, p + done, n - done);
    if (w < 0 && errno == EINTR) continue;
    if (w <= 0) {
      if (w == 0) errno = EIO;
      ok = false;
      break;
    }
    done += static_cast<std::size_t>(w);
  }
  if (written != nullptr) *written = done;
  return ok;
}

}  // namespace perfx::core
