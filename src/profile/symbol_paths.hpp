#pragma once
/// \file
/// SymbolNaming -> symbol::SearchPaths, with perf's rules for --symfs (joined to every
/// path symbols are read from) and --kallsyms (that file alone, for any kernel): one
/// place for report's profile load and script's replay.

#include "profile/symbol_naming.hpp"
#include "symbol/dso.hpp"

namespace perfx::profile {

[[nodiscard]] symbol::SearchPaths search_paths(const SymbolNaming& naming);

}  // namespace perfx::profile
