// ELF symbol -> file offset (for uprobes), with libelf.

#include "symbol/elf_symbol_offset.hpp"

#include <fcntl.h>
#include <gelf.h>
#include <libelf.h>
#include <unistd.h>

#include <cerrno>
#include <memory>
#include <optional>

#include "core/error_format.hpp"

namespace perfx::symbol {
namespace {

// An ELF file open for reading: libelf's handle and its descriptor, closed together.
class ElfFile {
 public:
  ElfFile(const ElfFile&) = delete;
  ElfFile& operator=(const ElfFile&) = delete;
  ~ElfFile() {
    if (elf_ != nullptr) elf_end(elf_);
    if (fd_ >= 0) ::close(fd_);
  }

  static Result<std::unique_ptr<ElfFile>> open(const std::string& path) {
    if (elf_version(EV_CURRENT) == EV_NONE) {
      return fail(Errc::kSystem, "libelf initialisation failed: {}", elf_errmsg(-1));
    }
    const int fd = ::open(path.c_str(), O_RDONLY | O_CLOEXEC);
    if (fd < 0) return fail_errno(errno, "opening '" + path + "'");
    std::unique_ptr<ElfFile> file(new ElfFile(fd));
    file->elf_ = elf_begin(fd, ELF_C_READ, nullptr);
    if (file->elf_ == nullptr || elf_kind(file->elf_) != ELF_K_ELF) {
      return fail(Errc::kMalformedData, "'{}' is not an ELF file", path);
    }
    return file;
  }
  [[nodiscard]] Elf* get() const { return elf_; }

 private:
  explicit ElfFile(int fd) : fd_(fd) {}
  int fd_;
  Elf* elf_ = nullptr;
};

struct Found {
  GElf_Addr value = 0;
  bool is_func = false;
};

// Searches one symbol table section; keeps the best match in `best`.
void search_symtab(Elf* elf, Elf_Scn* scn, const GElf_Shdr& shdr, std::string_view symbol,
                   std::optional<Found>& best) {
  Elf_Data* data = elf_getdata(scn, nullptr);
  if (data == nullptr || shdr.sh_entsize == 0) return;
  const std::size_t count = shdr.sh_size / shdr.sh_entsize;
  for (std::size_t i = 0; i < count; ++i) {
    GElf_Sym sym;
    if (gelf_getsym(data, static_cast<int>(i), &sym) == nullptr) break;
    if (sym.st_shndx == SHN_UNDEF || sym.st_name == 0) continue;
    const char* name = elf_strptr(elf, shdr.sh_link, sym.st_name);
    if (name == nullptr || symbol != name) continue;
    const bool func =
        GELF_ST_TYPE(sym.st_info) == STT_FUNC || GELF_ST_TYPE(sym.st_info) == STT_GNU_IFUNC;
    if (!best || (func && !best->is_func)) best = Found{sym.st_value, func};
  }
}

// vaddr -> file offset through the PT_LOAD segment that holds it.
std::optional<std::uint64_t> segment_offset(Elf* elf, GElf_Addr vaddr) {
  std::size_t phnum = 0;
  if (elf_getphdrnum(elf, &phnum) != 0) return std::nullopt;
  for (std::size_t i = 0; i < phnum; ++i) {
    GElf_Phdr phdr;
    if (gelf_getphdr(elf, static_cast<int>(i), &phdr) == nullptr) continue;
    if (phdr.p_type != PT_LOAD) continue;
    if (vaddr >= phdr.p_vaddr && vaddr < phdr.p_vaddr + phdr.p_filesz) {
      return vaddr - phdr.p_vaddr + phdr.p_offset;
    }
  }
  return std::nullopt;
}

}  // namespace

Result<std::uint64_t> elf_symbol_file_offset(const std::string& path, std::string_view symbol) {
  PERFX_TRY(file, ElfFile::open(path));
  Elf* elf = file->get();
  GElf_Ehdr ehdr;
  if (gelf_getehdr(elf, &ehdr) == nullptr) {
    return fail(Errc::kMalformedData, "'{}': bad ELF header: {}", path, elf_errmsg(-1));
  }
  std::optional<Found> best;
  for (const Elf64_Word want : {Elf64_Word{SHT_SYMTAB}, Elf64_Word{SHT_DYNSYM}}) {
    Elf_Scn* scn = nullptr;
    while ((scn = elf_nextscn(elf, scn)) != nullptr) {
      GElf_Shdr shdr;
      if (gelf_getshdr(scn, &shdr) == nullptr || shdr.sh_type != want) continue;
      search_symtab(elf, scn, shdr, symbol, best);
    }
    if (best) break;
  }
  if (!best) return fail(Errc::kNotFound, "no symbol '{}' in '{}'", symbol, path);

  auto off = segment_offset(elf, best->value);
  if (!off) {
    return fail(Errc::kMalformedData,
                "symbol '{}' in '{}' (address {:#x}) is in no loadable segment of the file", symbol,
                path, best->value);
  }
  return *off;
}

Result<std::uint64_t> elf_address_file_offset(const std::string& path, std::uint64_t vaddr) {
  PERFX_TRY(file, ElfFile::open(path));
  Elf* elf = file->get();
  auto off = segment_offset(elf, vaddr);
  if (!off) {
    return fail(Errc::kMalformedData, "address {:#x} is in no loadable segment of '{}'", vaddr,
                path);
  }
  return *off;
}

}  // namespace perfx::symbol
