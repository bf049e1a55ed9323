// JIT maps: /tmp/perf-PID.map, written by JITs (V8, the JVM's perf-map-agent, ...).
#include <charconv>
#include <string_view>

#include "symbol/demangle.hpp"
#include "symbol/dso.hpp"

namespace perfx::symbol {

SymbolTable parse_jit_map(std::string_view text, NameArena& names) {
  SymbolTable out;
  while (!text.empty()) {
    auto nl = text.find('\n');
    std::string_view line = text.substr(0, nl);
    text = nl == std::string_view::npos ? std::string_view{} : text.substr(nl + 1);
    auto sp1 = line.find(' ');
    if (sp1 == std::string_view::npos) continue;
    auto sp2 = line.find(' ', sp1 + 1);
    if (sp2 == std::string_view::npos) continue;
    std::string_view a = line.substr(0, sp1);
    std::string_view z = line.substr(sp1 + 1, sp2 - sp1 - 1);
    if (a.starts_with("0x")) a.remove_prefix(2);
    if (z.starts_with("0x")) z.remove_prefix(2);
    std::uint64_t start = 0;
    std::uint64_t size = 0;
    if (std::from_chars(a.data(), a.data() + a.size(), start, 16).ec != std::errc{}) continue;
    if (std::from_chars(z.data(), z.data() + z.size(), size, 16).ec != std::errc{}) continue;
    std::string_view name = line.substr(sp2 + 1);
    while (!name.empty() && (name.back() == '\r' || name.back() == ' ')) name.remove_suffix(1);
    out.push_back(Symbol{start, saturating_end(start, size), names.add(demangle(name))});
  }
  finalize_symbols(out, false);
  return out;
}

}  // namespace perfx::symbol
