#include "symbol/dso.hpp"

#include <dwarf.h>
#include <elfutils/libdw.h>
#include <fcntl.h>
#include <gelf.h>
#include <libelf.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <cctype>
#include <charconv>
#include <cstdlib>
#include <cstring>
#include <span>
#include <sstream>
#include <string_view>
#include <unordered_map>
#include <utility>

#include "core/build_id_note.hpp"
#include "core/huge_pages.hpp"
#include "symbol/debug_sections.hpp"
#include "symbol/demangle.hpp"
#include "symbol/elf_plt.hpp"
#include "symbol/elf_section.hpp"
#include "symbol/file_text.hpp"
#include "symbol/section_cache.hpp"
#include "symbol/srcline_cache.hpp"

namespace perfx::symbol {
namespace {

// start + size, saturated at the top of the address space: a lying size (an ELF symbol or
// a JIT-map line) must not wrap the end below the start, which breaks the sorted-range
// lookup (found by the symbolizer fuzzer).
constexpr std::uint64_t saturating_end(std::uint64_t start, std::uint64_t size) noexcept {
  return size > ~std::uint64_t{0} - start ? ~std::uint64_t{0} : start + size;
}

struct RawSym {
  Symbol sym;
  std::uint8_t bind = STB_GLOBAL;
};

// One opened ELF file (fd + Elf handle), closed on destruction.
class ElfFile {
 public:
  ElfFile() = default;
  explicit ElfFile(const std::string& path) {
    fd_ = ::open(path.c_str(), O_RDONLY | O_CLOEXEC);
    if (fd_ < 0) return;
    // Private (copy-on-write) so that DebugSections may rewrite section headers in
    // memory; untouched pages stay shared with the page cache.
    elf_ = elf_begin(fd_, ELF_C_READ_MMAP_PRIVATE, nullptr);
    if (elf_ != nullptr && elf_kind(elf_) != ELF_K_ELF) {
      elf_end(elf_);
      elf_ = nullptr;
    }
  }
  ElfFile(const char* data, std::size_t size) : mem_(data, size) {
    elf_ = elf_memory(mem_.data(), mem_.size());
    if (elf_ != nullptr && elf_kind(elf_) != ELF_K_ELF) {
      elf_end(elf_);
      elf_ = nullptr;
    }
  }
  ~ElfFile() { close(); }
  ElfFile(const ElfFile&) = delete;
  ElfFile& operator=(const ElfFile&) = delete;
  ElfFile(ElfFile&& o) noexcept { *this = std::move(o); }
  ElfFile& operator=(ElfFile&& o) noexcept {
    if (this != &o) {
      close();
      fd_ = std::exchange(o.fd_, -1);
      elf_ = std::exchange(o.elf_, nullptr);
      mem_ = std::move(o.mem_);
      if (!mem_.empty() && elf_ != nullptr) {
        // elf_memory keeps a pointer into mem_: re-open over the moved buffer.
        elf_end(elf_);
        elf_ = elf_memory(mem_.data(), mem_.size());
      }
    }
    return *this;
  }
  [[nodiscard]] Elf* get() const noexcept { return elf_; }
  explicit operator bool() const noexcept { return elf_ != nullptr; }

 private:
  void close() {
    if (elf_ != nullptr) elf_end(elf_);
    if (fd_ >= 0) ::close(fd_);
    elf_ = nullptr;
    fd_ = -1;
  }
  int fd_ = -1;
  Elf* elf_ = nullptr;
  std::string mem_;
};

// Build-ids as hex, equal but for zero padding (perf's header pads them to 20 bytes).
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

std::string home_debug_dir(const SearchPaths& p) {
  if (!p.buildid_dir.empty()) return p.buildid_dir;
  const char* home = std::getenv("HOME");
  return std::string(home != nullptr ? home : "/root") + "/.debug";
}

bool file_exists(const std::string& p) { return ::access(p.c_str(), R_OK) == 0; }

std::string dirname_of(const std::string& p) {
  auto slash = p.rfind('/');
  if (slash == std::string::npos) return ".";
  if (slash == 0) return "/";
  return p.substr(0, slash);
}

}  // namespace

std::string running_kernel_build_id(const std::string& notes_path) {
  if (notes_path.empty()) return {};
  const auto notes = FileText::open(notes_path);
  if (!notes) return {};
  const auto id = core::build_id_from_notes(std::as_bytes(std::span(notes->text())));
  return id ? core::build_id_hex(id->data(), id->size()) : std::string();
}

std::string dso_short_name(std::string_view path) {
  if (!path.empty() && path.front() == '[') {
    // "[kernel.kallsyms]_text" -> "[kernel.kallsyms]"
    auto close = path.find(']');
    if (close != std::string_view::npos) return std::string(path.substr(0, close + 1));
    return std::string(path);
  }
  // perf's dso__set_basename(): a JIT map "/tmp/perf-PID.map" is "[JIT] tid PID".
  constexpr std::string_view kJitPrefix = "/tmp/perf-";
  if (path.starts_with(kJitPrefix)) {
    int tid = 0;
    const char* begin = path.data() + kJitPrefix.size();
    auto [end, ec] = std::from_chars(begin, path.data() + path.size(), tid);
    if (ec == std::errc{} && end != begin) return "[JIT] tid " + std::to_string(tid);
  }
  auto slash = path.rfind('/');
  return std::string(slash == std::string_view::npos ? path : path.substr(slash + 1));
}

namespace {
// The next page boundary after `addr`, plus one page; saturates at the top of the address
// space (an address in the last pages must not wrap the end below the start).
std::uint64_t page_end_plus_page(std::uint64_t addr) {
  constexpr std::uint64_t kMax = ~std::uint64_t{0};
  if (addr > kMax - 8191) return kMax;
  return (addr + 4095) / 4096 * 4096 + 4096;
}
}  // namespace

void finalize_symbols(SymbolTable& syms, bool kallsyms) {
  auto by_start = [](const Symbol& a, const Symbol& b) { return a.start < b.start; };
  // /proc/kallsyms and most symbol tables come sorted: skip the merge sort's copies.
  if (!std::is_sorted(syms.begin(), syms.end(), by_start))
    std::stable_sort(syms.begin(), syms.end(), by_start);
  for (std::size_t i = 0; i + 1 < syms.size(); ++i) {
    Symbol& prev = syms[i];
    const Symbol& curr = syms[i + 1];
    if (prev.end == prev.start) {
      const bool pm = prev.name.find('[') != std::string::npos;
      const bool cm = curr.name.find('[') != std::string::npos;
      if (kallsyms && pm != cm)
        prev.end = page_end_plus_page(prev.end);
      else
        prev.end = curr.start;
    }
  }
  if (!syms.empty() && syms.back().end == syms.back().start)
    syms.back().end = page_end_plus_page(syms.back().start);
}

KallsymsTable parse_kallsyms(std::string_view text) {
  KallsymsTable t;
  // Reserved up front (a line is ~45 bytes, rarely under 24: a short guess only means
  // growing), so the 120k-entry table of a Debian kernel is not moved while it grows.
  t.kernel.reserve(text.size() / 24 + 16);
  std::vector<std::string> mod_names;
  std::vector<SymbolTable> mod_syms;
  while (!text.empty()) {
    auto nl = text.find('\n');
    std::string_view line = text.substr(0, nl);
    text = nl == std::string_view::npos ? std::string_view{} : text.substr(nl + 1);
    // "ffffffff81000000 T _text\t[module]"
    auto sp1 = line.find(' ');
    if (sp1 == std::string_view::npos || sp1 + 3 > line.size()) continue;
    std::uint64_t addr = 0;
    auto [p, ec] = std::from_chars(line.data(), line.data() + sp1, addr, 16);
    if (ec != std::errc{}) continue;
    const char type = static_cast<char>(std::toupper(static_cast<unsigned char>(line[sp1 + 1])));
    if (type != 'T' && type != 'W' && type != 'D' && type != 'B') continue;
    std::string_view rest = line.substr(sp1 + 3);
    std::string_view module;
    auto tab = rest.find('\t');
    if (tab != std::string_view::npos) {
      module = rest.substr(tab + 1);
      rest = rest.substr(0, tab);
      if (module.size() >= 2 && module.front() == '[' && module.back() == ']')
        module = module.substr(1, module.size() - 2);
    }
    Symbol s{addr, addr, rest};
    if (module.empty()) {
      t.kernel.push_back(std::move(s));
    } else {
      std::size_t idx = 0;
      for (; idx < mod_names.size(); ++idx)
        if (mod_names[idx] == module) break;
      if (idx == mod_names.size()) {
        mod_names.emplace_back(module);
        mod_syms.emplace_back();
      }
      mod_syms[idx].push_back(std::move(s));
    }
  }
  finalize_symbols(t.kernel, true);
  for (std::size_t i = 0; i < mod_names.size(); ++i) {
    finalize_symbols(mod_syms[i], true);
    t.modules.emplace_back(std::move(mod_names[i]), std::move(mod_syms[i]));
  }
  return t;
}

SymbolTable parse_jit_map(std::string_view text, NameArena& names) {
  SymbolTable out;
  while (!text.empty()) {
    auto nl = text.find('\n');
    std::string_view line = text.substr(0, nl);
    text = nl == std::string_view::npos ? std::string_view{} : text.substr(nl + 1);
    auto sp1 = line.find(' ');
    if (sp1 == std::string_view::npos) continue;
    auto sp2 = line.find(' ', sp1 + 1);
    if (sp2 == std::string_view::npos) continue;
    std::string_view a = line.substr(0, sp1);
    std::string_view z = line.substr(sp1 + 1, sp2 - sp1 - 1);
    if (a.starts_with("0x")) a.remove_prefix(2);
    if (z.starts_with("0x")) z.remove_prefix(2);
    std::uint64_t start = 0;
    std::uint64_t size = 0;
    if (std::from_chars(a.data(), a.data() + a.size(), start, 16).ec != std::errc{}) continue;
    if (std::from_chars(z.data(), z.data() + z.size(), size, 16).ec != std::errc{}) continue;
    std::string_view name = line.substr(sp2 + 1);
    while (!name.empty() && (name.back() == '\r' || name.back() == ' ')) name.remove_suffix(1);
    out.push_back(Symbol{start, saturating_end(start, size), names.add(demangle(name))});
  }
  finalize_symbols(out, false);
  return out;
}

struct Dso::Impl {
  std::string recorded_build_id;
  SearchPaths paths;
  mutable std::once_flag once;
  // Filled by load():
  mutable SymbolTable symbols;
  mutable NameArena names;                   // the symbols' names (ELF, JIT map)
  mutable std::optional<FileText> kallsyms;  // the kernel's: views into this text
  mutable bool preset = false;
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
  [[nodiscard]] std::string find_debug_file(const std::string& path, Elf* elf) const;
};

Dso::Dso(std::string path, DsoKind kind, std::string build_id, SearchPaths paths)
    : path_(std::move(path)),
      short_name_(dso_short_name(path_)),
      kind_(kind),
      impl_(std::make_unique<Impl>()) {
  impl_->recorded_build_id = std::move(build_id);
  impl_->paths = std::move(paths);
  if (kind_ == DsoKind::kKernelModule && !short_name_.starts_with("[")) {
    short_name_ = "[" + short_name_ + "]";
  }
}

Dso::~Dso() = default;

void Dso::set_symbols(SymbolTable symbols) {
  impl_->symbols = std::move(symbols);
  impl_->preset = true;
}

std::string Dso::Impl::find_debug_file(const std::string& path, Elf* elf) const {
  std::vector<std::string> candidates;
  const std::string dir = dirname_of(path);
  std::string link = elf != nullptr ? elf_debuglink(elf) : std::string{};
  if (!link.empty()) {
    candidates.push_back(dir + "/" + link);
    candidates.push_back(dir + "/.debug/" + link);
    candidates.push_back(paths.debug_dir + dir + "/" + link);
  }
  const std::string& bid = !build_id.empty() ? build_id : recorded_build_id;
  if (bid.size() > 2) {
    candidates.push_back(paths.debug_dir + "/.build-id/" + bid.substr(0, 2) + "/" + bid.substr(2) +
                         ".debug");
    candidates.push_back(home_debug_dir(paths) + "/.build-id/" + bid.substr(0, 2) + "/" +
                         bid.substr(2) + "/debug");
  }
  for (const auto& c : candidates) {
    if (c == path || !file_exists(c)) continue;
    ElfFile f(c);
    if (!f) continue;
    const std::string dbid = elf_build_id(f.get());
    if (!bid.empty() && !dbid.empty() && dbid != bid) continue;  // another build's debug file
    return c;
  }
  return {};
}

void Dso::Impl::load_elf(const Dso& self) const {
  const std::string& path = self.path_;
  std::string used = path;
  if (self.kind_ == DsoKind::kVdso) {
    used.clear();
    if (recorded_build_id.size() > 2) {
      std::string cached = home_debug_dir(paths) + "/[vdso]/" + recorded_build_id + "/vdso";
      if (file_exists(cached)) used = cached;
    }
    if (used.empty()) {
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

void Dso::Impl::load_kernel(const Dso& self) const {
  if (preset) return;
  std::optional<FileText> text;
  const std::string cached =
      home_debug_dir(paths) + "/[kernel.kallsyms]/" + recorded_build_id + "/kallsyms";
  if (recorded_build_id.size() > 2) text = FileText::open(cached);
  if (!text && self.kind_ == DsoKind::kKernel && recorded_build_id.size() > 2) {
    // A recording of another kernel (perf's dso__find_kallsyms()): the running kernel's
    // symbols would name the wrong functions. Without its kallsyms in the build-id cache,
    // its addresses stay unresolved, as in perf.
    const std::string running = running_kernel_build_id(paths.kernel_notes);
    if (!running.empty() && !same_build_id(running, recorded_build_id)) {
      warning = "the recording's kernel (build-id " + recorded_build_id +
                ") is not the running one (" + running + ") and " + cached +
                " is not there: kernel addresses are left unresolved";
      return;
    }
  }
  if (!text) text = FileText::open(paths.kallsyms);
  if (!text) {
    warning = "cannot read " + paths.kallsyms + ": no kernel symbols";
    return;
  }
  kallsyms = std::move(text);
  auto table = parse_kallsyms(kallsyms->text());
  if (self.kind_ == DsoKind::kKernel) {
    symbols = std::move(table.kernel);
  } else {
    std::string name = self.short_name_.substr(1, self.short_name_.size() - 2);
    for (auto& [mod, syms] : table.modules)
      if (mod == name) symbols = std::move(syms);
  }
  if (symbols.empty()) warning = "no symbols for " + self.short_name_;
}

void Dso::load() const {
  std::call_once(impl_->once, [this] {
    if (impl_->preset) return;
    elf_version(EV_CURRENT);
    switch (kind_) {
      case DsoKind::kElf:
      case DsoKind::kVdso:
        impl_->load_elf(*this);
        break;
      case DsoKind::kKernel:
      case DsoKind::kKernelModule:
        impl_->load_kernel(*this);
        break;
      case DsoKind::kJitMap: {
        auto text = read_text_file(path_);
        if (text)
          impl_->symbols = parse_jit_map(*text, impl_->names);
        else
          impl_->warning = "cannot open JIT map '" + path_ + "'";
        break;
      }
      case DsoKind::kNoFile:
        break;
    }
  });
}

std::uint64_t Dso::to_symbol_address(std::uint64_t off) const {
  load();
  if (kind_ != DsoKind::kElf && kind_ != DsoKind::kVdso) return off;
  for (const auto& l : impl_->loads)
    if (off >= l.offset && off < l.offset + l.filesz) return off - l.offset + l.vaddr;
  if (!impl_->loads.empty()) {
    const auto& l = impl_->loads.front();
    return off - l.offset + l.vaddr;
  }
  return off;
}

const Symbol* Dso::find(std::uint64_t addr) const {
  load();
  const auto& syms = impl_->symbols;
  auto it = std::upper_bound(syms.begin(), syms.end(), addr,
                             [](std::uint64_t a, const Symbol& s) { return a < s.start; });
  // Walk back a few entries so a big symbol enclosing smaller ones still matches.
  for (int steps = 0; it != syms.begin() && steps < 4; ++steps) {
    --it;
    if (addr >= it->start && addr < it->end) return &*it;
  }
  return nullptr;
}

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

}  // namespace

bool Dso::Impl::find_cu(Dwarf_Addr addr, Dwarf_Die* cu) const {
  if (dwarf_addrdie(dwarf, addr, cu) != nullptr) return true;
  if (!cu_ranges_built) {
    cu_ranges_built = true;
    // CUs that .debug_aranges lists are answered by it already: reading their DIEs only
    // costs (libdw parses each CU's abbreviations; 4 MiB for libc's 2000 CUs, for a miss
    // in its PLT). Only the units it does not cover (clang's, assembler's) are read.
    std::vector<Dwarf_Off> covered;
    Dwarf_Aranges* aranges = nullptr;
    std::size_t naranges = 0;
    if (dwarf_getaranges(dwarf, &aranges, &naranges) == 0) {
      covered.reserve(naranges);
      for (std::size_t i = 0; i < naranges; ++i) {
        Dwarf_Off die_off = 0;
        if (dwarf_getarangeinfo(dwarf_onearange(aranges, i), nullptr, nullptr, &die_off) == 0)
          covered.push_back(die_off);
      }
      std::sort(covered.begin(), covered.end());
    }
    Dwarf_Off off = 0;
    Dwarf_Off next = 0;
    std::size_t header_size = 0;
    // Bounded: a malformed unit chain must not loop (each step moves forward).
    for (int units = 0; units < 1 << 20 && dwarf_nextcu(dwarf, off, &next, &header_size, nullptr,
                                                        nullptr, nullptr) == 0;
         ++units) {
      Dwarf_Die die;
      if (next <= off) break;
      const Dwarf_Off die_off = off + header_size;
      if (std::binary_search(covered.begin(), covered.end(), die_off)) {
        off = next;
        continue;
      }
      if (dwarf_offdie(dwarf, die_off, &die) != nullptr) {
        Dwarf_Addr base = 0, lo = 0, hi = 0;
        std::ptrdiff_t it = 0;
        for (int r = 0; r < 4096 && (it = dwarf_ranges(&die, it, &base, &lo, &hi)) > 0; ++r) {
          if (hi > lo) cu_ranges.push_back({lo, hi, dwarf_dieoffset(&die)});
        }
      }
      off = next;
    }
    std::sort(cu_ranges.begin(), cu_ranges.end(),
              [](const CuRange& a, const CuRange& b) { return a.lo < b.lo; });
  }
  auto it = std::upper_bound(cu_ranges.begin(), cu_ranges.end(), addr,
                             [](Dwarf_Addr a, const CuRange& r) { return a < r.lo; });
  // Ranges of different CUs do not overlap in sane DWARF; look back a few for safety.
  for (int k = 0; k < 8 && it != cu_ranges.begin(); ++k) {
    --it;
    if (addr >= it->lo && addr < it->hi) return dwarf_offdie(dwarf, it->die, cu) != nullptr;
  }
  return false;
}

bool Dso::Impl::open_dwarf() const {
  if (dwarf == nullptr && !dwarf_tried) {
    dwarf_tried = true;
    Elf* e = debug_elf ? debug_elf.get() : main_elf.get();
    if (e != nullptr) {
      debug_sections.prepare(e, section_cache_path(build_id));
      dwarf = dwarf_begin_elf(e, DWARF_C_READ, nullptr);
    }
  }
  return dwarf != nullptr;
}

namespace {

// Path, size and modification time of `path`: what names a DWARF source in the
// source-line cache. "" when it cannot be read.
std::string file_identity(const std::string& path) {
  struct stat st {};
  if (path.empty() || ::stat(path.c_str(), &st) != 0) return {};
  return path + '\n' + std::to_string(st.st_size) + '\n' + std::to_string(st.st_mtim.tv_sec) + '.' +
         std::to_string(st.st_mtim.tv_nsec);
}

}  // namespace

bool Dso::Impl::read_srcline_cache() const {
  if (srcline_cache_read) return srcline_cache.state() == SrclineCacheState::kValid;
  srcline_cache_read = true;
  dwarf_identity = file_identity(debug_elf ? debug_file : file_path);
  if (dwarf_identity.empty()) return false;
  srcline_cache_file = srcline_cache_path(build_id);
  srcline_cache = SrclineCache::load(srcline_cache_file, dwarf_identity);
  return srcline_cache.state() == SrclineCacheState::kValid;
}

void Dso::prepare_dwarf(bool inlines) const {
  load();
  std::lock_guard lock(impl_->dwarf_mutex);
  // With the source-line cache of this build, lines need DWARF only for addresses it
  // does not have yet: opened then, by the first lookup. Inline chains always need it.
  if (impl_->read_srcline_cache() && !inlines) return;
  // The address -> CU table too: the first lookup would build it (libdw reads every CU
  // header listed in .debug_aranges; 10 ms for libc6-dbg), after the replay.
  Dwarf_Aranges* aranges = nullptr;
  std::size_t n = 0;
  if (impl_->open_dwarf()) (void)dwarf_getaranges(impl_->dwarf, &aranges, &n);
}

std::optional<std::pair<std::string, std::uint32_t>> Dso::srcline(std::uint64_t addr) const {
  load();
  std::lock_guard lock(impl_->dwarf_mutex);
  (void)impl_->read_srcline_cache();  // once
  auto [memo, inserted] = impl_->srclines.try_emplace(addr);
  if (!inserted) return memo->second;
  if (auto cached = impl_->srcline_cache.find(addr)) {
    memo->second = std::move(*cached);
  } else {
    memo->second = impl_->lookup_srcline(addr);
    if (!impl_->srcline_cache_file.empty()) impl_->srclines_added.push_back(addr);
  }
  return memo->second;
}

// Its answers are kept on disk (srcline_cache.cpp): a change to them bumps that file's
// magic.
std::optional<std::pair<std::string, std::uint32_t>> Dso::Impl::lookup_srcline(
    Dwarf_Addr addr) const {
  if (!open_dwarf()) return std::nullopt;
  Dwarf_Die cu;
  if (!find_cu(addr, &cu)) return std::nullopt;
  Dwarf_Line* line = dwarf_getsrc_die(&cu, addr);
  if (line == nullptr) return std::nullopt;
  int lineno = 0;
  dwarf_lineno(line, &lineno);
  const char* file = dwarf_linesrc(line, nullptr, nullptr);
  return std::make_pair(std::string(file != nullptr ? file : ""),
                        static_cast<std::uint32_t>(lineno < 0 ? 0 : lineno));
}

namespace {

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
      const char* f = dwarf_filesrc(files, call_file, nullptr, nullptr);
      file = f != nullptr ? f : "";
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

const std::string& Dso::file_path() const {
  load();
  return impl_->file_path;
}

bool Dso::read_file(std::uint64_t offset, void* out, std::size_t size) const {
  load();
  if (!impl_->main_elf) return false;
  // elf_rawfile may read the file into memory on first use (no mmap): serialize.
  std::lock_guard lock(impl_->dwarf_mutex);
  std::size_t file_size = 0;
  const char* base = elf_rawfile(impl_->main_elf.get(), &file_size);
  if (base == nullptr || offset > file_size || size > file_size - offset) return false;
  std::memcpy(out, base + offset, size);
  return true;
}

const std::string& Dso::file_build_id() const {
  load();
  return impl_->build_id;
}
const std::string& Dso::recorded_build_id() const noexcept { return impl_->recorded_build_id; }
const std::string& Dso::warning() const {
  load();
  return impl_->warning;
}
bool Dso::addr2line_names_function(std::uint64_t addr) const {
  // perf's dso__name(): no addr2line for bracketed names and perf-PID.map files.
  if (path_.starts_with('[') || path_.starts_with("/tmp/perf-") || file_path().empty())
    return false;
  // No function of the file's own is in .plt; elsewhere BFD takes the nearest symbol at
  // or before the address (sections are not told apart here).
  if (const Symbol* in = find(addr); in != nullptr && in->name.ends_with("@plt")) return false;
  const SymbolTable& syms = symbols();
  auto it = std::upper_bound(syms.begin(), syms.end(), addr,
                             [](std::uint64_t a, const Symbol& s) { return a < s.start; });
  while (it != syms.begin()) {
    --it;
    if (!it->name.ends_with("@plt")) return true;
  }
  return false;
}

std::size_t Dso::symbol_count() const {
  load();
  return impl_->symbols.size();
}
const SymbolTable& Dso::symbols() const {
  load();
  return impl_->symbols;
}

}  // namespace perfx::symbol
