#pragma once
/// \file
/// Section lookup by name, shared by the symbol readers (dso.cpp, elf_plt.cpp).

#include <gelf.h>
#include <libelf.h>

#include <string_view>

namespace perfx::symbol {

/// The first section of `elf` named `name`, its header in `*out`; nullptr if none.
inline Elf_Scn* find_section(Elf* elf, std::string_view name, GElf_Shdr* out) {
  std::size_t shstrndx = 0;
  if (elf_getshdrstrndx(elf, &shstrndx) != 0) return nullptr;
  for (Elf_Scn* scn = elf_nextscn(elf, nullptr); scn != nullptr; scn = elf_nextscn(elf, scn)) {
    GElf_Shdr shdr;
    if (gelf_getshdr(scn, &shdr) == nullptr) continue;
    const char* n = elf_strptr(elf, shstrndx, shdr.sh_name);
    if (n != nullptr && name == n) {
      *out = shdr;
      return scn;
    }
  }
  return nullptr;
}

}  // namespace perfx::symbol
