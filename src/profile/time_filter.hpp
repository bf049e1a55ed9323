#pragma once
/// \file
/// perf's `--time` syntax (tools/perf/util/time-utils.c, perf 6.1):
///   "START,STOP"             seconds[.fraction] in the perf clock, either side may be empty
///   "A,B C,D"                several windows, separated by spaces, in increasing order
///   "10%/2"                  the 2nd 10% slice of [first sample, last sample]
///   "0%-10%", "10%"          a percent range, the first 10%
///   "10%/1,10%/3", "0%-10%,30%-40%"   several percent windows
/// Percent forms need the recording's first/last sample time (HEADER_SAMPLE_TIME).

#include <cstdint>
#include <optional>
#include <string_view>
#include <vector>

#include "perfx/error.hpp"

namespace perfx::profile {

/// One window in perf clock nanoseconds, inclusive; 0 = open on that side (as perf).
struct TimeRange {
  std::uint64_t start = 0;
  std::uint64_t end = 0;
  friend bool operator==(const TimeRange&, const TimeRange&) = default;
};

struct TimeFilter {
  std::vector<TimeRange> ranges;  ///< empty = keep everything
  /// perf_time__ranges_skip_sample(): true when `time_ns` is outside every window.
  /// Samples without a time (0) are kept.
  [[nodiscard]] bool skip(std::uint64_t time_ns) const noexcept;
};

/// Parses `spec`. `sample_time` = (first, last) sample time of the recording, needed
/// only by the percent forms. Errors: kInvalidArgument naming the text that could not be
/// parsed (and why), or saying that the recording has no first/last sample time.
[[nodiscard]] Result<TimeFilter> parse_time_filter(
    std::string_view spec,
    std::optional<std::pair<std::uint64_t, std::uint64_t>> sample_time = std::nullopt);

}  // namespace perfx::profile
