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

namespace perfx::core {

/// The transparent huge page size on x86-64 (and the 4 KiB-page arm64 default).
inline constexpr std::size_t kHugePage = std::size_t{2} << 20;

/// Asks for huge pages on the whole 2 MiB-aligned pages inside [p, p + bytes). Call it
/// before the memory is first touched. A hint only: errors are ignored.
inline void advise_huge_pages(void* p, std::size_t bytes) noexcept {
  constexpr std::uintptr_t kMask = ~std::uintptr_t{kHugePage - 1};
  const auto begin = reinterpret_cast<std::uintptr_t>(p);
  const std::uintptr_t first = (begin + kHugePage - 1) & kMask;
  const std::uintptr_t last = (begin + bytes) & kMask;
  if (last > first) (void)::madvise(reinterpret_cast<void*>(first), last - first, MADV_HUGEPAGE);
}

/// Frees a HugeBuffer with the alignment it was allocated with.
struct HugeDeleter {
  std::align_val_t align{alignof(std::max_align_t)};
  void operator()(char* p) const noexcept { ::operator delete[](p, align); }
};
/// An uninitialised byte buffer from allocate_huge().
using HugeBuffer = std::unique_ptr<char[], HugeDeleter>;

/// `n` uninitialised bytes. From 1 MiB on, the buffer is 2 MiB-aligned, its size rounded
/// up to whole huge pages, and huge pages are asked for: it faults in 2 MiB at a time.
inline HugeBuffer allocate_huge(std::size_t n) {
  if (n < kHugePage / 2) {
    HugeDeleter d;
    return HugeBuffer(static_cast<char*>(::operator new[](n, d.align)), d);
  }
  const HugeDeleter d{std::align_val_t{kHugePage}};
  const std::size_t rounded = (n + kHugePage - 1) / kHugePage * kHugePage;
  HugeBuffer b(static_cast<char*>(::operator new[](rounded, d.align)), d);
  advise_huge_pages(b.get(), rounded);
  return b;
}

/// A std::allocator whose large blocks (1 MiB or more) are huge-page blocks: 2 MiB-aligned,
/// rounded up to whole huge pages, huge pages asked for, so that all of such a block
/// faults in 2 MiB at a time. (Advising a plain vector's storage leaves its unaligned
/// head in small pages: up to 2 MiB faulted in 4 KiB at a time.)
template <typename T>
struct HugeAllocator {
  using value_type = T;
  HugeAllocator() noexcept = default;
  template <typename U>
  HugeAllocator(const HugeAllocator<U>&) noexcept {}  // NOLINT: rebinding is implicit

  [[nodiscard]] T* allocate(std::size_t n) {
    const std::size_t bytes = n * sizeof(T);
    if (bytes < kHugePage / 2) return std::allocator<T>().allocate(n);
    const std::size_t size = rounded(bytes);
    void* p = ::operator new (size, std::align_val_t{kHugePage});
    advise_huge_pages(p, size);
    return static_cast<T*>(p);
  }
  void deallocate(T* p, std::size_t n) noexcept {
    const std::size_t bytes = n * sizeof(T);
    if (bytes < kHugePage / 2) return std::allocator<T>().deallocate(p, n);
    ::operator delete (p, std::align_val_t{kHugePage});  // clang declares no sized one
  }
  template <typename U>
  bool operator==(const HugeAllocator<U>&) const noexcept {
    return true;
  }

 private:
  static std::size_t rounded(std::size_t bytes) {
    return (bytes + kHugePage - 1) / kHugePage * kHugePage;
  }
};

/// A vector whose large storage is in huge pages (see HugeAllocator).
template <typename T>
using HugeVector = std::vector<T, HugeAllocator<T>>;

}  // namespace perfx::core
