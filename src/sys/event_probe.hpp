#pragma once
/// \file
/// `perfx list`'s probe: open each listed event once (pid 0, cpu -1, disabled, closed at
/// once) to say whether it works on this machine, and why not when it does not.

#include <string>
#include <string_view>
#include <vector>

#include "event/event_list.hpp"
#include "event/resolver.hpp"
#include "perfx/raw.hpp"

namespace perfx::sys {

/// How much probe_event_list() opens.
struct ProbeOptions {
  /// false: open nothing; every resolvable entry gets status "not probed".
  bool probe = true;
  /// Really open every tracepoint and a real uprobe on this binary's main(). Slow:
  /// closing each waits for an RCU grace period (tens of ms). Otherwise tracepoints whose
  /// id resolved are "available" and uprobes are probed on a path that does not exist
  /// (the uprobe PMU checks permissions before the path, so ENOENT means "works").
  bool full = false;
  /// Path a full uprobe probe attaches to (its `main`).
  std::string self_path = "/proc/self/exe";
};

/// Fills `supported`, `probed` and `status` of every entry. Probes run on a few threads
/// (the RCU waits on close overlap). Never fails: a failed open is the entry's status.
void probe_event_list(std::vector<event::ListEntry>& entries, const event::Resolver& resolver,
                      const ProbeOptions& options);

/// Short reason for an open that failed with `err` (a line of `perfx list`), e.g.
/// "not supported: no hardware PMU" or "not permitted (perf_event_paranoid=2)".
/// `paranoid` is the current value of perf_event_paranoid as text.
[[nodiscard]] std::string probe_failure_reason(int err, const raw::EventAttr& attr,
                                               std::string_view paranoid);

}  // namespace perfx::sys
