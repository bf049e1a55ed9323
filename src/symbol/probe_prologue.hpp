#pragma once
/// \file
/// perf probe's rules for where a function's arguments are readable (libdw): whether a
/// compilation unit counts as optimized, and the address after a function's prologue.

#include <elfutils/libdw.h>

namespace perfx::symbol {

/// perf's die_is_optimized_target(): true when some parameter or variable of `cu` has a
/// location list in DW_FORM_sec_offset (what gcc emits at -O1 and up, and clang with
/// DWARF 4; clang's DWARF 5 lists are DW_FORM_loclistx and do not count, as in perf 6.1).
[[nodiscard]] bool cu_is_optimized(Dwarf_Die& cu);

/// perf's die_skip_prologue(): from the first line-table row at `entry`, the next row's
/// address, or `entry` itself when that row is marked prologue_end; the previous row's
/// when the next one is at or past the function's end. `entry` when the line table has
/// no row at `entry`.
[[nodiscard]] Dwarf_Addr after_prologue(Dwarf_Die& cu, Dwarf_Die& func, Dwarf_Addr entry);

}  // namespace perfx::symbol
