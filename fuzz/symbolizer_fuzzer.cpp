// Fuzz target: the symbolizer's inputs. An input that starts with "\x7fELF" is an ELF file:
// it is loaded as a Dso (symtab/dynsym, PT_LOAD mapping, build-id, debuglink) from a
// memfd, then symbols are looked up and DWARF is queried for source lines and inline
// chains. Any other input: byte 0 picks a text parser for the rest (kallsyms, a JIT
// perf-PID.map, or the demangler).
//
// Invariants: no crash; the symbols come out sorted with start <= end; a symbol find(a)
// returns contains a.

#include <sys/mman.h>
#include <unistd.h>

#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <string>
#include <string_view>

#include "scratch_dir.hpp"
#include "symbol/demangle.hpp"
#include "symbol/dso.hpp"

namespace {

namespace sym = perfx::symbol;

void check(bool cond) {
  if (!cond) __builtin_trap();
}

void check_sorted(const sym::SymbolTable& syms) {
  for (std::size_t i = 0; i < syms.size(); ++i) {
    check(syms[i].start <= syms[i].end);
    if (i > 0) check(syms[i - 1].start <= syms[i].start);
  }
}

// Debug-section cache files (symbol/section_cache.hpp) go to a directory of this run,
// not the user's cache: inputs with compressed debug sections write and read them.
void use_fuzz_cache_dir() { ::setenv("PERFX_CACHE_DIR", perfx_fuzz::scratch_dir("cache"), 1); }

void fuzz_elf(const std::uint8_t* data, std::size_t size) {
  use_fuzz_cache_dir();
  const int fd = ::memfd_create("fuzz-elf", MFD_CLOEXEC);
  if (fd < 0) return;
  std::size_t done = 0;
  while (done < size) {
    const ssize_t w = ::write(fd, data + done, size - done);
    if (w <= 0) break;
    done += static_cast<std::size_t>(w);
  }
  sym::SearchPaths paths;
  paths.buildid_dir = "/nonexistent/perfx-fuzz";
  paths.debug_dir = "/nonexistent/perfx-fuzz";
  paths.kallsyms = "/nonexistent/perfx-fuzz";
  {
    sym::Dso dso("/proc/self/fd/" + std::to_string(fd), sym::DsoKind::kElf, "", paths);
    dso.load();
    (void)dso.file_build_id();
    (void)dso.warning();
    const auto& syms = dso.symbols();
    check(syms.size() == dso.symbol_count());
    check_sorted(syms);
    std::size_t n = 0;
    for (const auto& s : syms) {
      if (++n > 32) break;
      if (s.end > s.start) {
        // Overlapping symbols may hide each other (find walks back a few entries only),
        // but whatever find returns must contain the address.
        const auto* found = dso.find(s.end - 1);
        if (found != nullptr) check(found->start <= s.end - 1 && s.end - 1 < found->end);
      }
      if (n <= 4) {
        (void)dso.srcline(s.start);
        (void)dso.inline_chain(s.start);
      }
    }
    for (std::uint64_t off : {std::uint64_t{0}, std::uint64_t{0x40}, std::uint64_t{0x1000},
                              static_cast<std::uint64_t>(size), ~std::uint64_t{0}}) {
      const std::uint64_t addr = dso.to_symbol_address(off);
      if (const auto* s = dso.find(addr)) check(s->start <= addr && addr < s->end);
      (void)dso.srcline(addr);
    }
  }
  ::close(fd);
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  if (size >= 4 && std::memcmp(data,
                               "\x7f"
                               "ELF",
                               4) == 0) {
    fuzz_elf(data, size);
    return 0;
  }
  if (size < 1) return 0;
  const std::string_view text(reinterpret_cast<const char*>(data + 1), size - 1);
  switch (data[0] % 3) {
    case 0: {
      auto table = sym::parse_kallsyms(text);
      sym::finalize_symbols(table.kernel, true);
      check_sorted(table.kernel);
      for (auto& [name, syms] : table.modules) {
        sym::finalize_symbols(syms, true);
        check_sorted(syms);
      }
      break;
    }
    case 1: {
      sym::NameArena names;
      auto syms = sym::parse_jit_map(text, names);
      sym::finalize_symbols(syms);
      check_sorted(syms);
      break;
    }
    default: {
      if (text.size() <= 1024) {
        const std::string out = sym::demangle(text);
        (void)sym::is_rust_legacy_demangled(out);
      }
      break;
    }
  }
  return 0;
}
