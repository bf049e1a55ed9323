#pragma once
/// \file
/// Section lookup by name, shared by the symbol readers (dso.cpp, elf_plt.cpp).

#include <gelf.h>
#include <libelf.h>

#include <cstdint>
#include <optional>
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

/// The start address of the allocated section of `elf` that holds `addr` (a file
/// address), or nullopt when none does.
inline std::optional<std::uint64_t> section_at(Elf* elf, std::uint64_t addr) {
  for (Elf_Scn* scn = elf_nextscn(elf, nullptr); scn != nullptr; scn = elf_nextscn(elf, scn)) {
    GElf_Shdr shdr;
    if (gelf_getshdr(scn, &shdr) == nullptr || (shdr.sh_flags & SHF_ALLOC) == 0) continue;
    if (addr >= shdr.sh_addr && addr - shdr.sh_addr < shdr.sh_size) return shdr.sh_addr;
  }
  return std::nullopt;
}

}  // namespace perfx::symbol
