#pragma once
// Formatting helpers for perfx::Error, internal to perfx (the public error.hpp takes
// plain strings so that installed headers do not depend on fmt; see docs/design.md).

#include <fmt/format.h>

#include <utility>

#include "perfx/error.hpp"

namespace perfx {

/// `return fail(Errc::kNotFound, "no event '{}'", name);` — fail() with a fmt message.
/// A call with no arguments after the string goes to the plain-string fail() in error.hpp.
template <typename... Args>
requires(sizeof...(Args) > 0)
    [[nodiscard]] tl::unexpected<Error> fail(Errc code, fmt::format_string<Args...> fmt_str,
                                             Args&&... args) {
  return tl::unexpected<Error>(Error(code, fmt::format(fmt_str, std::forward<Args>(args)...)));
}

}  // namespace perfx
