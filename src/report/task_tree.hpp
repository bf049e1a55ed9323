#pragma once
/// \file
/// `perfx report --tasks` / `--mmaps`: the recording's threads as perf report prints them
/// (tasks_print()): a tree by parent thread, one line per thread
///
///   #      pid      tid     ppid  comm
///            0        0       -1 |swapper
///        24623    24623       -1 |sh
///        24625    24625    24623 | seq
///
/// and, with `mmaps`, the maps of each thread's process under it (start-end, prot,
/// pgoff, inode, file), as perf has them at the end of the recording.

#include <ostream>
#include <string>

#include "perfx/error.hpp"
#include "profile/task_list.hpp"

namespace perfx::report {

/// Writes the thread tree (profile::build_task_tree()). A damaged file: the tree of what
/// was read, then the error naming the damage.
[[nodiscard]] Result<void> write_task_tree(std::ostream& out, const profile::TaskTree& tree,
                                           bool mmaps);

}  // namespace perfx::report
