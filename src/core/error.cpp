#include "perfx/error.hpp"

#include <cstring>

namespace perfx {

Errc errc_from_errno(int err) noexcept {
  switch (err) {
    case EACCES:
    case EPERM:
      return Errc::kPermission;
    case ENOENT:
    case ESRCH:
      return Errc::kNotFound;
    case EOPNOTSUPP:
    case ENODEV:
    case ENOSYS:
      return Errc::kNotSupported;
    case EMFILE:
    case ENFILE:
    case ENOSPC:
    case ENOMEM:
    case EBUSY:
      return Errc::kResourceLimit;
    case EINVAL:
    case E2BIG:
    case EOVERFLOW:
    case EBADF:
      return Errc::kInvalidArgument;
    case EIO:
      return Errc::kIo;
    default:
      return Errc::kSystem;
  }
}

tl::unexpected<Error> fail_errno(int err, std::string what) {
  what += ": ";
  what += std::strerror(err);
  return tl::unexpected<Error>(Error(errc_from_errno(err), std::move(what), err));
}

}  // namespace perfx
