#pragma once
/// \file
/// perf's thread filter (--comms, --pid, --tid of report, script and diff) is public
/// (perfx::ThreadFilter, perfx/recording.hpp); modules name it profile::ThreadFilter.

#include "perfx/recording.hpp"

namespace perfx::profile {

using ThreadFilter = perfx::ThreadFilter;

}  // namespace perfx::profile
