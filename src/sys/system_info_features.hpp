#pragma once
/// \file
/// Facts about the running system that perf.data feature sections carry (hostname, OS
/// release, arch, CPU count/description/CPUID, total memory, CPU topology, PMU mappings,
/// clock data), gathered into record::Features for the perf.data writer.

#include <string>
#include <string_view>
#include <vector>

#include "perfx/error.hpp"
#include "record/features.hpp"

namespace perfx::sys {

/// Fills the system-describing features: hostname, osrelease, version ("perfx <ver>"),
/// arch, nrcpus, cpudesc, cpuid, total_mem, cpu_topology, pmu_mappings, clock_data
/// (CLOCK_MONOTONIC vs CLOCK_REALTIME reference, the clock perf's default perf_clock follows
/// closely). Items that cannot be read are left unset (never fails).
/// `version` is what "perf version" shows in the header.
void gather_system_features(record::Features& out, std::string_view version);

/// x86 CPUID string as perf writes it ("AuthenticAMD,26,2,1": vendor,family,model,stepping)
/// from /proc/cpuinfo text; the first "model name" goes to `desc`. Empty when missing.
void parse_cpuinfo(std::string_view cpuinfo, std::string& cpuid, std::string& desc);

}  // namespace perfx::sys
