#pragma once
/// \file
/// Symbol-name demangling as perf 6.1 shows names. perf (built without libbfd, as
/// Debian's) calls libiberty's cplus_demangle() with DMGL_NO_OPTS, so C++ names come
/// without parameter lists, return types or clone suffixes (`ns::Box<long>::spin`),
/// and with DMGL_PARAMS | DMGL_ANSI under `perf report -v` (`ns::Box<long>::spin(long)
/// const [clone .isra.0]`). We call the same libiberty function. It also demangles Rust
/// legacy (hash trimmed) and Rust v0 (`_R...`, crate disambiguators left out) names.
/// Rust legacy names that libiberty leaves with their hash are trimmed and their
/// $LT$-style escapes decoded the way perf's rust_demangle_sym() does.

#include <string>
#include <string_view>

namespace perfx::symbol {

/// How much of a C++ signature to keep.
struct DemangleOptions {
  /// Parameter lists, cv-qualifiers and clone suffixes (perf report -v); false = perf's
  /// default, the qualified name only.
  bool params = false;
  /// false: names as the binary has them (perf's --no-demangle).
  bool enabled = true;
};

/// Demangles `name` when it is a mangled C++ or Rust (legacy or v0) name; returns it
/// unchanged otherwise (C names, already readable names, malformed manglings).
[[nodiscard]] std::string demangle(std::string_view name, DemangleOptions options = {});

/// True when `demangled` ends in a Rust legacy hash ("::h" + 16 hex digits).
[[nodiscard]] bool is_rust_legacy_demangled(std::string_view demangled) noexcept;

}  // namespace perfx::symbol
