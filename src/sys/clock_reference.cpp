// The kernel-facing half of perfx/time_conv.hpp: same-instant clock readings that give a
// TimeConverter its reference point.

#include <time.h>

#include <cerrno>
#include <cstring>
#include <string>

#include "perfx/time_conv.hpp"
#include "sys/cpu_instructions.hpp"

namespace perfx {
namespace {

/// clock_gettime in ns; false when the clock id is rejected.
bool now_ns(clockid_t clock, std::uint64_t& out) noexcept {
  timespec ts{};
  if (::clock_gettime(clock, &ts) != 0) return false;
  out = static_cast<std::uint64_t>(ts.tv_sec) * 1'000'000'000ULL +
        static_cast<std::uint64_t>(ts.tv_nsec);
  return true;
}

/// Takes `tries` readings of `sample_now` bracketed by CLOCK_MONOTONIC, keeps the one with
/// the narrowest bracket: a preemption inside one attempt then costs nothing.
template <typename SampleNow>
ClockReference best_reference(SampleNow sample_now) {
  constexpr int kTries = 8;
  ClockReference best;
  std::uint64_t best_window = ~0ULL;
  for (int i = 0; i < kTries; ++i) {
    std::uint64_t m1 = 0;
    std::uint64_t m2 = 0;
    std::uint64_t real = 0;
    now_ns(CLOCK_MONOTONIC, m1);
    const std::uint64_t sample = sample_now();
    now_ns(CLOCK_REALTIME, real);
    now_ns(CLOCK_MONOTONIC, m2);
    const std::uint64_t window = m2 - m1;
    if (window < best_window) {
      best_window = window;
      // The sample clock was read a quarter into the window, the realtime clock
      // three quarters in: pair each with the monotonic value at its own moment.
      best.sample_time = sample;
      best.monotonic_ns = m1 + window / 4;
      best.realtime_ns = real - (window / 2);
      best.uncertainty_ns = window / 2;
    }
  }
  return best;
}

}  // namespace

Result<TimeConverter> time_converter_for_perf_clock(const MmapPageView& page) {
  PERFX_TRY(snap, page.snapshot());
  const TscConversion conv = TscConversion::from_snapshot(snap);
  if (!snap.capabilities.user_time_zero) {
    return tl::unexpected(
        Error(Errc::kNotSupported,
              "cap_user_time_zero is 0 in the metadata page: this kernel does not relate its perf "
              "clock to the TSC (it does only when sched_clock runs on a stable native TSC; a VM "
              "whose sched_clock is kvm-clock, or a TSC marked unstable, gives 0). Open the events "
              "with use_clockid (perfx::set_sample_clock) and use time_converter_for_clockid()"));
  }
  if (conv.time_mult == 0) {
    return tl::unexpected(
        Error(Errc::kMalformedData, "metadata page: cap_user_time_zero is set but time_mult is 0"));
  }
  if (!sys::kHaveRdtsc) {
    return tl::unexpected(
        Error(Errc::kNotSupported,
              std::string("reading the TSC is implemented for x86 only, not ") + sys::kArchName));
  }
  const ClockReference ref =
      best_reference([&conv] { return tsc_to_perf_time(sys::rdtsc(), conv); });
  return TimeConverter(SampleClock::kPerfClock, CLOCK_MONOTONIC, ref, conv, {});
}

Result<TimeConverter> time_converter_for_clockid(clockid_t clockid) {
  std::uint64_t probe = 0;
  if (!now_ns(clockid, probe)) {
    const int err = errno;
    return tl::unexpected(Error(
        Errc::kInvalidArgument,
        "clock_gettime rejects clockid " + std::to_string(clockid) + ": " + std::strerror(err),
        err));
  }
  ClockReference ref;
  if (clockid == CLOCK_MONOTONIC) {
    // The sample clock is CLOCK_MONOTONIC itself: one reading serves both.
    ref = best_reference([] {
      std::uint64_t t = 0;
      now_ns(CLOCK_MONOTONIC, t);
      return t;
    });
    ref.monotonic_ns = ref.sample_time;
  } else {
    ref = best_reference([clockid] {
      std::uint64_t t = 0;
      now_ns(clockid, t);
      return t;
    });
    if (clockid == CLOCK_REALTIME) ref.realtime_ns = ref.sample_time;
  }
  return TimeConverter(SampleClock::kClockid, clockid, ref, std::nullopt,
                       "the events use clockid " + std::to_string(clockid) +
                           " (use_clockid): the kernel relates only its default perf clock "
                           "to the TSC (time_zero), not other clocks");
}

}  // namespace perfx
