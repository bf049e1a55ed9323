#pragma once
/// \file
/// Time conversion between the clocks a perf user meets: sample timestamps
/// (PERF_SAMPLE_TIME / sample_id_all `time`), the CPU's time-stamp counter (TSC),
/// CLOCK_MONOTONIC and wall time (CLOCK_REALTIME).
///
/// Sample timestamps are on the *perf clock* (the kernel's local_clock()) unless the event
/// was opened with `use_clockid`, in which case they are on the attr's `clockid`.
///  - perf clock <-> TSC uses the metadata page's `time_zero`, `time_mult`, `time_shift`
///    (and `time_cycles`/`time_mask` for a short counter), man perf_event_open(2),
///    "time_zero". The kernel publishes them (cap_user_time_zero = 1) only when its
///    sched_clock runs on a stable native TSC; a VM whose sched_clock is kvm-clock, or a
///    machine whose TSC was marked unstable, gets cap_user_time_zero = 0.
///  - perf clock <-> CLOCK_MONOTONIC / wall time has no kernel formula: perfx reads the TSC
///    around clock_gettime() to take a same-instant reference point and shifts by it.
///  - When cap_user_time_zero is 0 the fallback is `use_clockid`: open the events with
///    set_sample_clock(attr, CLOCK_MONOTONIC) so the timestamps *are* CLOCK_MONOTONIC, and
///    build the converter with time_converter_for_clockid(); TSC conversions then say why
///    they are unavailable.
///
/// \code
///   auto conv = perfx::time_converter_for_perf_clock(page);       // cap_user_time_zero = 1
///   if (!conv) conv = perfx::time_converter_for_clockid(CLOCK_MONOTONIC);  // the fallback
///   std::uint64_t wall_ns = conv->sample_to_wall(sample_time);
/// \endcode

#include <time.h>

#include <cstdint>
#include <optional>
#include <string>

#include "perfx/error.hpp"
#include "perfx/export.hpp"
#include "perfx/mmap_page.hpp"
#include "perfx/raw.hpp"

namespace perfx {

/// The TSC <-> perf clock parameters: from the metadata page, or from a perf.data
/// PERF_RECORD_TIME_CONV (which carries the same fields).
struct PERFX_API TscConversion {
  std::uint16_t time_shift = 0;
  std::uint32_t time_mult = 0;
  std::uint64_t time_zero = 0;
  std::uint64_t time_cycles = 0;  ///< used when cap_user_time_short
  std::uint64_t time_mask = 0;    ///< used when cap_user_time_short
  bool cap_user_time_zero = false;
  bool cap_user_time_short = false;

  /// The conversion fields of a metadata page snapshot.
  [[nodiscard]] static TscConversion from_snapshot(const MmapPageSnapshot& page) noexcept;
  /// True when the fields can be used: cap_user_time_zero set and time_mult non-zero.
  [[nodiscard]] bool usable() const noexcept { return cap_user_time_zero && time_mult != 0; }
};

/// The man page's overflow-safe `base + cyc * mult >> shift`:
/// `base + (cyc >> shift) * mult + (((cyc & ((1 << shift) - 1)) * mult) >> shift)`.
/// With base = time_offset it is the self-monitoring time delta; with base = time_zero it
/// is TSC -> perf clock. Arithmetic is modulo 2^64, as in the kernel.
[[nodiscard]] PERFX_API std::uint64_t cycles_to_ns(std::uint64_t cyc, std::uint32_t mult,
                                                   std::uint16_t shift,
                                                   std::uint64_t base) noexcept;

/// TSC -> perf clock (man page "time_zero"); applies the short-counter correction
/// `cyc = time_cycles + ((cyc - time_cycles) & time_mask)` first when cap_user_time_short.
/// Precondition: conv.usable() (otherwise the result is meaningless).
[[nodiscard]] PERFX_API std::uint64_t tsc_to_perf_time(std::uint64_t cyc,
                                                       const TscConversion& conv) noexcept;

/// Perf clock -> TSC (man page "time_zero": `time = ts - time_zero; cyc = (time / mult <<
/// shift) + ((time % mult) << shift) / mult`). Returns 0 when time_mult is 0. Inverse of
/// tsc_to_perf_time to within one TSC tick (the forward direction truncates).
[[nodiscard]] PERFX_API std::uint64_t perf_time_to_tsc(std::uint64_t ts,
                                                       const TscConversion& conv) noexcept;

/// Which clock sample timestamps are on.
enum class SampleClock : std::uint8_t {
  kPerfClock,  ///< the default (use_clockid = 0): the kernel's local_clock()
  kClockid,    ///< use_clockid = 1: the attr's clockid
};

/// Readings of the sample clock, CLOCK_MONOTONIC and CLOCK_REALTIME taken at (almost) the
/// same instant: the reference point conversions shift by.
struct PERFX_API ClockReference {
  std::uint64_t sample_time = 0;     ///< the sample clock
  std::uint64_t monotonic_ns = 0;    ///< CLOCK_MONOTONIC
  std::uint64_t realtime_ns = 0;     ///< CLOCK_REALTIME, ns since the Unix epoch
  std::uint64_t uncertainty_ns = 0;  ///< half the window the readings were taken in
};

/// Converts timestamps between the sample clock, TSC, CLOCK_MONOTONIC and wall time.
/// Sample <-> monotonic/wall shifts by the reference point, so it drifts with the rate
/// difference of the clocks (NTP slews CLOCK_MONOTONIC, not the perf clock): take a new
/// reference (build a new converter) every few minutes for sub-microsecond agreement.
class PERFX_API TimeConverter {
 public:
  /// A converter from known parts (tests, recorded parameters). `tsc`: the TSC conversion
  /// of a perf-clock session, or nullopt with `tsc_unavailable` saying why.
  TimeConverter(SampleClock clock, clockid_t clockid, ClockReference reference,
                std::optional<TscConversion> tsc, std::string tsc_unavailable);

  /// Sample time -> TSC. Errors: kNotSupported with tsc_unavailable_reason().
  [[nodiscard]] Result<std::uint64_t> sample_to_tsc(std::uint64_t sample_time) const;
  /// TSC -> sample time. Errors: kNotSupported with tsc_unavailable_reason().
  [[nodiscard]] Result<std::uint64_t> tsc_to_sample(std::uint64_t tsc) const;
  /// Sample time -> CLOCK_MONOTONIC ns.
  [[nodiscard]] std::uint64_t sample_to_monotonic(std::uint64_t sample_time) const noexcept;
  /// CLOCK_MONOTONIC ns -> sample time.
  [[nodiscard]] std::uint64_t monotonic_to_sample(std::uint64_t monotonic_ns) const noexcept;
  /// Sample time -> wall time (CLOCK_REALTIME ns since the epoch).
  [[nodiscard]] std::uint64_t sample_to_wall(std::uint64_t sample_time) const noexcept;
  /// Wall time (CLOCK_REALTIME ns since the epoch) -> sample time.
  [[nodiscard]] std::uint64_t wall_to_sample(std::uint64_t wall_ns) const noexcept;

  /// Whether TSC conversions are available.
  [[nodiscard]] bool has_tsc() const noexcept { return tsc_.has_value(); }
  /// Why they are not (empty when they are).
  [[nodiscard]] const std::string& tsc_unavailable_reason() const noexcept {
    return tsc_unavailable_;
  }
  /// The clock sample timestamps are on.
  [[nodiscard]] SampleClock sample_clock() const noexcept { return clock_; }
  /// The clockid for SampleClock::kClockid.
  [[nodiscard]] clockid_t clockid() const noexcept { return clockid_; }
  /// The reference point.
  [[nodiscard]] const ClockReference& reference() const noexcept { return ref_; }
  /// The TSC parameters (nullopt without TSC conversions).
  [[nodiscard]] const std::optional<TscConversion>& tsc() const noexcept { return tsc_; }

 private:
  SampleClock clock_;
  clockid_t clockid_;
  ClockReference ref_;
  std::optional<TscConversion> tsc_;
  std::string tsc_unavailable_;
};

/// A converter for events on the default perf clock, from the metadata page of any event
/// of this machine (a one-page mapping suffices; see SelfMonitor or Sampler). Reads the TSC
/// around clock_gettime() for the reference point (x86 only).
/// Errors: kNotSupported with the reason when the page has cap_user_time_zero = 0 (this
/// kernel does not tie its perf clock to the TSC: use set_sample_clock() and
/// time_converter_for_clockid() instead) or the build is not x86.
[[nodiscard]] PERFX_API Result<TimeConverter> time_converter_for_perf_clock(
    const MmapPageView& page);

/// A converter for events opened with use_clockid = 1 and `clockid` (see set_sample_clock):
/// the reference pairs that clock with CLOCK_MONOTONIC and CLOCK_REALTIME. TSC conversions
/// are unavailable (the kernel relates only its perf clock to the TSC), with that reason.
/// Errors: kInvalidArgument when clock_gettime() rejects `clockid`.
[[nodiscard]] PERFX_API Result<TimeConverter> time_converter_for_clockid(clockid_t clockid);

/// The fallback when cap_user_time_zero is 0: sets use_clockid = 1 and `clockid` on an attr
/// so its timestamps are taken on that clock (CLOCK_MONOTONIC, CLOCK_MONOTONIC_RAW,
/// CLOCK_REALTIME, CLOCK_BOOTTIME or CLOCK_TAI; others give EINVAL at open).
PERFX_API void set_sample_clock(raw::EventAttr& attr, clockid_t clockid = CLOCK_MONOTONIC) noexcept;

}  // namespace perfx
