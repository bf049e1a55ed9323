#pragma once
/// \file
/// The threads behind `perf report --tasks` / `--mmaps` (builtin-report.c tasks_setup(),
/// tasks_print()): the recording's COMM, FORK and EXIT records (and MMAP/MMAP2 with maps)
/// replayed in time order into a tree by parent thread, in perf's order.

#include <cstdint>
#include <string>
#include <vector>

#include "perfx/error.hpp"

namespace perfx::record {
class PerfDataReader;
}

namespace perfx::profile {

/// One map of a thread's process, as perf has it at the end of the recording.
struct TaskMap {
  std::uint64_t start = 0, end = 0, pgoff = 0, ino = 0;
  std::uint32_t prot = 0;   ///< PROT_*
  std::uint32_t flags = 0;  ///< MAP_* (1: shared)
  std::string file;         ///< the DSO's path, "[unknown]" without one
};

/// One thread and the threads it forked (indices into TaskTree::tasks).
struct TaskNode {
  std::int32_t pid = 0, tid = 0, ppid = -1;
  std::string comm;
  std::vector<TaskMap> maps;  ///< with maps only, by address
  std::vector<std::size_t> children;
};

struct TaskTree {
  std::vector<TaskNode> tasks;
  std::vector<std::size_t> roots;  ///< threads without a parent, in perf's order
  /// A damaged file: the tree is of what was read before it; `damage` names it and
  /// `damage_code` is the error's code (kMalformedData for skipped bytes).
  std::string damage;
  Errc damage_code = Errc::kMalformedData;
};

/// Replays `reader` from where it stands. Errors: kMalformedData when a thread's parent
/// is not a thread of the recording (perf: "failed to process tasks").
[[nodiscard]] Result<TaskTree> build_task_tree(record::PerfDataReader& reader, bool maps);

}  // namespace perfx::profile
