#include "symbol/elf_file.hpp"

#include <cstring>

#include "core/build_id_note.hpp"
#include "symbol/elf_section.hpp"

namespace perfx::symbol {

bool same_build_id(std::string_view a, std::string_view b) {
  if (a.size() > b.size()) std::swap(a, b);
  return b.starts_with(a) && b.find_first_not_of('0', a.size()) == std::string_view::npos;
}

std::string elf_build_id(Elf* elf) {
  for (Elf_Scn* scn = elf_nextscn(elf, nullptr); scn != nullptr; scn = elf_nextscn(elf, scn)) {
    GElf_Shdr shdr;
    if (gelf_getshdr(scn, &shdr) == nullptr || shdr.sh_type != SHT_NOTE) continue;
    Elf_Data* data = elf_getdata(scn, nullptr);
    if (data == nullptr) continue;
    std::size_t off = 0;
    GElf_Nhdr nhdr;
    std::size_t name_off = 0;
    std::size_t desc_off = 0;
    while ((off = gelf_getnote(data, off, &nhdr, &name_off, &desc_off)) > 0) {
      if (nhdr.n_type == NT_GNU_BUILD_ID && nhdr.n_namesz == 4 &&
          std::memcmp(static_cast<const char*>(data->d_buf) + name_off, "GNU", 4) == 0) {
        return core::build_id_hex(static_cast<const std::uint8_t*>(data->d_buf) + desc_off,
                                  nhdr.n_descsz);
      }
    }
  }
  return {};
}

std::string elf_debuglink(Elf* elf) {
  GElf_Shdr shdr;
  Elf_Scn* scn = find_section(elf, ".gnu_debuglink", &shdr);
  if (scn == nullptr) return {};
  Elf_Data* data = elf_getdata(scn, nullptr);
  // A SHT_NOBITS .gnu_debuglink has a size but no bytes (found by the fuzzer).
  if (data == nullptr || data->d_size == 0 || data->d_buf == nullptr) return {};
  const char* p = static_cast<const char*>(data->d_buf);
  return std::string(p, strnlen(p, data->d_size));
}

bool has_section_type(Elf* elf, std::uint32_t type) {
  for (Elf_Scn* scn = elf_nextscn(elf, nullptr); scn != nullptr; scn = elf_nextscn(elf, scn)) {
    GElf_Shdr shdr;
    if (gelf_getshdr(scn, &shdr) != nullptr && shdr.sh_type == type) return true;
  }
  return false;
}

}  // namespace perfx::symbol
