#pragma once
// Loads and stores on a perf_event metadata page for the seqlock readers (mmap_page.cpp,
// self_monitor.cpp). The page is shared with the kernel, which writes it from any CPU (or
// from an interrupt on ours), so every access is an atomic builtin: relaxed for the fields,
// acquire/release where the man page asks for rmb()/mb().

#include <cstddef>
#include <cstdint>

#include "perfx/mmap_page.hpp"

namespace perfx::sys::page_access {

template <typename T>
[[nodiscard]] inline T load(const void* page, std::size_t offset) noexcept {
  const T* p = reinterpret_cast<const T*>(static_cast<const std::byte*>(page) + offset);
  return __atomic_load_n(p, __ATOMIC_RELAXED);
}

template <typename T>
[[nodiscard]] inline T load_acquire(const void* page, std::size_t offset) noexcept {
  const T* p = reinterpret_cast<const T*>(static_cast<const std::byte*>(page) + offset);
  return __atomic_load_n(p, __ATOMIC_ACQUIRE);
}

template <typename T>
inline void store_release(void* page, std::size_t offset, T value) noexcept {
  T* p = reinterpret_cast<T*>(static_cast<std::byte*>(page) + offset);
  __atomic_store_n(p, value, __ATOMIC_RELEASE);
}

/// Start of a read section: the count, with acquire so the field loads come after it.
[[nodiscard]] inline std::uint32_t seq_begin(const void* page) noexcept {
  return load_acquire<std::uint32_t>(page, mmap_page_layout::kLock);
}

/// End of a read section: true when the fields read since seq_begin(`seq`) may be torn
/// (the count was odd: a writer was inside; or it moved: a writer came and went).
[[nodiscard]] inline bool seq_retry(const void* page, std::uint32_t seq) noexcept {
  __atomic_thread_fence(__ATOMIC_ACQUIRE);  // the field loads complete before the re-check
  return (seq & 1U) != 0 || load<std::uint32_t>(page, mmap_page_layout::kLock) != seq;
}

}  // namespace perfx::sys::page_access
