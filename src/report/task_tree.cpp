#include "report/task_tree.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <map>
#include <vector>

#include "core/error_format.hpp"
#include "profile/replay.hpp"
#include "record/perf_data_reader.hpp"
#include "symbol/machine.hpp"

namespace perfx::report {
namespace {

struct Task {
  const symbol::ThreadState* thread = nullptr;
  std::vector<Task*> children;
  bool listed = false;
};

// perf's maps__fprintf_task(): one line per map of the thread's process, by address.
void print_maps(std::string& out, const symbol::ThreadState& t, int indent) {
  if (!t.maps) return;
  t.maps->for_each([&](const symbol::Map& m) {
    fmt::format_to(std::back_inserter(out), "{:{}}  {:x}-{:x} {}{}{}{} {:08x} {} {}\n", "", indent,
                   m.start, m.end, (m.prot & 1u) ? 'r' : '-', (m.prot & 2u) ? 'w' : '-',
                   (m.prot & 4u) ? 'x' : '-', (m.flags & 1u) ? 's' : 'p', m.pgoff, m.ino,
                   m.dso != nullptr ? m.dso->long_name() : std::string("[unknown]"));
  });
}

// perf's task__print_level(): pid, tid, ppid, then the comm indented by the depth.
void print_task(std::string& out, const Task& task, int level, bool mmaps) {
  const auto& t = *task.thread;
  const std::string head = fmt::format("  {:8} {:8} {:8} |{:{}}", t.pid, t.tid, t.ppid, "", level);
  out += head;
  out += t.comm;
  out += '\n';
  if (mmaps) print_maps(out, t, static_cast<int>(head.size()));
  for (const Task* child : task.children) print_task(out, *child, level + 1, mmaps);
}

}  // namespace

Result<void> write_task_tree(std::ostream& out, const std::string& path, bool mmaps) {
  PERFX_TRY(reader, record::PerfDataReader::open(path));
  symbol::Machine machine;
  machine.thread(0, 0);  // perf registers the idle thread, "swapper"
  // A damaged file: the threads read before the damage are listed, then the error.
  const auto replayed =
      profile::replay(reader, machine, [](const profile::ReplayItem&) { return true; });

  // perf walks its thread table: buckets of tid % 256, each by tid.
  std::vector<Task> tasks;
  for (const auto& [tid, t] : machine.threads()) tasks.push_back(Task{&t, {}, false});
  std::sort(tasks.begin(), tasks.end(), [](const Task& a, const Task& b) {
    const auto ka = static_cast<std::uint32_t>(a.thread->tid);
    const auto kb = static_cast<std::uint32_t>(b.thread->tid);
    return std::pair(ka % 256, ka) < std::pair(kb % 256, kb);
  });
  std::map<std::int32_t, Task*> by_tid;
  for (auto& t : tasks) by_tid[t.thread->tid] = &t;
  // perf's tasks_list(): each task joins its parent's children, up to a task without a
  // parent, which becomes a root.
  std::vector<Task*> roots;
  for (auto& start : tasks) {
    Task* task = &start;
    while (!task->listed) {
      task->listed = true;
      if (task->thread->ppid == -1) {
        roots.push_back(task);
        break;
      }
      auto parent = by_tid.find(task->thread->ppid);
      if (parent == by_tid.end())
        return fail(Errc::kMalformedData,
                    "failed to process tasks: the parent {} of thread {} is not in the recording",
                    task->thread->ppid, task->thread->tid);
      parent->second->children.push_back(task);
      task = parent->second;
    }
  }
  std::string text = fmt::format("# {:>8} {:>8} {:>8}  {}\n", "pid", "tid", "ppid", "comm");
  for (const Task* root : roots) print_task(text, *root, 0, mmaps);
  out << text;
  if (!out) return fail(Errc::kIo, "writing the task list failed");
  if (auto damage = profile::describe_damage(reader, replayed); !damage.empty())
    return fail(replayed ? Errc::kMalformedData : replayed.error().code(), "{}", damage);
  return {};
}

}  // namespace perfx::report
