#include "sys/reader_affinity.hpp"

#include <algorithm>

#include "sys/cpu_list.hpp"
#include "sys/system_info.hpp"

namespace perfx::sys {

ReaderAffinity::ReaderAffinity(const std::string& mode) {
  if (mode == "cpu") mode_ = Mode::kCpu;
  if (mode != "node") return;
  mode_ = Mode::kNode;
  for (int n = 0;; ++n) {
    auto list = read_text_file("/sys/devices/system/node/node" + std::to_string(n) + "/cpulist");
    if (!list) break;
    auto cpus = parse_cpus(*list);
    nodes_.push_back(cpus ? std::move(*cpus) : std::vector<int>{});
  }
}

void ReaderAffinity::before_buffer(int cpu) {
  if (mode_ == Mode::kSys || cpu < 0 || cpu >= CPU_SETSIZE) return;
  std::vector<int> cpus{cpu};
  int key = cpu;
  if (mode_ == Mode::kNode) {
    for (std::size_t n = 0; n < nodes_.size(); ++n) {
      if (std::find(nodes_[n].begin(), nodes_[n].end(), cpu) == nodes_[n].end()) continue;
      cpus = nodes_[n];
      key = static_cast<int>(n);
    }
  }
  if (key == last_set_) return;
  cpu_set_t set;
  CPU_ZERO(&set);
  for (int c : cpus)
    if (c >= 0 && c < CPU_SETSIZE) CPU_SET(static_cast<unsigned>(c), &set);
  // A failure (a CPU set the cgroup forbids) only costs locality: keep reading.
  if (::sched_setaffinity(0, sizeof set, &set) == 0) last_set_ = key;
}

}  // namespace perfx::sys
