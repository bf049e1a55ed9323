#pragma once
/// \file
/// The compact text of a CPU list as the kernel and perf write it ("0-3,6,8-9"). Pure:
/// sys::parse_cpus() reads such text, perf.data's CPU_MAP records print through it.

#include <span>
#include <string>

namespace perfx::core {

/// The compact form of sorted CPU numbers: {0,1,2,5} -> "0-2,5" (perf's -1 for "any CPU"
/// joins a following 0: {-1,0,1} -> "-1-1").
std::string format_cpus(std::span<const int> cpus);

}  // namespace perfx::core
