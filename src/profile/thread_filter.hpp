#pragma once
/// \file
/// perf's thread filter: the public perfx::ThreadFilter (perfx/thread_filter.hpp).

#include "perfx/thread_filter.hpp"

namespace perfx::profile {

using ThreadFilter = perfx::ThreadFilter;

}  // namespace perfx::profile
