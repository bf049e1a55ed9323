#pragma once
/// \file
/// A std::vector whose large storage lies in transparent huge pages: what
/// perfx::Profile::samples is (400k samples are 12.8 MB of fresh memory, 3000 page faults
/// of ~12 us each on a VM in 4 KiB pages, a tenth of that in 2 MiB pages). It behaves as
/// a std::vector in every other way; blocks of 1 MiB or more are 2 MiB-aligned, rounded
/// up to whole huge pages, and given back blocks are kept (up to 64 MiB in all) for reuse.

#include <cstddef>
#include <memory>
#include <vector>

#include "perfx/export.hpp"

namespace perfx {

/// The transparent huge page size on x86-64 (and the 4 KiB-page arm64 default).
inline constexpr std::size_t kHugePageBytes = std::size_t{2} << 20;

/// A block of whole huge pages (`bytes` a multiple of kHugePageBytes, 2 MiB-aligned, huge
/// pages asked for with madvise). A block given back earlier is reused when one is big
/// enough (its pages are already faulted in). Throws std::bad_alloc as operator new does.
[[nodiscard]] PERFX_API void* acquire_huge_block(std::size_t bytes);
/// Gives back a block of acquire_huge_block() (`bytes` at most its size): kept for reuse
/// while the kept blocks total at most 64 MiB, freed otherwise. Null is ignored.
PERFX_API void release_huge_block(void* p, std::size_t bytes) noexcept;

/// A std::allocator whose large blocks (1 MiB or more) are acquire_huge_block() blocks.
template <typename T>
struct HugeAllocator {
  using value_type = T;
  HugeAllocator() noexcept = default;
  template <typename U>
  HugeAllocator(const HugeAllocator<U>&) noexcept {}  // NOLINT: rebinding is implicit

  /// Storage for `n` objects (std::allocator's below 1 MiB).
  [[nodiscard]] T* allocate(std::size_t n) {
    const std::size_t bytes = n * sizeof(T);
    if (bytes < kHugePageBytes / 2) return std::allocator<T>().allocate(n);
    return static_cast<T*>(acquire_huge_block(rounded(bytes)));
  }
  /// Gives back what allocate(n) returned.
  void deallocate(T* p, std::size_t n) noexcept {
    const std::size_t bytes = n * sizeof(T);
    if (bytes < kHugePageBytes / 2) return std::allocator<T>().deallocate(p, n);
    release_huge_block(p, rounded(bytes));
  }
  /// Every HugeAllocator can free what another one allocated.
  template <typename U>
  bool operator==(const HugeAllocator<U>&) const noexcept {
    return true;
  }

 private:
  static std::size_t rounded(std::size_t bytes) {
    return (bytes + kHugePageBytes - 1) / kHugePageBytes * kHugePageBytes;
  }
};

/// A vector whose large storage is in huge pages (see HugeAllocator).
template <typename T>
using HugeVector = std::vector<T, HugeAllocator<T>>;

}  // namespace perfx
