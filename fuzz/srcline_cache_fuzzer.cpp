// Fuzz target: the source-line cache files (symbol/srcline_cache.hpp), which any earlier
// run (or anything else that writes to the cache directory) may have left damaged. The
// input is the file after its header ("PERFXSL3", the build-id and the identity, prepended
// here so that the fuzzer starts past the build-id and identity checks): the entry count, names
// size, entries, names and appended records.
//
// Invariants: no crash; a file that loads answers find() with the answers all() gives;
// storing new answers after it and loading again keeps the old answers and adds the new.

#include <unistd.h>

#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <string>
#include <string_view>
#include <vector>

#include "scratch_dir.hpp"
#include "symbol/cache_dir.hpp"
#include "symbol/srcline_cache.hpp"

namespace {

namespace sym = perfx::symbol;

void check(bool cond) {
  if (!cond) __builtin_trap();
}

// find() answers `addr` with `answer` (which may be "no line").
void check_finds(const perfx::symbol::SrclineCache& cache, std::uint64_t addr,
                 const perfx::symbol::SrclineAnswer& answer) {
  const auto found = cache.find(addr);
  check(found.has_value() && *found == answer);
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  constexpr std::string_view kIdentity = "lib.so\n1\n2";
  constexpr std::string_view kBuildId = "0123abcd";  // the file's name, said again inside
  std::string bytes = "PERFXSL3";
  perfx_fuzz::append_sized(bytes, kBuildId);
  perfx_fuzz::append_sized(bytes, kIdentity);
  bytes.append(reinterpret_cast<const char*>(data), size);
  const std::string path = perfx_fuzz::write_scratch_file("srclines", kBuildId, bytes);
  if (path.empty()) return 0;

  const auto cache = sym::SrclineCache::load(path, kIdentity);
  (void)sym::take_cache_warnings();
  const sym::SrclineMemo old = cache.all();
  if (cache.state() == sym::SrclineCacheState::kValid) {
    check(old.size() <= cache.size());
    for (const auto& [addr, answer] : old) check_finds(cache, addr, answer);
  } else {
    check(old.empty() && cache.size() == 0);
  }

  // New answers for addresses next to (and one equal to) the old ones.
  sym::SrclineMemo memo;
  std::vector<std::uint64_t> added;
  std::uint32_t line = 1;
  for (const auto& [addr, answer] : old) {
    if (added.size() >= 8) break;
    for (std::uint64_t a : {addr, addr + 1}) {
      memo[a] = sym::SrclineAnswer{std::pair{std::string("new.c"), line++}};
      added.push_back(a);
    }
  }
  memo[0x42] = sym::SrclineAnswer{};
  added.push_back(0x42);
  sym::store_srcline_cache(path, kIdentity, cache, memo, added);
  const auto again = sym::SrclineCache::load(path, kIdentity);
  check(again.state() == sym::SrclineCacheState::kValid);
  for (const auto& [addr, answer] : old) check_finds(again, addr, answer);  // the first holds
  for (const auto& [addr, answer] : memo)
    if (!old.contains(addr)) check_finds(again, addr, answer);
  return 0;
}
