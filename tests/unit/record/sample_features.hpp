#pragma once
// A Features value with most typed feature sections set, shared by the perf.data tests.

#include <string>
#include <vector>

#include "record/features.hpp"

namespace perfx::record::testing {

inline Features sample_features() {
  Features f;
  f.hostname = "testhost";
  f.osrelease = "6.1.0-test";
  f.version = "6.1.perfx";
  f.arch = "x86_64";
  f.nrcpus = NrCpus{4, 2};
  f.cpudesc = "Test CPU @ 1GHz";
  f.cpuid = "GenuineIntel,6,85,4";
  f.total_mem_kb = 123456;
  f.cmdline = std::vector<std::string>{"/usr/bin/perfx", "record", "-g", "--", "prog"};
  CpuTopology t;
  t.core_siblings = {"0-3"};
  t.thread_siblings = {"0-1", "2-3"};
  for (std::uint32_t c = 0; c < 4; ++c) t.cpus.push_back({c / 2, 0, 0});
  t.has_dies = true;
  t.die_siblings = {"0-3"};
  f.cpu_topology = t;
  f.numa_topology.push_back({0, 1000, 500, "0-3"});
  f.pmu_mappings = {{1, "software"}, {2, "tracepoint"}};
  f.group_desc.push_back({"{cpu-clock}", 0, 1});
  f.cache.push_back({1, 64, 64, 8, "Data", "32K", "0-1"});
  f.clockid_res_ns = 1;
  f.clock_data = ClockData{1, 1, 1700000000123456789ULL, 5000};
  f.build_ids.push_back(
      {-1, PERF_RECORD_MISC_KERNEL, std::vector<std::uint8_t>(20, 0xab), "[kernel.kallsyms]"});
  f.build_ids.push_back({7, PERF_RECORD_MISC_USER, {1, 2, 3, 4}, "/usr/bin/prog"});
  f.cpu_pmu_caps = PmuCaps{"cpu", {{"branches", "32"}}};
  f.hybrid_topology.push_back({"cpu_core", "0-1"});
  f.pmu_caps.push_back(PmuCaps{"ibs_op", {{"zen4_ibs_extensions", "1"}}});
  return f;
}

}  // namespace perfx::record::testing
