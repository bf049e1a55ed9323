#include "sys/system_info_features.hpp"

#include <dirent.h>
#include <sys/utsname.h>
#include <time.h>
#include <unistd.h>

#include <fmt/format.h>
#include <algorithm>
#include <charconv>
#include <memory>
#include <set>

#include "core/text.hpp"
#include "sys/cpu_list.hpp"
#include "sys/synthesize.hpp"

namespace perfx::sys {
namespace {

std::string read_trimmed(const std::string& path) {
  auto t = slurp_file(path);
  return t ? std::string(core::trim(*t)) : std::string();
}

std::string_view cpuinfo_value(std::string_view text, std::string_view key) {
  return core::line_value(text, key).value_or(std::string_view{});
}

}  // namespace

void parse_cpuinfo(std::string_view cpuinfo, std::string& cpuid, std::string& desc) {
  const std::string_view vendor = cpuinfo_value(cpuinfo, "vendor_id");
  const std::string_view family = cpuinfo_value(cpuinfo, "cpu family");
  const std::string_view model = cpuinfo_value(cpuinfo, "model");
  const std::string_view stepping = cpuinfo_value(cpuinfo, "stepping");
  if (!vendor.empty()) {
    cpuid = fmt::format("{},{},{},{}", vendor, family, model, stepping);
  }
  std::string_view name = cpuinfo_value(cpuinfo, "model name");
  // perf squeezes runs of blanks in the description.
  desc.clear();
  for (char c : name) {
    if (c == '\t') c = ' ';
    if (c == ' ' && !desc.empty() && desc.back() == ' ') continue;
    desc.push_back(c);
  }
  desc = std::string(core::trim(desc));
}

void gather_system_features(record::Features& out, std::string_view version) {
  utsname u{};
  if (::uname(&u) == 0) {
    out.hostname = u.nodename;
    out.osrelease = u.release;
    out.arch = u.machine;
  }
  out.version = std::string(version);

  auto online = read_online_cpus();
  auto present = parse_cpus(read_trimmed("/sys/devices/system/cpu/present"));
  if (online) {
    record::NrCpus n;
    n.online = static_cast<std::uint32_t>(online->size());
    n.available =
        present && !present->empty() ? static_cast<std::uint32_t>(present->back() + 1) : n.online;
    out.nrcpus = n;
  }

  if (auto cpuinfo = slurp_file("/proc/cpuinfo")) {
    std::string cpuid, desc;
    parse_cpuinfo(*cpuinfo, cpuid, desc);
    if (!cpuid.empty()) out.cpuid = cpuid;
    if (!desc.empty()) out.cpudesc = desc;
  }

  if (auto meminfo = slurp_file("/proc/meminfo")) {
    std::string_view v = cpuinfo_value(*meminfo, "MemTotal");
    std::uint64_t kb = 0;
    if (std::from_chars(v.data(), v.data() + v.size(), kb).ec == std::errc()) {
      out.total_mem_kb = kb;
    }
  }

  if (present && !present->empty()) {
    record::CpuTopology topo;
    std::set<std::string> cores_seen, threads_seen, dies_seen;
    const int ncpu = present->back() + 1;
    for (int cpu = 0; cpu < ncpu; ++cpu) {
      const std::string base = fmt::format("/sys/devices/system/cpu/cpu{}/topology/", cpu);
      std::string core_sib = read_trimmed(base + "core_siblings_list");
      std::string thread_sib = read_trimmed(base + "thread_siblings_list");
      std::string die_sib = read_trimmed(base + "die_cpus_list");
      if (!core_sib.empty() && cores_seen.insert(core_sib).second) {
        topo.core_siblings.push_back(core_sib);
      }
      if (!thread_sib.empty() && threads_seen.insert(thread_sib).second) {
        topo.thread_siblings.push_back(thread_sib);
      }
      if (!die_sib.empty() && dies_seen.insert(die_sib).second) {
        topo.die_siblings.push_back(die_sib);
      }
      record::CpuTopology::Cpu c;
      auto to_u32 = [](const std::string& s) {
        std::uint32_t v = 0;
        std::from_chars(s.data(), s.data() + s.size(), v);
        return v;
      };
      c.core_id = to_u32(read_trimmed(base + "core_id"));
      c.socket_id = to_u32(read_trimmed(base + "physical_package_id"));
      c.die_id = to_u32(read_trimmed(base + "die_id"));
      topo.cpus.push_back(c);
    }
    topo.has_dies = !topo.die_siblings.empty();
    if (!topo.core_siblings.empty()) out.cpu_topology = std::move(topo);
  }

  // NUMA nodes: MemTotal/MemFree of each online node and its CPU list.
  if (auto nodes = parse_cpus(read_trimmed("/sys/devices/system/node/online"))) {
    for (int node : *nodes) {
      const std::string base = fmt::format("/sys/devices/system/node/node{}/", node);
      auto meminfo = slurp_file(base + "meminfo");
      if (!meminfo) continue;
      record::NumaNode n;
      n.node = static_cast<std::uint32_t>(node);
      auto kb_of = [&](std::string_view key) {
        // lines look like "Node 0 MemTotal:       14772428 kB"
        const std::size_t at = meminfo->find(key);
        std::uint64_t v = 0;
        if (at == std::string::npos) return v;
        std::size_t p = at + key.size();
        while (p < meminfo->size() && ((*meminfo)[p] == ' ' || (*meminfo)[p] == ':')) ++p;
        std::from_chars(meminfo->data() + p, meminfo->data() + meminfo->size(), v);
        return v;
      };
      n.mem_total_kb = kb_of("MemTotal");
      n.mem_free_kb = kb_of("MemFree");
      n.cpus = read_trimmed(base + "cpulist");
      out.numa_topology.push_back(std::move(n));
    }
  }

  // PMU mappings: name = type for every PMU in sysfs (perf's "pmu mappings" line).
  const char* pmu_dir = "/sys/bus/event_source/devices";
  std::unique_ptr<DIR, int (*)(DIR*)> d(::opendir(pmu_dir), ::closedir);
  if (d) {
    std::vector<record::PmuMapping> pmus;
    while (dirent* e = ::readdir(d.get())) {
      if (e->d_name[0] == '.') continue;
      std::string type = read_trimmed(fmt::format("{}/{}/type", pmu_dir, e->d_name));
      std::uint32_t t = 0;
      if (type.empty() ||
          std::from_chars(type.data(), type.data() + type.size(), t).ec != std::errc()) {
        continue;
      }
      pmus.push_back(record::PmuMapping{t, e->d_name});
    }
    std::sort(pmus.begin(), pmus.end(),
              [](const auto& a, const auto& b) { return a.type < b.type; });
    out.pmu_mappings = std::move(pmus);
  }

  timespec real{}, mono{};
  if (::clock_gettime(CLOCK_REALTIME, &real) == 0 && ::clock_gettime(CLOCK_MONOTONIC, &mono) == 0) {
    record::ClockData cd;
    cd.version = 1;
    cd.clockid = CLOCK_MONOTONIC;
    cd.wall_clock_ns = static_cast<std::uint64_t>(real.tv_sec) * 1000000000ULL +
                       static_cast<std::uint64_t>(real.tv_nsec);
    cd.clockid_time_ns = static_cast<std::uint64_t>(mono.tv_sec) * 1000000000ULL +
                         static_cast<std::uint64_t>(mono.tv_nsec);
    out.clock_data = cd;
  }
}

}  // namespace perfx::sys
