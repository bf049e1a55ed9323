#include "report/task_tree.hpp"

#include <fmt/format.h>

#include "core/error_format.hpp"

namespace perfx::report {
namespace {

// perf's maps__fprintf_task(): one line per map of the thread's process, by address.
void print_maps(std::string& out, const profile::TaskNode& t, int indent) {
  for (const auto& m : t.maps) {
    fmt::format_to(std::back_inserter(out), "{:{}}  {:x}-{:x} {}{}{}{} {:08x} {} {}\n", "", indent,
                   m.start, m.end, (m.prot & 1u) ? 'r' : '-', (m.prot & 2u) ? 'w' : '-',
                   (m.prot & 4u) ? 'x' : '-', (m.flags & 1u) ? 's' : 'p', m.pgoff, m.ino, m.file);
  }
}

// perf's task__print_level(): pid, tid, ppid, then the comm indented by the depth.
void print_task(std::string& out, const profile::TaskTree& tree, std::size_t index, int level,
                bool mmaps) {
  const auto& t = tree.tasks[index];
  const std::string head = fmt::format("  {:8} {:8} {:8} |{:{}}", t.pid, t.tid, t.ppid, "", level);
  out += head;
  out += t.comm;
  out += '\n';
  if (mmaps) print_maps(out, t, static_cast<int>(head.size()));
  for (const std::size_t child : t.children) print_task(out, tree, child, level + 1, mmaps);
}

}  // namespace

Result<void> write_task_tree(std::ostream& out, const profile::TaskTree& tree, bool mmaps) {
  std::string text = fmt::format("# {:>8} {:>8} {:>8}  {}\n", "pid", "tid", "ppid", "comm");
  for (const std::size_t root : tree.roots) print_task(text, tree, root, 0, mmaps);
  out << text;
  if (!out) return fail(Errc::kIo, "writing the task list failed");
  if (!tree.damage.empty()) return fail(tree.damage_code, "{}", tree.damage);
  return {};
}

}  // namespace perfx::report
