// Source lines of a DSO from its DWARF (libdw), remembered per address and kept on disk
// by build-id (srcline_cache.hpp), and the address -> CU lookup behind them.
#include <dwarf.h>
#include <elfutils/libdw.h>
#include <sys/stat.h>

#include <algorithm>
#include <mutex>
#include <string>
#include <utility>
#include <vector>

#include "symbol/dso_impl.hpp"
#include "symbol/section_cache.hpp"

namespace perfx::symbol {

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

std::string addr2line_file_name(Dwarf_Die* cu, Dwarf_Files* files, std::size_t index,
                                const char* name) {
  Dwarf_Half version = 0;
  if (index == 1 && files != nullptr &&
      dwarf_cu_info(cu->cu, &version, nullptr, nullptr, nullptr, nullptr, nullptr, nullptr) == 0 &&
      version >= 5) {
    if (const char* first = dwarf_filesrc(files, 0, nullptr, nullptr)) name = first;
  }
  std::string out = name != nullptr ? name : "";
  Dwarf_Attribute attr;
  const char* comp_dir = dwarf_formstring(dwarf_attr(cu, DW_AT_comp_dir, &attr));
  if (!out.empty() && out.front() != '/' && comp_dir != nullptr && *comp_dir != '\0')
    out = std::string(comp_dir) + "/" + out;
  return out;
}

bool Dso::in_dwarf_unit(std::uint64_t addr) const {
  std::lock_guard lock(impl_->dwarf_mutex);
  Dwarf_Die cu;
  return impl_->open_dwarf() && impl_->find_cu(addr, &cu);
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
  Dwarf_Files* files = nullptr;
  std::size_t index = 0;
  if (dwarf_line_file(line, &files, &index) != 0) files = nullptr;
  std::string file = addr2line_file_name(&cu, files, index, dwarf_linesrc(line, nullptr, nullptr));
  return std::make_pair(std::move(file), static_cast<std::uint32_t>(lineno < 0 ? 0 : lineno));
}

}  // namespace perfx::symbol
