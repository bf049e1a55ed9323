// ELF-file DSOs (executables, libraries, the vdso): the file or perf's build-id cache
// copy, its PT_LOADs, and symbols from its debug file, .symtab or .dynsym plus PLT stubs.
#include <algorithm>
#include <charconv>
#include <cstdint>
#include <iterator>
#include <sstream>
#include <string>
#include <vector>

#include "symbol/dso_impl.hpp"
#include "symbol/elf_plt.hpp"
#include "symbol/elf_symbols.hpp"

namespace perfx::symbol {

void Dso::Impl::load_elf(const Dso& self) const {
  const std::string& path = self.path_;
  std::string used = paths.symfs + path;  // perf's --symfs prefix
  if (self.kind_ == DsoKind::kVdso) {
    used.clear();
    if (recorded_build_id.size() > 2) {
      std::string cached = home_debug_dir(paths) + "/[vdso]/" + recorded_build_id + "/vdso";
      if (file_exists(cached)) used = cached;
    }
    if (used.empty() && paths.symfs.empty()) {
      // Our own process's vdso: same kernel, so the same image as the recorded one
      // unless the build-ids say otherwise (checked below).
      auto maps = read_text_file("/proc/self/maps");
      if (maps) {
        std::istringstream in(*maps);
        std::string line;
        while (std::getline(in, line)) {
          if (line.find("[vdso]") == std::string::npos) continue;
          std::uint64_t lo = 0;
          std::uint64_t hi = 0;
          auto dash = line.find('-');
          auto sp = line.find(' ');
          std::from_chars(line.data(), line.data() + dash, lo, 16);
          std::from_chars(line.data() + dash + 1, line.data() + sp, hi, 16);
          if (hi > lo) {
            main_elf = ElfFile(reinterpret_cast<const char*>(lo), hi - lo);
          }
          break;
        }
      }
    }
  }
  if (!used.empty()) {
    main_elf = ElfFile(used);
    if (main_elf) file_path = used;
  }
  if (!main_elf) {
    warning = "cannot open '" + path + "'";
    return;
  }
  build_id = elf_build_id(main_elf.get());
  if (!recorded_build_id.empty() && !build_id.empty() && build_id != recorded_build_id) {
    // The file changed since the recording: try perf's build-id cache.
    std::string cached = home_debug_dir(paths) + "/.build-id/" + recorded_build_id.substr(0, 2) +
                         "/" + recorded_build_id.substr(2) + "/elf";
    ElfFile c(cached);
    if (c && elf_build_id(c.get()) == recorded_build_id) {
      main_elf = std::move(c);
      file_path = cached;
      build_id = recorded_build_id;
    } else {
      warning = "'" + path + "' has build-id " + build_id + " but the recording has " +
                recorded_build_id + ": symbols may be wrong";
    }
  }
  // PT_LOAD segments for file offset -> vaddr.
  std::size_t phnum = 0;
  if (elf_getphdrnum(main_elf.get(), &phnum) == 0) {
    for (std::size_t i = 0; i < phnum; ++i) {
      GElf_Phdr ph;
      if (gelf_getphdr(main_elf.get(), static_cast<int>(i), &ph) == nullptr) continue;
      if (ph.p_type != PT_LOAD) continue;
      loads.push_back({ph.p_offset, ph.p_filesz, ph.p_vaddr});
    }
  }
  std::vector<RawSym> raw;
  const DemangleOptions dm = paths.demangle_options();
  std::string debug_path =
      self.kind_ == DsoKind::kVdso ? std::string{} : find_debug_file(path, main_elf.get());
  if (!debug_path.empty()) {
    debug_elf = ElfFile(debug_path);
    if (debug_elf) debug_file = debug_path;
    if (debug_elf && has_section_type(debug_elf.get(), SHT_SYMTAB))
      read_elf_symbols(debug_elf.get(), SHT_SYMTAB, dm, names, raw);
  }
  if (raw.empty()) read_elf_symbols(main_elf.get(), SHT_SYMTAB, dm, names, raw);
  if (raw.empty()) read_elf_symbols(main_elf.get(), SHT_DYNSYM, dm, names, raw);
  symbols = dedup_and_finalize(std::move(raw));
  // perf adds its synthesized `name@plt` symbols after the file's own (explicit sizes,
  // so no end fix-up); a lookup in .plt finds them as the innermost symbol there.
  auto plt = plt_symbols(main_elf.get(), dm, names);
  if (!plt.empty()) {
    SymbolTable merged;
    merged.reserve(symbols.size() + plt.size());
    std::merge(symbols.begin(), symbols.end(), plt.begin(), plt.end(), std::back_inserter(merged),
               [](const Symbol& a, const Symbol& b) { return a.start < b.start; });
    symbols = std::move(merged);
  }
}

// perf's dso__load_vmlinux() for -k: the file's .symtab, moved by the distance between
// the running kernel's _text (the kernel map's pgoff) and the file's (KASLR). A file that
// is not ELF leaves the kernel without symbols, as in perf.
void Dso::Impl::load_vmlinux() const {
  main_elf = ElfFile(paths.vmlinux);
  if (!main_elf) {
    warning = "cannot read '" + paths.vmlinux + "' as a vmlinux: kernel addresses are left " +
              "unresolved";
    return;
  }
  file_path = paths.vmlinux;
  build_id = elf_build_id(main_elf.get());
  std::vector<RawSym> raw;
  read_elf_symbols(main_elf.get(), SHT_SYMTAB, paths.demangle_options(), names, raw);
  std::uint64_t file_text = 0;
  for (const auto& r : raw)
    if (r.sym.name == "_text") file_text = r.sym.start;
  if (kernel_text != 0 && file_text != 0) {
    for (auto& r : raw) {
      r.sym.start += kernel_text - file_text;
      r.sym.end += kernel_text - file_text;
    }
  }
  symbols = dedup_and_finalize(std::move(raw));
}

}  // namespace perfx::symbol
