#pragma once
/// \file
/// Symbol-name demangling as perf shows names: C++ through the C++ ABI's
/// __cxa_demangle (with parameter lists, as perf built without libbfd), Rust legacy
/// names (_ZN...17h<16 hex>E) with the hash trimmed and $LT$-style escapes decoded,
/// the same way perf's rust_demangle_sym() does.

#include <string>
#include <string_view>

namespace perfx::symbol {

/// Demangles `name` when it is a mangled C++ or Rust (legacy) name; returns it
/// unchanged otherwise (C names, already readable names, malformed manglings).
[[nodiscard]] std::string demangle(std::string_view name);

/// True when `demangled` ends in a Rust legacy hash ("::h" + 16 hex digits).
[[nodiscard]] bool is_rust_legacy_demangled(std::string_view demangled) noexcept;

}  // namespace perfx::symbol
