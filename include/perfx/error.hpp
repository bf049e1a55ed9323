#pragma once
/// \file
/// The perfx error model: recoverable failures are returned as `Result<T>`,
/// never thrown. An `Error` carries a category, the errno when it came from the
/// kernel, and a message built up in context layers, outermost first:
/// "opening event 'cycles:u' on cpu 3: no hardware PMU for this event ...".

#include <cerrno>
#include <string>
#include <string_view>
#include <utility>

#include <tl/expected.hpp>

#include "perfx/export.hpp"
namespace perfx {

/// What kind of failure an Error is; stable for callers that branch on it.
enum class Errc {
  kInvalidArgument,  ///< bad input from the caller (event spec, option, attr field)
  kNotFound,         ///< a named thing does not exist (event, PMU, file, symbol)
  kNotSupported,     ///< exists, but this machine/kernel cannot do it (no PMU, ...)
  kPermission,       ///< EACCES/EPERM: paranoid level, capabilities, file owner
  kResourceLimit,    ///< EMFILE, ENOSPC on breakpoints, mlock limit, ...
  kMalformedData,    ///< a file or buffer that does not decode (offset in message)
  kIo,               ///< read/write failure of a file or pipe
  kSystem,           ///< any other kernel failure (errno set)
};

/// A failure with an actionable message. Cheap to move; copying is fine too.
class PERFX_API Error {
 public:
  Error(Errc code, std::string message, int sys_errno = 0)
      : code_(code), errno_(sys_errno), message_(std::move(message)) {}

  /// The category of the failure.
  [[nodiscard]] Errc code() const noexcept { return code_; }
  /// The kernel errno this failure came from, or 0 when it did not come from a syscall.
  [[nodiscard]] int sys_errno() const noexcept { return errno_; }
  /// The full message, context layers first ("opening 'x': reading ...: reason").
  [[nodiscard]] const std::string& message() const noexcept { return message_; }

  /// Prepends a context layer: `err.context("opening event 'x'")` turns the message
  /// "no such event" into "opening event 'x': no such event".
  Error& context(std::string_view layer) & {
    message_ = std::string(layer) + ": " + message_;
    return *this;
  }
  /// Rvalue overload of context(), for `return std::move(err).context("...")`.
  Error&& context(std::string_view layer) && {
    message_ = std::string(layer) + ": " + message_;
    return std::move(*this);
  }

 private:
  Errc code_;
  int errno_;
  std::string message_;
};

/// Result of an operation that can fail recoverably.
template <typename T>
using Result = tl::expected<T, Error>;

/// Shorthand for returning a failure: `return fail(Errc::kNotFound, "no such event");`
[[nodiscard]] inline tl::unexpected<Error> fail(Errc code, std::string message) {
  return tl::unexpected<Error>(Error(code, std::move(message)));
}

/// A failure from a syscall: maps errno to a category and appends strerror.
[[nodiscard]] PERFX_API tl::unexpected<Error> fail_errno(int err, std::string what);

/// Category for a raw errno value (EACCES -> kPermission, ENOENT -> kNotFound, ...).
[[nodiscard]] PERFX_API Errc errc_from_errno(int err) noexcept;

}  // namespace perfx

/// Evaluates a Result expression; on failure returns its error from the enclosing function.
#define PERFX_TRY(var, expr)                                                   \
  auto var##_result_ = (expr);                                                 \
  if (!var##_result_) return tl::unexpected(std::move(var##_result_).error()); \
  auto var = std::move(*var##_result_)

/// Like PERFX_TRY for Result<void>.
#define PERFX_CHECK(expr)                                                                    \
  do {                                                                                       \
    auto perfx_check_result_ = (expr);                                                       \
    if (!perfx_check_result_) return tl::unexpected(std::move(perfx_check_result_).error()); \
  } while (0)
