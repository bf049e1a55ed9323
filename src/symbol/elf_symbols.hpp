#pragma once
/// \file
/// Function symbols of an ELF file (.symtab or .dynsym) as perf reads them:
/// STT_FUNC/STT_GNU_IFUNC and text labels, duplicates resolved by perf's
/// choose_best_symbol().

#include <gelf.h>
#include <libelf.h>

#include <cstdint>
#include <vector>

#include "symbol/demangle.hpp"
#include "symbol/dso.hpp"
#include "symbol/name_arena.hpp"

namespace perfx::symbol {

/// A symbol as read, with its binding (which one wins among symbols at one address).
struct RawSym {
  Symbol sym;
  std::uint8_t bind = STB_GLOBAL;
};

/// Appends the STT_FUNC / STT_GNU_IFUNC defined symbols (and text-section labels) of the
/// first section of `type` (SHT_SYMTAB, SHT_DYNSYM) to `out`; names demangled into `names`.
void read_elf_symbols(Elf* elf, std::uint32_t type, DemangleOptions dm, NameArena& names,
                      std::vector<RawSym>& out);

/// Sorted, one symbol per address (perf's choose_best_symbol()), ends fixed up.
[[nodiscard]] SymbolTable dedup_and_finalize(std::vector<RawSym> raw);

}  // namespace perfx::symbol
