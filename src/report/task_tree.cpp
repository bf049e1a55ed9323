#include "report/task_tree.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <map>
#include <unordered_set>
#include <vector>

#include "core/error_format.hpp"
#include "profile/ordered_records.hpp"
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

// The threads perf report --tasks knows: it replays COMM, FORK and EXIT records, and
// MMAP/MMAP2 with --mmaps, nothing else (builtin-report.c tasks_setup(): no sample
// handler). A thread exists once one of those names it (machine__findnew_thread()):
// a thread known only from samples, from an EXIT or from another record's sample_id is
// not listed. A new thread is ":TID" until a COMM names it, a FORK copies its parent's
// name only when that one was set (thread__fork()), and a new thread of a process whose
// leader is unknown creates the leader too, as ":PID" (thread__init_maps()).
class TaskReplay {
 public:
  TaskReplay(symbol::Machine& machine, bool mmaps) : machine_(machine), mmaps_(mmaps) {
    machine_.thread(0, 0);  // perf registers the idle thread, "swapper"
    named_.insert(0);
  }

  void apply(const record::Record& r) {
    if (const auto* c = r.get<record::Comm>()) {
      findnew(static_cast<std::int32_t>(c->pid), static_cast<std::int32_t>(c->tid));
      profile::apply_record(machine_, r);
      named_.insert(static_cast<std::int32_t>(c->tid));
    } else if (const auto* f = r.get<record::Fork>()) {
      const auto pid = static_cast<std::int32_t>(f->pid);
      const auto tid = static_cast<std::int32_t>(f->tid);
      const auto ptid = static_cast<std::int32_t>(f->ptid);
      findnew(static_cast<std::int32_t>(f->ppid), ptid);
      leader(pid, tid);
      profile::apply_record(machine_, r);  // the child, anew, with its parent's name
      if (named_.contains(ptid)) {
        named_.insert(tid);
      } else {
        named_.erase(tid);
        machine_.thread(pid, tid).comm = fmt::format(":{}", tid);
      }
    } else if ((r.get<record::Mmap>() != nullptr || r.get<record::Mmap2>() != nullptr) && mmaps_) {
      const auto* m = r.get<record::Mmap>();
      const auto* m2 = r.get<record::Mmap2>();
      const auto pid = static_cast<std::int32_t>(m != nullptr ? m->pid : m2->pid);
      const auto tid = static_cast<std::int32_t>(m != nullptr ? m->tid : m2->tid);
      if (pid != -1) findnew(pid, tid);  // kernel maps (pid -1) belong to no thread
      profile::apply_record(machine_, r);
    }
    // EXIT: perf marks a known thread dead and keeps it listed; it creates none.
  }

 private:
  // perf's machine__findnew_thread() for a thread it may not know yet.
  void findnew(std::int32_t pid, std::int32_t tid) {
    if (machine_.threads().contains(tid)) return;
    leader(pid, tid);
    machine_.thread(pid, tid).comm = fmt::format(":{}", tid);
  }
  // A new thread of process `pid` creates its leader when that one is unknown.
  void leader(std::int32_t pid, std::int32_t tid) {
    if (pid >= 0 && pid != tid && !machine_.threads().contains(pid)) machine_.thread(pid, pid);
  }

  symbol::Machine& machine_;
  bool mmaps_;
  std::unordered_set<std::int32_t> named_;  // threads whose name perf set (comm_set)
};

}  // namespace

Result<void> write_task_tree(std::ostream& out, const std::string& path, bool mmaps) {
  PERFX_TRY(reader, record::PerfDataReader::open(path));
  symbol::Machine machine;
  TaskReplay replay(machine, mmaps);
  // A damaged file: the threads read before the damage are listed, then the error.
  record::Record decoded;  // reused: filled in place for each record
  const auto replayed = profile::for_each_ordered(reader, [&](const record::RawRecord& raw) {
    if (reader.decode(raw, decoded)) replay.apply(decoded);  // else counted as malformed
    return true;
  });

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
