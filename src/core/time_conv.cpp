// Pure parts of perfx/time_conv.hpp: the man page's TSC formulas and the reference-point
// shifts. The clock readings that build a converter live in sys/clock_reference.cpp.

#include "perfx/time_conv.hpp"

#include <utility>

namespace perfx {

TscConversion TscConversion::from_snapshot(const MmapPageSnapshot& page) noexcept {
  TscConversion c;
  c.time_shift = page.time_shift;
  c.time_mult = page.time_mult;
  c.time_zero = page.time_zero;
  c.time_cycles = page.time_cycles;
  c.time_mask = page.time_mask;
  c.cap_user_time_zero = page.capabilities.user_time_zero;
  c.cap_user_time_short = page.capabilities.user_time_short;
  return c;
}

std::uint64_t cycles_to_ns(std::uint64_t cyc, std::uint32_t mult, std::uint16_t shift,
                           std::uint64_t base) noexcept {
  // Split cyc so that neither product overflows: quot * mult is the whole-unit part and
  // rem * mult < 2^shift * 2^32 (shift is at most 32 in practice; clamp to stay defined).
  const unsigned s = shift < 63 ? shift : 63;
  const std::uint64_t quot = cyc >> s;
  const std::uint64_t rem = cyc & ((std::uint64_t{1} << s) - 1);
  return base + quot * mult + ((rem * mult) >> s);
}

std::uint64_t tsc_to_perf_time(std::uint64_t cyc, const TscConversion& conv) noexcept {
  if (conv.cap_user_time_short) {
    cyc = conv.time_cycles + ((cyc - conv.time_cycles) & conv.time_mask);
  }
  return cycles_to_ns(cyc, conv.time_mult, conv.time_shift, conv.time_zero);
}

std::uint64_t perf_time_to_tsc(std::uint64_t ts, const TscConversion& conv) noexcept {
  if (conv.time_mult == 0) return 0;
  const unsigned s = conv.time_shift < 63 ? conv.time_shift : 63;
  const std::uint64_t t = ts - conv.time_zero;
  const std::uint64_t quot = t / conv.time_mult;
  const std::uint64_t rem = t % conv.time_mult;
  return (quot << s) + (rem << s) / conv.time_mult;
}

TimeConverter::TimeConverter(SampleClock clock, clockid_t clockid, ClockReference reference,
                             std::optional<TscConversion> tsc, std::string tsc_unavailable)
    : clock_(clock),
      clockid_(clockid),
      ref_(reference),
      tsc_(tsc),
      tsc_unavailable_(std::move(tsc_unavailable)) {
  if (tsc_) tsc_unavailable_.clear();
  if (!tsc_ && tsc_unavailable_.empty()) tsc_unavailable_ = "no TSC conversion was given";
}

Result<std::uint64_t> TimeConverter::sample_to_tsc(std::uint64_t sample_time) const {
  if (!tsc_) return tl::unexpected(Error(Errc::kNotSupported, tsc_unavailable_));
  return perf_time_to_tsc(sample_time, *tsc_);
}

Result<std::uint64_t> TimeConverter::tsc_to_sample(std::uint64_t tsc) const {
  if (!tsc_) return tl::unexpected(Error(Errc::kNotSupported, tsc_unavailable_));
  return tsc_to_perf_time(tsc, *tsc_);
}

// The shifts below are modulo 2^64: a time before the reference point gives a negative
// difference, which wraps and unwraps exactly.
std::uint64_t TimeConverter::sample_to_monotonic(std::uint64_t sample_time) const noexcept {
  return ref_.monotonic_ns + (sample_time - ref_.sample_time);
}

std::uint64_t TimeConverter::monotonic_to_sample(std::uint64_t monotonic_ns) const noexcept {
  return ref_.sample_time + (monotonic_ns - ref_.monotonic_ns);
}

std::uint64_t TimeConverter::sample_to_wall(std::uint64_t sample_time) const noexcept {
  return ref_.realtime_ns + (sample_time - ref_.sample_time);
}

std::uint64_t TimeConverter::wall_to_sample(std::uint64_t wall_ns) const noexcept {
  return ref_.sample_time + (wall_ns - ref_.realtime_ns);
}

void set_sample_clock(raw::EventAttr& attr, clockid_t clockid) noexcept {
  attr.use_clockid = 1;
  attr.clockid = clockid;
}

}  // namespace perfx
