#pragma once
/// \file
/// perf's thread filter (--comms, --pid, --tid of report, script and diff): a thread is
/// kept when each non-empty list names it.

#include <algorithm>
#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

namespace perfx::profile {

struct ThreadFilter {
  std::vector<std::string> comms;
  std::vector<std::int32_t> pids;
  std::vector<std::int32_t> tids;

  /// No list given: every thread is kept.
  [[nodiscard]] bool empty() const { return comms.empty() && pids.empty() && tids.empty(); }

  /// Whether a thread with this comm, pid and tid is kept.
  [[nodiscard]] bool keeps(std::string_view comm, std::int32_t pid, std::int32_t tid) const {
    auto listed = [](const auto& list, const auto& v) {
      return list.empty() || std::find(list.begin(), list.end(), v) != list.end();
    };
    return listed(comms, comm) && listed(pids, pid) && listed(tids, tid);
  }
};

}  // namespace perfx::profile
