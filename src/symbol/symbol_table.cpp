// Symbol tables common to every symbol source: sorted [start, end) ranges with perf's
// end fix-ups (symbols__fixup_end).
#include <algorithm>
#include <string>

#include "symbol/dso.hpp"

namespace perfx::symbol {

namespace {
// The next page boundary after `addr`, plus one page; saturates at the top of the address
// space (an address in the last pages must not wrap the end below the start).
std::uint64_t page_end_plus_page(std::uint64_t addr) {
  constexpr std::uint64_t kMax = ~std::uint64_t{0};
  if (addr > kMax - 8191) return kMax;
  return (addr + 4095) / 4096 * 4096 + 4096;
}
}  // namespace

void finalize_symbols(SymbolTable& syms, bool kallsyms) {
  auto by_start = [](const Symbol& a, const Symbol& b) { return a.start < b.start; };
  // /proc/kallsyms and most symbol tables come sorted: skip the merge sort's copies.
  if (!std::is_sorted(syms.begin(), syms.end(), by_start))
    std::stable_sort(syms.begin(), syms.end(), by_start);
  for (std::size_t i = 0; i + 1 < syms.size(); ++i) {
    Symbol& prev = syms[i];
    const Symbol& curr = syms[i + 1];
    if (prev.end == prev.start) {
      const bool pm = prev.name.find('[') != std::string::npos;
      const bool cm = curr.name.find('[') != std::string::npos;
      if (kallsyms && pm != cm)
        prev.end = page_end_plus_page(prev.end);
      else
        prev.end = curr.start;
    }
  }
  if (!syms.empty() && syms.back().end == syms.back().start)
    syms.back().end = page_end_plus_page(syms.back().start);
}

}  // namespace perfx::symbol
