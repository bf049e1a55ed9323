#pragma once
/// \file
/// One shared object (executable, library, kernel, module, vdso, JIT map) and its
/// symbols, loaded once and looked up by binary search on sorted ranges.
///
/// Address spaces. A sampled ip is turned into a *map-relative* address the way
/// perf's map__map_ip() does: `ip - map.start + map.pgoff`, i.e. a file offset for
/// file-backed maps. Dso::to_symbol_address() turns that file offset into the ELF
/// virtual address through the PT_LOAD that holds it (p_vaddr - p_offset), which is
/// where the symtab's st_value lives. Kernel, module and JIT-map DSOs use absolute
/// addresses (identity maps, as perf).
///
/// Symbol boundaries follow perf's: STT_FUNC/STT_GNU_IFUNC defined symbols; several
/// symbols at one address keep the best one (sized > global > weak > fewer leading
/// underscores > longer name); a zero-size symbol extends to the next symbol's start
/// (the last one to the next page boundary + 4 KiB); [start, end) ranges.
///
/// Thread safety: every const query is safe from many threads once loaded; load()
/// runs once (std::call_once). DWARF queries serialize on a per-DSO mutex
/// (libdw's lazy CU loading is not thread-safe).

#include <cstdint>
#include <memory>
#include <mutex>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "core/huge_pages.hpp"
#include "symbol/demangle.hpp"
#include "symbol/name_arena.hpp"

namespace perfx::symbol {

/// A function symbol; addresses in the DSO's symbol space, [start, end).
struct Symbol {
  std::uint64_t start = 0;
  std::uint64_t end = 0;
  /// Demangled; a view into storage owned by the symbol table's owner (the Dso's name
  /// arena or its mapped kallsyms text, or the text given to parse_kallsyms()).
  std::string_view name;
};
/// A DSO's symbols. In huge pages when large (a kernel's 120k symbols are 3.8 MB, which
/// a plain vector would fault in partly 4 KiB at a time: see core::HugeAllocator).
using SymbolTable = core::HugeVector<Symbol>;

/// One frame produced by DWARF inline expansion, innermost first.
struct InlineFrame {
  std::string function;  ///< name of the inlined function (or the outer function)
  std::string file;      ///< source file of the line inside that function
  std::uint32_t line = 0;
};

enum class DsoKind : std::uint8_t { kElf, kKernel, kKernelModule, kVdso, kJitMap, kNoFile };

/// Where symbol files are searched; defaults match a Debian system and perf's cache.
struct SearchPaths {
  std::string buildid_dir;                   ///< perf's cache, "" = $HOME/.debug
  std::string debug_dir = "/usr/lib/debug";  ///< global debug directory
  std::string kallsyms = "/proc/kallsyms";   ///< live kernel symbols
  /// The user named `kallsyms` (perf's --kallsyms): it alone is used, for any kernel.
  bool kallsyms_given = false;
  /// perf's -k/--vmlinux: kernel symbols from this ELF file alone ("" = none).
  std::string vmlinux;
  /// perf's --symfs: prefix of every file path read for symbols (the build-id cache's too).
  std::string symfs;
  /// The running kernel's notes (its build-id): kallsyms is not used for a recording of
  /// another kernel. "" = do not check.
  std::string kernel_notes = "/sys/kernel/notes";
  bool demangle_params = false;  ///< C++ parameter lists (perf report -v)
  bool demangle = true;          ///< false: mangled names (perf's --no-demangle)
  [[nodiscard]] DemangleOptions demangle_options() const noexcept {
    return {demangle_params, demangle};
  }
};

class Dso {
 public:
  /// `path` as recorded in the MMAP record; `build_id` lower-case hex, "" if unknown.
  Dso(std::string path, DsoKind kind, std::string build_id, SearchPaths paths);
  ~Dso();
  Dso(const Dso&) = delete;
  Dso& operator=(const Dso&) = delete;

  /// The recorded path ("/usr/lib/x86_64-linux-gnu/libc.so.6", "[kernel.kallsyms]").
  [[nodiscard]] const std::string& long_name() const noexcept { return path_; }
  /// perf's short name: the basename for files, the bracketed name otherwise.
  [[nodiscard]] const std::string& short_name() const noexcept { return short_name_; }
  [[nodiscard]] DsoKind kind() const noexcept { return kind_; }
  /// True for kernel and module DSOs ("[k]" in reports).
  [[nodiscard]] bool is_kernel() const noexcept {
    return kind_ == DsoKind::kKernel || kind_ == DsoKind::kKernelModule;
  }

  /// Loads symbols (once; later calls return at once). Never fails: a missing or
  /// unreadable file leaves the DSO without symbols and sets warning().
  void load() const;

  /// Map-relative address (file offset for ELF files) -> symbol-space address.
  [[nodiscard]] std::uint64_t to_symbol_address(std::uint64_t map_relative) const;
  /// The symbol containing `addr` (symbol space), or nullptr.
  [[nodiscard]] const Symbol* find(std::uint64_t addr) const;
  /// Loads the DSO and opens its DWARF (decompressing its debug sections, indexing its
  /// address ranges), so that later srcline()/inline_chain() calls find it ready. For a
  /// background thread; thread-safe. Without `inlines`, a DSO whose source-line cache
  /// exists is left unopened: srcline() opens the DWARF on its first miss.
  void prepare_dwarf(bool inlines = true) const;
  /// Source file and line of `addr` (symbol space) from DWARF; nullopt without.
  /// Remembered per address: asking again is a hash lookup. Thread-safe. Answers are
  /// kept on disk by build-id (symbol/srcline_cache.hpp) for the next run.
  [[nodiscard]] std::optional<std::pair<std::string, std::uint32_t>> srcline(
      std::uint64_t addr) const;
  /// Whether GNU addr2line, which perf runs for source lines, names a function at `addr`
  /// (symbol space) when it finds no line there: the DSO is a file perf would hand it
  /// (not "[kernel.kallsyms]", "[vdso]" or a /tmp/perf-PID.map) and one of the file's
  /// own symbols (not a synthesized `name@plt`) starts at or before `addr`. perf then
  /// shows "??:0" for the source line, where it otherwise falls back to `symbol+offset`.
  [[nodiscard]] bool addr2line_names_function(std::uint64_t addr) const;
  /// Whether a DWARF compile unit covers `addr` (symbol space): where it has no line
  /// there, GNU addr2line gives an empty file name (perf's srcline ":0", not "??:0").
  [[nodiscard]] bool in_dwarf_unit(std::uint64_t addr) const;
  /// Inline chain at `addr`, innermost first, ending with the containing function
  /// (empty when there is no DWARF). A non-inlined address gives one frame.
  [[nodiscard]] std::vector<InlineFrame> inline_chain(std::uint64_t addr) const;

  /// Path of the ELF file actually used (the recorded path, or perf's build-id cache
  /// copy when the recorded file changed); "" when none was opened or the image came
  /// from memory (our own vdso). Loads the DSO first.
  [[nodiscard]] const std::string& file_path() const;
  /// Copies `size` bytes at file offset `offset` of the ELF file actually used into
  /// `out`. False (nothing copied) when the range is not inside the file. Loads first.
  [[nodiscard]] bool read_file(std::uint64_t offset, void* out, std::size_t size) const;

  /// Build-id of the file actually used (hex), "" if none.
  [[nodiscard]] const std::string& file_build_id() const;
  /// Build-id the recording gave for this DSO (HEADER_BUILD_ID, hex), "" if none; the
  /// kernel's, read from kallsyms, has no file of its own to take one from.
  [[nodiscard]] const std::string& recorded_build_id() const noexcept;
  /// A problem found while loading (missing file, build-id mismatch), "" if none.
  [[nodiscard]] const std::string& warning() const;
  /// Number of symbols loaded.
  [[nodiscard]] std::size_t symbol_count() const;
  /// The symbols, sorted by start (for tests and dumps).
  [[nodiscard]] const SymbolTable& symbols() const;

  /// Adds symbols directly (tests). Must precede load(). The names' storage must
  /// outlive this DSO.
  void set_symbols(SymbolTable symbols);
  /// The kernel's: the runtime address of `_text` (its map's pgoff), which relocates a
  /// vmlinux's symbols (SearchPaths::vmlinux). Must precede load().
  void set_kernel_text(std::uint64_t address);

 private:
  struct Impl;
  std::string path_;
  std::string short_name_;
  DsoKind kind_;
  std::unique_ptr<Impl> impl_;
};

/// The running kernel's build-id (hex) from its notes file (SearchPaths::kernel_notes,
/// /sys/kernel/notes), "" when unknown.
[[nodiscard]] std::string running_kernel_build_id(const std::string& notes_path);

/// perf's short DSO name for a recorded path.
[[nodiscard]] std::string dso_short_name(std::string_view path);

/// start + size, saturated at the top of the address space: a lying size (an ELF symbol
/// or a JIT-map line) must not wrap the end below the start, which breaks the sorted-range
/// lookup (found by the symbolizer fuzzer).
[[nodiscard]] constexpr std::uint64_t saturating_end(std::uint64_t start,
                                                     std::uint64_t size) noexcept {
  return size > ~std::uint64_t{0} - start ? ~std::uint64_t{0} : start + size;
}

/// Sorts `syms`, drops duplicates the way perf does and fixes up zero-size ends.
/// `kallsyms`: module boundary rule of perf's symbols__fixup_end.
void finalize_symbols(SymbolTable& syms, bool kallsyms = false);

/// Reads a kallsyms-format text: returns the kernel's symbols (absolute addresses)
/// and, per module name, the module's symbols. Only T/W/D/B types (as perf). The
/// symbols' names are views into `text`, which must outlive them.
struct KallsymsTable {
  SymbolTable kernel;
  std::vector<std::pair<std::string, SymbolTable>> modules;
};
[[nodiscard]] KallsymsTable parse_kallsyms(std::string_view text);

/// Reads a /tmp/perf-PID.map JIT map ("START SIZE name" per line, hex). The demangled
/// names are stored in `names`, which must outlive the symbols.
[[nodiscard]] SymbolTable parse_jit_map(std::string_view text, NameArena& names);

}  // namespace perfx::symbol
