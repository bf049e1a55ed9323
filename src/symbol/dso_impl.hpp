#pragma once
// The private state of a Dso, shared by the files that load it by symbol source:
// dso.cpp (dispatch, lookups), dso_elf.cpp (ELF files, vdso), debug_file.cpp (separate
// debug files), kallsyms.cpp (kernel and modules), dso_dwarf.cpp (source lines) and
// inline_chain.cpp (DWARF inline scopes). Not for use outside src/symbol.

#include <elfutils/libdw.h>

#include <cstdint>
#include <mutex>
#include <optional>
#include <string>
#include <vector>

#include "symbol/debug_sections.hpp"
#include "symbol/dso.hpp"
#include "symbol/elf_file.hpp"
#include "symbol/file_text.hpp"
#include "symbol/srcline_cache.hpp"

namespace perfx::symbol {

/// perf's build-id cache directory: SearchPaths::buildid_dir, else $HOME/.debug.
[[nodiscard]] std::string home_debug_dir(const SearchPaths& p);

/// True when `p` can be read.
[[nodiscard]] bool file_exists(const std::string& p);

/// The name GNU addr2line (binutils 2.40, which perf 6.1 runs for source lines and inline
/// call sites) gives file `index` of `cu`'s line table: in a DWARF 5 unit it names file 1
/// after file 0, the unit's own source (file 1 is a header when the unit's first line
/// comes from one: glibc's libc_start_call_main.h in libc-start.c), and it puts the
/// unit's DW_AT_comp_dir before a relative name ("./elf/./elf/dl-load.c"). `name` is the
/// file's name as libdw gives it.
[[nodiscard]] std::string addr2line_file_name(Dwarf_Die* cu, Dwarf_Files* files, std::size_t index,
                                              const char* name);

struct Dso::Impl {
  std::string recorded_build_id;
  SearchPaths paths;
  mutable std::once_flag once;
  // Filled by load():
  mutable SymbolTable symbols;
  mutable NameArena names;                   // the symbols' names (ELF, JIT map)
  mutable std::optional<FileText> kallsyms;  // the kernel's: views into this text
  mutable bool preset = false;
  std::uint64_t kernel_text = 0;  // runtime _text (kernel map's pgoff), 0 = unknown
  struct Load {
    std::uint64_t offset, filesz, vaddr;
  };
  mutable std::vector<Load> loads;
  mutable std::string build_id;
  mutable std::string warning;
  mutable std::string file_path;   // file behind main_elf, "" for a memory image
  mutable std::string debug_file;  // file behind debug_elf
  mutable ElfFile main_elf;
  mutable ElfFile debug_elf;
  mutable Dwarf* dwarf = nullptr;
  mutable bool dwarf_tried = false;      // dwarf_begin_elf() ran (it may have failed)
  mutable DebugSections debug_sections;  // what the DWARF reads: outlives `dwarf`
  mutable std::mutex dwarf_mutex;
  /// CU address ranges from the CU DIEs themselves, built on the first lookup that
  /// .debug_aranges cannot answer (clang emits no aranges by default): {lo, hi, offset}.
  struct CuRange {
    Dwarf_Addr lo, hi;
    Dwarf_Off die;
  };
  mutable std::vector<CuRange> cu_ranges;
  mutable bool cu_ranges_built = false;
  /// srcline() answers by address (dwarf_mutex held): the DSO preloader looks lines up
  /// during the replay, the resolver after it asks again. An address not asked before
  /// is looked for in the source-line cache (srcline_cache.hpp), then in the DWARF; the
  /// addresses the DWARF answered are added to the cache at the end.
  mutable SrclineMemo srclines;
  mutable bool srcline_cache_read = false;
  mutable SrclineCache srcline_cache;
  mutable std::string srcline_cache_file;  // "" = no cache for this DSO
  mutable std::string dwarf_identity;      // the file the DWARF comes from, as cached
  mutable std::vector<Dwarf_Addr> srclines_added;

  /// Opens the DWARF once (dwarf_mutex held); false when the DSO has none.
  bool open_dwarf() const;
  /// The CU containing `addr` (dwarf_mutex held, dwarf open).
  bool find_cu(Dwarf_Addr addr, Dwarf_Die* cu) const;
  /// srcline() without the memo (dwarf_mutex held).
  [[nodiscard]] std::optional<std::pair<std::string, std::uint32_t>> lookup_srcline(
      Dwarf_Addr addr) const;
  /// Loads `srcline_cache` once (dwarf_mutex held, DSO loaded); true when the cache file
  /// of this build is there, so lines may need no DWARF at all.
  bool read_srcline_cache() const;

  ~Impl() {
    if (!srclines_added.empty()) {
      try {
        store_srcline_cache(srcline_cache_file, dwarf_identity, srcline_cache, srclines,
                            srclines_added);
      } catch (...) {  // only a cache
      }
    }
    if (dwarf != nullptr) dwarf_end(dwarf);
  }

  void load_elf(const Dso& self) const;
  void load_kernel(const Dso& self) const;
  void load_vmlinux() const;
  [[nodiscard]] std::string find_debug_file(const std::string& path, Elf* elf) const;
};

}  // namespace perfx::symbol
