#pragma once
/// \file
/// Transparent huge pages for large, freshly reserved buffers.
///
/// On virtual machines a page fault is costly (about 12 us each on the development VM,
/// where touching 4 MiB page by page takes 12 ms and 0.5 ms with huge pages). Most
/// systems run THP in "madvise" mode, so a buffer only gets huge pages when asked. The
/// symbol tables of a kernel and the reader's round buffers are asked for; the hint is
/// harmless where THP is off (madvise fails, nothing changes).

#include <sys/mman.h>

#include <cstddef>
#include <cstdint>
#include <memory>
#include <new>
#include <vector>

#include "perfx/huge_vector.hpp"

namespace perfx::core {

/// The transparent huge page size on x86-64 (and the 4 KiB-page arm64 default).
inline constexpr std::size_t kHugePage = kHugePageBytes;

/// Asks for huge pages on the whole 2 MiB-aligned pages inside [p, p + bytes). Call it
/// before the memory is first touched. A hint only: errors are ignored.
inline void advise_huge_pages(void* p, std::size_t bytes) noexcept {
  constexpr std::uintptr_t kMask = ~std::uintptr_t{kHugePage - 1};
  const auto begin = reinterpret_cast<std::uintptr_t>(p);
  const std::uintptr_t first = (begin + kHugePage - 1) & kMask;
  const std::uintptr_t last = (begin + bytes) & kMask;
  if (last > first) (void)::madvise(reinterpret_cast<void*>(first), last - first, MADV_HUGEPAGE);
}

// acquire_huge_block() and release_huge_block() are public (perfx/huge_vector.hpp).
using perfx::acquire_huge_block;
using perfx::release_huge_block;
/// What the process keeps of given-back blocks at most.
inline constexpr std::size_t kKeptHugeBytes = std::size_t{64} << 20;
/// What the process keeps now.
[[nodiscard]] std::size_t kept_huge_bytes() noexcept;

/// Frees a HugeBuffer: a huge block goes back to release_huge_block().
struct HugeDeleter {
  std::size_t block_bytes = 0;  // 0: a small buffer from operator new[]
  void operator()(char* p) const noexcept {
    if (block_bytes != 0) {
      release_huge_block(p, block_bytes);
    } else {
      ::operator delete[](p);
    }
  }
};
/// An uninitialised byte buffer from allocate_huge().
using HugeBuffer = std::unique_ptr<char[], HugeDeleter>;

/// `n` uninitialised bytes. From 1 MiB on, a huge block (acquire_huge_block): 2 MiB-
/// aligned, its size rounded up to whole huge pages, faulting in 2 MiB at a time.
inline HugeBuffer allocate_huge(std::size_t n) {
  if (n < kHugePage / 2) return HugeBuffer(new char[n], HugeDeleter{});
  const std::size_t rounded = (n + kHugePage - 1) / kHugePage * kHugePage;
  return HugeBuffer(static_cast<char*>(acquire_huge_block(rounded)), HugeDeleter{rounded});
}

// HugeAllocator and HugeVector are public too (Profile::samples is one).
using perfx::HugeAllocator;
using perfx::HugeVector;

}  // namespace perfx::core
