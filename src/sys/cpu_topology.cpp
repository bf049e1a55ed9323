// CPU places from sysfs (perfx::cpu_places, include/perfx/counter.hpp).
#include <dirent.h>

#include <algorithm>
#include <charconv>
#include <string>

#include "perfx/counter.hpp"
#include "sys/cpu_list.hpp"
#include "sys/system_info.hpp"

namespace perfx {
namespace {

// The integer in a sysfs file, or `missing` when it cannot be read.
int read_id(const std::string& path, int missing) {
  auto text = sys::read_text_file(path);
  if (!text) return missing;
  int v = 0;
  const auto [ptr, ec] = std::from_chars(text->data(), text->data() + text->size(), v);
  return ec == std::errc() && ptr == text->data() + text->size() ? v : missing;
}

}  // namespace

std::vector<CpuPlace> cpu_places(std::span<const int> cpus, const std::string& sysfs_root) {
  std::vector<CpuPlace> places(cpus.size());
  const std::string cpu_dir = sysfs_root + "/devices/system/cpu/cpu";
  for (std::size_t i = 0; i < cpus.size(); ++i) {
    if (cpus[i] < 0) continue;
    const std::string topo = cpu_dir + std::to_string(cpus[i]) + "/topology/";
    places[i].socket = read_id(topo + "physical_package_id", -1);
    // A kernel without die ids: one die per socket, as perf takes it.
    places[i].die = read_id(topo + "die_id", 0);
    places[i].core = read_id(topo + "core_id", -1);
  }
  // Nodes list their CPUs (node/nodeN/cpulist); a kernel without NUMA has no node
  // directory and leaves every node -1, as perf's cpunode map does.
  const std::string node_dir = sysfs_root + "/devices/system/node";
  if (DIR* d = ::opendir(node_dir.c_str())) {
    while (const dirent* e = ::readdir(d)) {
      const std::string_view name = e->d_name;
      int node = 0;
      if (!name.starts_with("node") ||
          std::from_chars(name.data() + 4, name.data() + name.size(), node).ec != std::errc())
        continue;
      auto list = sys::read_text_file(node_dir + "/" + std::string(name) + "/cpulist");
      if (!list || list->empty()) continue;
      auto members = sys::parse_cpus(*list);
      if (!members) continue;
      for (std::size_t i = 0; i < cpus.size(); ++i)
        if (std::binary_search(members->begin(), members->end(), cpus[i])) places[i].node = node;
    }
    ::closedir(d);
  }
  return places;
}

}  // namespace perfx
