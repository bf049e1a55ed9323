#include "core/cpu_list_text.hpp"

#include <fmt/format.h>

namespace perfx::core {

std::string format_cpus(std::span<const int> cpus) {
  std::string out;
  std::size_t i = 0;
  while (i < cpus.size()) {
    std::size_t j = i;
    while (j + 1 < cpus.size() && cpus[j + 1] == cpus[j] + 1) ++j;
    if (!out.empty()) out += ',';
    if (j == i) {
      out += std::to_string(cpus[i]);
    } else {
      out += fmt::format("{}-{}", cpus[i], cpus[j]);
    }
    i = j + 1;
  }
  return out;
}

}  // namespace perfx::core
