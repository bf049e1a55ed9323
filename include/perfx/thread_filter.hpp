#pragma once
/// \file
/// perf's thread filter (--comms, --pid, --tid of report, script and diff): a thread is
/// kept when each non-empty list names it.

#include <algorithm>
#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "perfx/export.hpp"

namespace perfx {

/// Which threads' samples count: each list that is not empty must name the thread.
struct PERFX_API ThreadFilter {
  std::vector<std::string> comms;  ///< --comms: thread names
  std::vector<std::int32_t> pids;  ///< --pid: process ids
  std::vector<std::int32_t> tids;  ///< --tid: thread ids

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

}  // namespace perfx
