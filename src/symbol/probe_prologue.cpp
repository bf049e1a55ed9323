// perf probe's prologue rules with libdw (tools/perf/util/dwarf-aux.c in perf 6.1).

#include "symbol/probe_prologue.hpp"

#include <dwarf.h>

#include <vector>

namespace perfx::symbol {
namespace {

bool has_location_list(Dwarf_Die& die) {
  const int tag = dwarf_tag(&die);
  if (tag != DW_TAG_formal_parameter && tag != DW_TAG_variable) return false;
  Dwarf_Attribute loc;
  return dwarf_attr_integrate(&die, DW_AT_location, &loc) != nullptr &&
         dwarf_whatform(&loc) == DW_FORM_sec_offset;
}

}  // namespace

bool cu_is_optimized(Dwarf_Die& cu) {
  // Every DIE of the unit, depth first, without recursion (deep type trees).
  std::vector<Dwarf_Die> todo{cu};
  while (!todo.empty()) {
    Dwarf_Die die = todo.back();
    todo.pop_back();
    if (has_location_list(die)) return true;
    Dwarf_Die child;
    if (dwarf_child(&die, &child) != 0) continue;
    do {
      todo.push_back(child);
    } while (dwarf_siblingof(&child, &child) == 0);
  }
  return false;
}

Dwarf_Addr after_prologue(Dwarf_Die& cu, Dwarf_Die& func, Dwarf_Addr entry) {
  Dwarf_Addr high = 0;
  Dwarf_Lines* lines = nullptr;
  std::size_t n = 0;
  if (dwarf_highpc(&func, &high) != 0 || dwarf_getsrclines(&cu, &lines, &n) != 0) return entry;
  std::size_t idx = n;
  for (std::size_t i = 0; i < n; ++i) {
    Dwarf_Addr a = 0;
    if (dwarf_lineaddr(dwarf_onesrcline(lines, i), &a) != 0) return entry;
    if (a == entry) {
      idx = i;
      break;
    }
  }
  if (idx == n) return entry;
  // perf's die_get_postprologue_addr(): the loop stops at the entry row when it is
  // marked prologue_end, else at the next row whatever it says.
  bool prologue_end = false;
  if (dwarf_lineprologueend(dwarf_onesrcline(lines, idx), &prologue_end) != 0) return entry;
  std::size_t stop = prologue_end || idx + 1 == n ? idx : idx + 1;
  Dwarf_Addr post = 0;
  if (dwarf_lineaddr(dwarf_onesrcline(lines, stop), &post) != 0) return entry;
  if (post >= high && stop > 0 && dwarf_lineaddr(dwarf_onesrcline(lines, stop - 1), &post) != 0)
    return entry;
  return post;
}

}  // namespace perfx::symbol
