#include "profile/stack_cache.hpp"

#include <cstring>

namespace perfx::profile {

std::optional<std::uint32_t> StackCache::find(std::uint64_t maps_generation,
                                              const symbol::MapSet* maps, std::uint16_t cpumode,
                                              std::span<const std::byte> bytes) {
  if (maps_generation != generation_) {
    stacks_.clear();
    generation_ = maps_generation;
  }
  const std::uint64_t mode = cpumode;
  key_.resize(sizeof maps + sizeof mode + bytes.size());
  char* out = key_.data();
  std::memcpy(out, &maps, sizeof maps);
  std::memcpy(out + sizeof maps, &mode, sizeof mode);
  std::memcpy(out + sizeof maps + sizeof mode, bytes.data(), bytes.size());
  auto it = stacks_.find(key_);
  if (it == stacks_.end()) return std::nullopt;
  return it->second;
}

std::size_t StackCache::WordHash::operator()(const std::string& key) const noexcept {
  std::uint64_t h = key.size();
  std::size_t i = 0;
  for (; i + 8 <= key.size(); i += 8) {
    std::uint64_t w;
    std::memcpy(&w, key.data() + i, 8);
    h = (h ^ w) * 0x9e3779b97f4a7c15ULL;
    h ^= h >> 29;
  }
  for (; i < key.size(); ++i) h = (h ^ static_cast<unsigned char>(key[i])) * 0x100000001b3ULL;
  return static_cast<std::size_t>(h);
}

std::span<const std::byte> stack_key(const record::Sample& sample, bool callchains) {
  const bool dwarf = sample.has(PERF_SAMPLE_REGS_USER) && sample.has(PERF_SAMPLE_STACK_USER);
  if (callchains && dwarf) return {};
  if (callchains && sample.has(PERF_SAMPLE_CALLCHAIN) && !sample.callchain.empty())
    return sample.callchain.bytes();
  return std::as_bytes(std::span<const std::uint64_t, 1>(&sample.ip, 1));
}

}  // namespace perfx::profile
