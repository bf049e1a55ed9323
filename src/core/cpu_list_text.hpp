#pragma once
/// \file
/// The text of a CPU list as the kernel and perf write it ("0-3,6,8-9"), both ways. Pure:
/// -C and sysfs lists (sys), perf.data's CPU_MAP records and NUMA_TOPOLOGY lists use it.

#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "perfx/error.hpp"

namespace perfx::core {

/// Parses "0,2-3" into sorted, de-duplicated CPU numbers. Whitespace and a trailing
/// newline are allowed. Errors (kInvalidArgument) name the bad item and its position:
/// "bad CPU list '0,x': 'x' is not a CPU number". An empty list is an error.
Result<std::vector<int>> parse_cpus(std::string_view text);

/// The compact form of sorted CPU numbers: {0,1,2,5} -> "0-2,5" (perf's -1 for "any CPU"
/// joins a following 0: {-1,0,1} -> "-1-1").
std::string format_cpus(std::span<const int> cpus);

}  // namespace perfx::core
