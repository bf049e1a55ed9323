#pragma once
/// \file
/// perf 6.1's synthesized PLT symbols (`dso__synthesize_plt_symbols`): one `name@plt`
/// symbol per .rela.plt (or .rel.plt) entry, laid out over .plt after its header, each
/// one .plt entry (sh_entsize) long. IRELATIVE slots have no symbol and are named
/// `@plt`, as perf 6.1 names them. perf 6.2 learned .plt.sec; 6.1 did not, nor do we.

#include <libelf.h>

#include <vector>

#include "symbol/demangle.hpp"
#include "symbol/dso.hpp"
#include "symbol/name_arena.hpp"

namespace perfx::symbol {

/// The PLT symbols of `elf` (the runtime file, whose .dynsym the relocations name),
/// sorted by address (ELF vaddr); empty when it has no .plt, no .rel[a].plt tied to its
/// .dynsym, or malformed tables. Names are stored in `names`.
[[nodiscard]] SymbolTable plt_symbols(Elf* elf, DemangleOptions dm, NameArena& names);

}  // namespace perfx::symbol
