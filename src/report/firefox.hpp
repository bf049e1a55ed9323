#pragma once
/// \file
/// Firefox Profiler export in the Gecko profile format (meta.version 24, the format
/// Linux perf's `perf script report gecko` and simpleperf write; profiler.firefox.com
/// upgrades it on load): one thread object per thread with samples over time, a
/// stackTable (prefix, frame), frameTable and stringTable; categories User/Kernel/JIT/Other.

#include <ostream>

#include "perfx/error.hpp"
#include "profile/profile.hpp"
#include "report/export.hpp"

namespace perfx::report {

/// The Gecko format version written into meta.version.
inline constexpr int kGeckoFormatVersion = 24;

/// Writes the Gecko-format JSON for one event (options.event, else the first with samples).
[[nodiscard]] Result<void> write_firefox(const profile::Profile& profile, std::ostream& out,
                                         const ExportOptions& options);

}  // namespace perfx::report
