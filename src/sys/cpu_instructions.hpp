#pragma once
// The two user-space counter instructions of the self-monitoring sequence (man
// perf_event_open(2), "cap_user_rdpmc"): rdpmc reads hardware counter `counter` (the
// page's index - 1), rdtsc reads the time-stamp counter. x86 only; elsewhere kHaveRdpmc
// and kHaveRdtsc are false and the functions return 0 (callers check first).

#include <cstdint>

namespace perfx::sys {

#if defined(__x86_64__) || defined(__i386__)
inline constexpr bool kHaveRdpmc = true;
inline constexpr bool kHaveRdtsc = true;

/// RDPMC: faults (SIGSEGV) unless the kernel allows it for this counter now, which the
/// metadata page says (cap_user_rdpmc and a non-zero index, read under the seqlock).
inline std::uint64_t rdpmc(std::uint32_t counter) noexcept {
  std::uint32_t lo = 0;
  std::uint32_t hi = 0;
  asm volatile("rdpmc" : "=a"(lo), "=d"(hi) : "c"(counter));
  return (static_cast<std::uint64_t>(hi) << 32) | lo;
}

/// RDTSC (not serialising: the seqlock re-check orders it well enough for scaling).
inline std::uint64_t rdtsc() noexcept {
  std::uint32_t lo = 0;
  std::uint32_t hi = 0;
  asm volatile("rdtsc" : "=a"(lo), "=d"(hi));
  return (static_cast<std::uint64_t>(hi) << 32) | lo;
}
#else
inline constexpr bool kHaveRdpmc = false;
inline constexpr bool kHaveRdtsc = false;
inline std::uint64_t rdpmc(std::uint32_t /*counter*/) noexcept { return 0; }
inline std::uint64_t rdtsc() noexcept { return 0; }
#endif

/// The machine name used in "not available on <arch>" messages.
inline constexpr const char* kArchName =
#if defined(__x86_64__)
    "x86_64";
#elif defined(__i386__)
    "i386";
#elif defined(__aarch64__)
    "aarch64";
#else
    "this architecture";
#endif

}  // namespace perfx::sys
