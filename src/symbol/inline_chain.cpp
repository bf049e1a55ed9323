// Inline chains: the DWARF scopes at an address, innermost first, each with the call
// site of the inline inside it (as eu-addr2line -i and perf's inline_list).
#include <dwarf.h>
#include <elfutils/libdw.h>

#include <cstdlib>
#include <string>
#include <vector>

#include "symbol/demangle.hpp"
#include "symbol/dso_impl.hpp"

namespace perfx::symbol {

namespace {

const char* die_name(Dwarf_Die* die) {
  Dwarf_Attribute attr;
  const char* name = nullptr;
  if (dwarf_attr_integrate(die, DW_AT_linkage_name, &attr) != nullptr ||
      dwarf_attr_integrate(die, DW_AT_MIPS_linkage_name, &attr) != nullptr)
    name = dwarf_formstring(&attr);
  if (name == nullptr) name = dwarf_diename(die);
  return name;
}

// gas emits one DW_TAG_subprogram per alias of an assembler function, all with the same
// range (glibc's syscall stubs: __munmap, __GI___munmap, munmap, __GI_munmap). libdw's
// scopes give the first; binutils' addr2line, which perf 6.1 runs for inline scopes,
// names the address after the last of those covering it with the same extent. Only for
// assembler CUs, which are a few DIEs long.
Dwarf_Die last_alias_subprogram(Dwarf_Die* cu, Dwarf_Die chosen, Dwarf_Addr addr) {
  Dwarf_Addr lo = 0;
  Dwarf_Addr hi = 0;
  if (dwarf_lowpc(&chosen, &lo) != 0 || dwarf_highpc(&chosen, &hi) != 0) return chosen;
  Dwarf_Die child;
  if (dwarf_child(cu, &child) != 0) return chosen;
  do {
    Dwarf_Addr clo = 0;
    Dwarf_Addr chi = 0;
    if (dwarf_tag(&child) == DW_TAG_subprogram && dwarf_haspc(&child, addr) == 1 &&
        dwarf_lowpc(&child, &clo) == 0 && dwarf_highpc(&child, &chi) == 0 && chi - clo == hi - lo)
      chosen = child;
  } while (dwarf_siblingof(&child, &child) == 0);
  return chosen;
}

}  // namespace

std::vector<InlineFrame> Dso::inline_chain(std::uint64_t addr) const {
  std::vector<InlineFrame> out;
  auto leaf = srcline(addr);  // may come from the source-line cache, without DWARF
  if (!leaf) return out;
  std::lock_guard lock(impl_->dwarf_mutex);
  Dwarf_Die cu;
  if (!impl_->open_dwarf() || !impl_->find_cu(addr, &cu)) return out;
  std::string file = leaf->first;
  std::uint32_t line = leaf->second;
  Dwarf_Files* files = nullptr;
  std::size_t nfiles = 0;
  dwarf_getsrcfiles(&cu, &files, &nfiles);
  // The innermost function scope at addr; dwarf_getscopes() stops at the abstract
  // origin of an inline, so each step outwards asks for the scopes of the concrete
  // inlined_subroutine DIE itself (as eu-addr2line -i does).
  auto first_function = [](Dwarf_Die* list, int count, int from, Dwarf_Die* found) {
    for (int i = from; i < count; ++i) {
      const int tag = dwarf_tag(&list[i]);
      if (tag == DW_TAG_inlined_subroutine || tag == DW_TAG_subprogram) {
        *found = list[i];
        return true;
      }
    }
    return false;
  };
  Dwarf_Die* scopes = nullptr;
  const int n = dwarf_getscopes(&cu, addr, &scopes);
  Dwarf_Die die;
  bool have = n > 0 && first_function(scopes, n, 0, &die);
  std::free(scopes);
  if (have && dwarf_tag(&die) == DW_TAG_subprogram && dwarf_srclang(&cu) == DW_LANG_Mips_Assembler)
    die = last_alias_subprogram(&cu, die, addr);
  for (int depth = 0; have && depth < 64; ++depth) {
    const int tag = dwarf_tag(&die);
    const char* name = die_name(&die);
    out.push_back(InlineFrame{name != nullptr ? demangle(name, impl_->paths.demangle_options())
                                              : std::string("[unknown]"),
                              file, line});
    if (tag != DW_TAG_inlined_subroutine) break;
    // The caller's location is this inline's call site.
    Dwarf_Attribute attr;
    Dwarf_Word call_file = 0;
    Dwarf_Word call_line = 0;
    if (dwarf_formudata(dwarf_attr(&die, DW_AT_call_file, &attr), &call_file) == 0 &&
        files != nullptr && call_file < nfiles) {
      file = addr2line_file_name(&cu, files, call_file,
                                 dwarf_filesrc(files, call_file, nullptr, nullptr));
    }
    if (dwarf_formudata(dwarf_attr(&die, DW_AT_call_line, &attr), &call_line) == 0)
      line = static_cast<std::uint32_t>(call_line);
    Dwarf_Die* outer = nullptr;
    const int m = dwarf_getscopes_die(&die, &outer);
    have = m > 1 && first_function(outer, m, 1, &die);
    std::free(outer);
  }
  return out;
}

}  // namespace perfx::symbol
