// Fuzz target: the debug-section cache files (symbol/section_cache.hpp), whose bytes go
// to libdw as DWARF: a damaged or hostile file must be refused, never believed. The input
// is byte 0 (how many sections the debug file has, 0..4), that many {u64 index, u64
// compressed size, u64 size} (what the ELF says), then the cache file after its header
// ("PERFXDS2" and the build-id the file is stored under, prepended here so that the
// fuzzer starts past the build-id check): the count, the entries and the sections.
//
// Invariants: no crash; a file that loads points every section inside its mapping (and
// the bytes are read whole, for ASan); storing those sections and loading again gives
// the same bytes.

#include <unistd.h>

#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <string>
#include <string_view>
#include <vector>

#include "scratch_dir.hpp"
#include "symbol/cache_dir.hpp"
#include "symbol/section_cache.hpp"

namespace {

namespace sym = perfx::symbol;

void check(bool cond) {
  if (!cond) __builtin_trap();
}

std::uint64_t take_u64(const std::uint8_t*& data, std::size_t& size) {
  std::uint64_t v = 0;
  const std::size_t n = size < sizeof v ? size : sizeof v;
  std::memcpy(&v, data, n);
  data += n;
  size -= n;
  return v;
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  constexpr std::string_view kBuildId = "0123abcd";
  if (size == 0) return 0;
  const std::size_t sections = data[0] % 5;
  ++data;
  --size;
  std::vector<sym::CachedSection> want(sections);
  for (auto& s : want) {
    s.index = take_u64(data, size);
    s.in_size = take_u64(data, size);
    s.out_size = take_u64(data, size);
  }
  std::string bytes = "PERFXDS2";
  perfx_fuzz::append_sized(bytes, kBuildId);
  bytes.append(reinterpret_cast<const char*>(data), size);
  const std::string path = perfx_fuzz::write_scratch_file("sections", kBuildId, bytes);
  if (path.empty()) return 0;

  auto file = sym::load_section_cache(path, want);
  (void)sym::take_cache_warnings();
  if (!file) return 0;
  const std::string_view mapped = file->text();
  std::vector<std::string> copies;
  for (const auto& s : want) {
    check(s.data >= mapped.data() && s.data <= mapped.data() + mapped.size());
    check(s.out_size <= static_cast<std::size_t>(mapped.data() + mapped.size() - s.data));
    copies.emplace_back(s.data, s.out_size);
  }
  // Stored again (a rewrite) and loaded back: the same bytes.
  sym::store_section_cache(path, want);
  std::vector<sym::CachedSection> again = want;
  for (auto& s : again) s.data = nullptr;
  auto reread = sym::load_section_cache(path, again);
  check(reread.has_value());
  for (std::size_t i = 0; i < again.size(); ++i)
    check(std::string_view(again[i].data, again[i].out_size) == copies[i]);
  return 0;
}
