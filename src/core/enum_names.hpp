#pragma once
/// \file
/// Names of enums whose enumerators count 0, 1, 2...: a table in enumerator order instead
/// of a switch (a static_assert next to the table keeps it as long as the enum).

#include <cstddef>
#include <iterator>

namespace perfx::core {

/// names[e], or `fallback` for a value past the table.
template <typename E, std::size_t N>
[[nodiscard]] constexpr const char* enum_name(const char* const (&names)[N], E e,
                                              const char* fallback) noexcept {
  const auto i = static_cast<std::size_t>(e);
  return i < N ? names[i] : fallback;
}

}  // namespace perfx::core
