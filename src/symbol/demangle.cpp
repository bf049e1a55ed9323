#include "symbol/demangle.hpp"

#include <libiberty/demangle.h>

#include <cstdlib>
#include <memory>

namespace perfx::symbol {
namespace {

bool is_hex_lower(char c) { return (c >= '0' && c <= '9') || (c >= 'a' && c <= 'f'); }

// Rust legacy escapes, as listed in perf's tools/perf/util/demangle-rust.c.
struct Escape {
  std::string_view code;
  std::string_view text;
};
constexpr Escape kEscapes[] = {
    {"$SP$", "@"},  {"$BP$", "*"},  {"$RF$", "&"},  {"$LT$", "<"},  {"$GT$", ">"},  {"$LP$", "("},
    {"$RP$", ")"},  {"$C$", ","},   {"$u7e$", "~"}, {"$u20$", " "}, {"$u27$", "'"}, {"$u5b$", "["},
    {"$u5d$", "]"}, {"$u7b$", "{"}, {"$u7d$", "}"}, {"$u3b$", ";"}, {"$u2b$", "+"}, {"$u22$", "\""},
};

// In-place Rust legacy demangling of an already C++-demangled name: trims the hash
// and decodes escapes. Leaves the name alone if an escape is unknown (as perf).
std::string rust_legacy(std::string_view s) {
  s.remove_suffix(19);  // "::h" + 16 hex
  std::string out;
  out.reserve(s.size());
  for (std::size_t i = 0; i < s.size();) {
    // A path segment starting with '$' is written "_$..." by rustc: drop the '_'.
    if (s[i] == '_' && i + 1 < s.size() && s[i + 1] == '$' &&
        (i == 0 || (i >= 2 && s.substr(i - 2, 2) == "::"))) {
      ++i;
      continue;
    }
    if (s[i] == '$') {
      bool matched = false;
      for (const auto& e : kEscapes) {
        if (s.substr(i, e.code.size()) == e.code) {
          out += e.text;
          i += e.code.size();
          matched = true;
          break;
        }
      }
      if (!matched) return std::string(s);
    } else if (s[i] == '.') {
      if (i + 1 < s.size() && s[i + 1] == '.') {
        out += "::";
        i += 2;
      } else {
        out += '-';
        ++i;
      }
    } else {
      out += s[i++];
    }
  }
  return out;
}

}  // namespace

bool is_rust_legacy_demangled(std::string_view d) noexcept {
  if (d.size() < 19) return false;
  auto tail = d.substr(d.size() - 19);
  if (tail.substr(0, 3) != "::h") return false;
  for (char c : tail.substr(3))
    if (!is_hex_lower(c)) return false;
  return true;
}

std::string demangle(std::string_view name, DemangleOptions options) {
  // Every mangling libiberty knows starts with '_' (_Z: Itanium C++ and Rust legacy,
  // _R: Rust v0, _GLOBAL_$I$: old constructor names); perf passes every name.
  if (!options.enabled || name.size() < 3 || name[0] != '_') return std::string(name);
  std::string mangled(name);
  const int flags = options.params ? (DMGL_PARAMS | DMGL_ANSI) : DMGL_NO_OPTS;
  std::unique_ptr<char, decltype(&std::free)> out(cplus_demangle(mangled.c_str(), flags),
                                                  &std::free);
  if (!out) return mangled;
  std::string_view d(out.get());
  if (is_rust_legacy_demangled(d)) return rust_legacy(d);
  return std::string(d);
}

}  // namespace perfx::symbol
