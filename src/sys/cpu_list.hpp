#pragma once
/// \file
/// CPU lists as the kernel and perf write them ("0-3,6,8-9"): parsing (-C, sysfs
/// online/possible files) and formatting.

#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "core/cpu_list_text.hpp"
#include "perfx/error.hpp"

namespace perfx::sys {

/// Parses "0,2-3" into sorted, de-duplicated CPU numbers (core::parse_cpus).
using core::parse_cpus;

/// The compact form of sorted CPU numbers: {0,1,2,5} -> "0-2,5".
using core::format_cpus;

/// The online CPUs (/sys/devices/system/cpu/online by default).
Result<std::vector<int>> read_online_cpus(
    const std::string& path = "/sys/devices/system/cpu/online");

/// Checks that every CPU in `wanted` is in `online`; kInvalidArgument naming the first
/// missing one: "CPU 7 is not online (online: 0-1)".
Result<void> check_cpus_online(std::span<const int> wanted, std::span<const int> online);

}  // namespace perfx::sys
