#include "symbol/elf_plt.hpp"

#include <gelf.h>

#include <string>

#include "symbol/elf_section.hpp"

namespace perfx::symbol {
namespace {

// perf's plt_header_size / plt_entry_size by machine (x86 and the default: sh_entsize).
void plt_sizes(const GElf_Ehdr& ehdr, const GElf_Shdr& plt, std::uint64_t& header,
               std::uint64_t& entry) {
  switch (ehdr.e_machine) {
    case EM_ARM:
      header = 20;
      entry = 12;
      break;
    case EM_AARCH64:
      header = 32;
      entry = 16;
      break;
    case EM_SPARC:
      header = 48;
      entry = 12;
      break;
    case EM_SPARCV9:
      header = 128;
      entry = 32;
      break;
    default:
      header = plt.sh_entsize;
      entry = plt.sh_entsize;
      break;
  }
}

}  // namespace

SymbolTable plt_symbols(Elf* elf, DemangleOptions dm, NameArena& names) {
  SymbolTable out;
  GElf_Ehdr ehdr;
  if (elf == nullptr || gelf_getehdr(elf, &ehdr) == nullptr) return out;
  GElf_Shdr dynsym_shdr;
  Elf_Scn* dynsym = find_section(elf, ".dynsym", &dynsym_shdr);
  if (dynsym == nullptr || dynsym_shdr.sh_type != SHT_DYNSYM) return out;
  GElf_Shdr rel_shdr;
  Elf_Scn* rel = find_section(elf, ".rela.plt", &rel_shdr);
  if (rel == nullptr) rel = find_section(elf, ".rel.plt", &rel_shdr);
  if (rel == nullptr || rel_shdr.sh_link != elf_ndxscn(dynsym) || rel_shdr.sh_entsize == 0 ||
      (rel_shdr.sh_type != SHT_RELA && rel_shdr.sh_type != SHT_REL))
    return out;
  GElf_Shdr plt_shdr;
  if (find_section(elf, ".plt", &plt_shdr) == nullptr || plt_shdr.sh_type == SHT_NOBITS) return out;
  Elf_Data* rels = elf_getdata(rel, nullptr);
  Elf_Data* syms = elf_getdata(dynsym, nullptr);
  if (rels == nullptr || syms == nullptr) return out;
  std::uint64_t header = 0;
  std::uint64_t entry = 0;
  plt_sizes(ehdr, plt_shdr, header, entry);
  // A .plt whose range wraps the address space is malformed (found by the fuzzer).
  if (entry == 0 || plt_shdr.sh_size > ~std::uint64_t{0} - plt_shdr.sh_addr ||
      header > plt_shdr.sh_size)
    return out;
  const std::uint64_t plt_end = plt_shdr.sh_addr + plt_shdr.sh_size;
  std::uint64_t addr = plt_shdr.sh_addr + header;
  const std::size_t count = rel_shdr.sh_size / rel_shdr.sh_entsize;
  // perf does not stop at the end of .plt; a table larger than .plt is malformed, and its
  // symbols would lie over other code: stop there instead.
  for (std::size_t i = 0; i < count && entry <= plt_end - addr; ++i, addr += entry) {
    std::uint64_t info = 0;
    if (rel_shdr.sh_type == SHT_RELA) {
      GElf_Rela r;
      if (gelf_getrela(rels, static_cast<int>(i), &r) == nullptr) break;
      info = r.r_info;
    } else {
      GElf_Rel r;
      if (gelf_getrel(rels, static_cast<int>(i), &r) == nullptr) break;
      info = r.r_info;
    }
    GElf_Sym sym;
    const char* name = nullptr;
    if (gelf_getsym(syms, static_cast<int>(GELF_R_SYM(info)), &sym) != nullptr)
      name = elf_strptr(elf, dynsym_shdr.sh_link, sym.st_name);
    const std::string full =
        (name != nullptr && *name != '\0' ? demangle(name, dm) : std::string()) + "@plt";
    out.push_back(Symbol{addr, addr + entry, names.add(full)});
  }
  return out;
}

}  // namespace perfx::symbol
