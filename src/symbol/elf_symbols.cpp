#include "symbol/elf_symbols.hpp"

#include <algorithm>
#include <cstring>
#include <string_view>

namespace perfx::symbol {

// Reads STT_FUNC / STT_GNU_IFUNC defined symbols of the first section of `type`.
void read_elf_symbols(Elf* elf, std::uint32_t type, DemangleOptions dm, NameArena& names,
                      std::vector<RawSym>& out) {
  for (Elf_Scn* scn = elf_nextscn(elf, nullptr); scn != nullptr; scn = elf_nextscn(elf, scn)) {
    GElf_Shdr shdr;
    if (gelf_getshdr(scn, &shdr) == nullptr || shdr.sh_type != type) continue;
    Elf_Data* data = elf_getdata(scn, nullptr);
    if (data == nullptr || shdr.sh_entsize == 0) return;
    std::size_t shstrndx = 0;
    elf_getshdrstrndx(elf, &shstrndx);
    const std::size_t count = shdr.sh_size / shdr.sh_entsize;
    for (std::size_t i = 0; i < count; ++i) {
      GElf_Sym sym;
      if (gelf_getsym(data, static_cast<int>(i), &sym) == nullptr) continue;
      const int st_type = GELF_ST_TYPE(sym.st_info);
      if (sym.st_name == 0 || sym.st_shndx == SHN_UNDEF) continue;
      if (st_type == STT_NOTYPE) {
        // perf keeps labels (asm entry points like _dl_start_user) in text sections.
        if (sym.st_shndx == SHN_ABS || sym.st_shndx >= SHN_LORESERVE) continue;
        GElf_Shdr sec;
        Elf_Scn* sscn = elf_getscn(elf, sym.st_shndx);
        if (sscn == nullptr || gelf_getshdr(sscn, &sec) == nullptr) continue;
        const char* secname = elf_strptr(elf, shstrndx, sec.sh_name);
        if (secname == nullptr || std::strstr(secname, "text") == nullptr) continue;
      } else if (st_type != STT_FUNC && st_type != STT_GNU_IFUNC) {
        continue;
      }
      const char* name = elf_strptr(elf, shdr.sh_link, sym.st_name);
      if (name == nullptr || *name == '\0') continue;
      RawSym r;
      r.sym.start = sym.st_value;
      r.sym.end = saturating_end(sym.st_value, sym.st_size);
      r.sym.name = names.add(demangle(name, dm));
      r.bind = static_cast<std::uint8_t>(GELF_ST_BIND(sym.st_info));
      out.push_back(std::move(r));
    }
    return;
  }
}

namespace {

std::size_t leading_underscores(std::string_view s) {
  std::size_t n = 0;
  while (n < s.size() && s[n] == '_') ++n;
  return n;
}

// perf's choose_best_symbol(): true when `a` should be kept over `b`.
bool better(const RawSym& a, const RawSym& b) {
  const bool as = a.sym.end > a.sym.start;
  const bool bs = b.sym.end > b.sym.start;
  if (as != bs) return as;
  const bool aw = a.bind == STB_WEAK;
  const bool bw = b.bind == STB_WEAK;
  if (aw != bw) return !aw;
  const bool ag = a.bind == STB_GLOBAL;
  const bool bg = b.bind == STB_GLOBAL;
  if (ag != bg) return ag;
  const auto au = leading_underscores(a.sym.name);
  const auto bu = leading_underscores(b.sym.name);
  if (au != bu) return au < bu;
  return a.sym.name.size() >= b.sym.name.size();
}

}  // namespace

SymbolTable dedup_and_finalize(std::vector<RawSym> raw) {
  std::stable_sort(raw.begin(), raw.end(),
                   [](const RawSym& a, const RawSym& b) { return a.sym.start < b.sym.start; });
  SymbolTable out;
  out.reserve(raw.size());
  for (std::size_t i = 0; i < raw.size();) {
    std::size_t best = i;
    std::size_t j = i + 1;
    for (; j < raw.size() && raw[j].sym.start == raw[i].sym.start; ++j)
      if (!better(raw[best], raw[j])) best = j;
    out.push_back(std::move(raw[best].sym));
    i = j;
  }
  finalize_symbols(out, false);
  return out;
}

}  // namespace perfx::symbol
