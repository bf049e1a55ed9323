#pragma once
// A simulated perf_event metadata page for unit tests, with a writer that follows the
// kernel's protocol (perf_event_update_userpage: ++lock, write the fields, ++lock).

#include <linux/perf_event.h>

#include <cstdint>

#include "perfx/mmap_page.hpp"

namespace perfx::testing {

struct FakeMmapPage {
  alignas(4096) perf_event_mmap_page page{};

  [[nodiscard]] MmapPageView view() noexcept { return MmapPageView(&page); }

  /// ++lock (odd: an update is in progress), ordered before the field stores.
  void begin_update() noexcept {
    const std::uint32_t seq = __atomic_load_n(&page.lock, __ATOMIC_RELAXED);
    __atomic_store_n(&page.lock, seq + 1, __ATOMIC_RELAXED);
    __atomic_thread_fence(__ATOMIC_RELEASE);
  }
  /// ++lock (even again), after the field stores.
  void end_update() noexcept {
    const std::uint32_t seq = __atomic_load_n(&page.lock, __ATOMIC_RELAXED);
    __atomic_store_n(&page.lock, seq + 1, __ATOMIC_RELEASE);
  }
  template <typename T, typename V>
  static void put(T& field, V value) noexcept {
    __atomic_store_n(&field, static_cast<T>(value), __ATOMIC_RELAXED);
  }
  void set_caps(bool rdpmc, bool time, bool time_zero, bool time_short) noexcept {
    std::uint64_t bits = 1ULL << 1;  // cap_bit0_is_deprecated, as every kernel >= 3.12
    if (rdpmc) bits |= 1ULL << 2;
    if (time) bits |= 1ULL << 3;
    if (time_zero) bits |= 1ULL << 4;
    if (time_short) bits |= 1ULL << 5;
    put(page.capabilities, bits);
  }
};

}  // namespace perfx::testing
