#include "core/huge_pages.hpp"

#include <algorithm>
#include <mutex>
#include <vector>

namespace perfx::core {
namespace {

struct Block {
  void* p;
  std::size_t bytes;
};

// Blocks given back, for the next acquire. Never destroyed (a leaky singleton): a block
// may come back during static destruction.
struct KeptBlocks {
  std::mutex mutex;
  std::vector<Block> blocks;
  std::size_t bytes = 0;
};
KeptBlocks& kept() {
  static auto* k = new KeptBlocks;
  return *k;
}

void free_block(void* p) noexcept {
  ::operator delete (p, std::align_val_t{kHugePage});  // clang declares no sized one
}

}  // namespace
}  // namespace perfx::core

namespace perfx {
using core::advise_huge_pages;
using core::kept;
using core::kHugePage;
using core::kKeptHugeBytes;

void* acquire_huge_block(std::size_t bytes) {
  {
    auto& k = kept();
    const std::lock_guard lock(k.mutex);
    // The smallest kept block that is big enough.
    auto best = k.blocks.end();
    for (auto it = k.blocks.begin(); it != k.blocks.end(); ++it) {
      if (it->bytes >= bytes && (best == k.blocks.end() || it->bytes < best->bytes)) best = it;
    }
    if (best != k.blocks.end()) {
      void* p = best->p;
      k.bytes -= best->bytes;
      k.blocks.erase(best);
      return p;
    }
  }
  void* p = ::operator new (bytes, std::align_val_t{kHugePage});
  advise_huge_pages(p, bytes);
  return p;
}

namespace core {
std::size_t kept_huge_bytes() noexcept {
  auto& k = kept();
  const std::lock_guard lock(k.mutex);
  return k.bytes;
}
}  // namespace core

void release_huge_block(void* p, std::size_t bytes) noexcept {
  if (p == nullptr) return;
  {
    auto& k = kept();
    const std::lock_guard lock(k.mutex);
    if (k.bytes + bytes <= kKeptHugeBytes) {
      try {
        k.blocks.push_back({p, bytes});
        k.bytes += bytes;
        return;
      } catch (...) {  // no memory for the list entry: free the block
      }
    }
  }
  core::free_block(p);
}

}  // namespace perfx
