// A DSO: what it is, loading it once from its symbol source (dso_elf.cpp, kallsyms.cpp,
// jit_map.cpp) and looking addresses up in its symbols.
#include "symbol/dso.hpp"

#include <algorithm>
#include <charconv>
#include <cstring>
#include <string>
#include <string_view>

#include "symbol/dso_impl.hpp"
#include "symbol/elf_section.hpp"

namespace perfx::symbol {

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

void Dso::set_kernel_text(std::uint64_t address) { impl_->kernel_text = address; }

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
  // or before the address in the address's own section (none in PLT0, whose nearest
  // symbol before it is _init's in .init: addr2line says "??" there).
  if (const Symbol* in = find(addr); in != nullptr && in->name.ends_with("@plt")) return false;
  std::uint64_t section_start = 0;
  if (impl_->main_elf) {
    const auto section = section_at(impl_->main_elf.get(), addr);
    if (!section) return false;
    section_start = *section;
  }
  const SymbolTable& syms = symbols();
  auto it = std::upper_bound(syms.begin(), syms.end(), addr,
                             [](std::uint64_t a, const Symbol& s) { return a < s.start; });
  while (it != syms.begin()) {
    --it;
    if (it->start < section_start) return false;
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
