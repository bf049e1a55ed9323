#include "sys/cpu_list.hpp"

#include <algorithm>

#include <fmt/format.h>

#include "core/error_format.hpp"
#include "core/text.hpp"
#include "sys/pmu_sysfs.hpp"

namespace perfx::sys {
Result<std::vector<int>> read_online_cpus(const std::string& path) {
  PERFX_TRY(text, read_text_file(path));
  auto cpus = parse_cpus(text);
  if (!cpus)
    return tl::unexpected(std::move(cpus).error().context(fmt::format("reading {}", path)));
  return cpus;
}

Result<void> check_cpus_online(std::span<const int> wanted, std::span<const int> online) {
  for (int c : wanted) {
    if (!std::binary_search(online.begin(), online.end(), c)) {
      return fail(Errc::kInvalidArgument, "CPU {} is not online (online: {})", c,
                  format_cpus(online));
    }
  }
  return {};
}

}  // namespace perfx::sys
