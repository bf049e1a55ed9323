#include "profile/task_list.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <map>
#include <unordered_set>

#include "core/error_format.hpp"
#include "profile/ordered_records.hpp"
#include "profile/replay.hpp"
#include "record/perf_data_reader.hpp"
#include "symbol/machine.hpp"

namespace perfx::profile {
namespace {

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
      apply_record(machine_, r);
      named_.insert(static_cast<std::int32_t>(c->tid));
    } else if (const auto* f = r.get<record::Fork>()) {
      const auto pid = static_cast<std::int32_t>(f->pid);
      const auto tid = static_cast<std::int32_t>(f->tid);
      const auto ptid = static_cast<std::int32_t>(f->ptid);
      findnew(static_cast<std::int32_t>(f->ppid), ptid);
      leader(pid, tid);
      apply_record(machine_, r);  // the child, anew, with its parent's name
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
      apply_record(machine_, r);
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

Result<TaskTree> build_task_tree(record::PerfDataReader& reader, bool maps) {
  symbol::Machine machine;
  TaskReplay replay(machine, maps);
  // A damaged file: the threads read before the damage are listed, then the error.
  record::Record decoded;  // reused: filled in place for each record
  const auto replayed = for_each_ordered(reader, [&](const record::RawRecord& raw) {
    if (reader.decode(raw, decoded)) replay.apply(decoded);  // else counted as malformed
    return true;
  });

  // perf walks its thread table: buckets of tid % 256, each by tid.
  std::vector<const symbol::ThreadState*> threads;
  for (const auto& [tid, t] : machine.threads()) threads.push_back(&t);
  std::sort(threads.begin(), threads.end(), [](const auto* a, const auto* b) {
    const auto ka = static_cast<std::uint32_t>(a->tid);
    const auto kb = static_cast<std::uint32_t>(b->tid);
    return std::pair(ka % 256, ka) < std::pair(kb % 256, kb);
  });
  TaskTree tree;
  std::map<std::int32_t, std::size_t> by_tid;
  for (const auto* t : threads) {
    TaskNode node{t->pid, t->tid, t->ppid, t->comm, {}, {}};
    if (maps && t->maps) {
      t->maps->for_each([&](const symbol::Map& m) {
        node.maps.push_back({m.start, m.end, m.pgoff, m.ino, m.prot, m.flags,
                             m.dso != nullptr ? m.dso->long_name() : std::string("[unknown]")});
      });
    }
    by_tid[t->tid] = tree.tasks.size();
    tree.tasks.push_back(std::move(node));
  }
  // perf's tasks_list(): each task joins its parent's children, up to a task without a
  // parent, which becomes a root.
  std::vector<bool> listed(tree.tasks.size(), false);
  for (std::size_t start = 0; start < tree.tasks.size(); ++start) {
    std::size_t task = start;
    while (!listed[task]) {
      listed[task] = true;
      const TaskNode& t = tree.tasks[task];
      if (t.ppid == -1) {
        tree.roots.push_back(task);
        break;
      }
      auto parent = by_tid.find(t.ppid);
      if (parent == by_tid.end())
        return fail(Errc::kMalformedData,
                    "failed to process tasks: the parent {} of thread {} is not in the recording",
                    t.ppid, t.tid);
      tree.tasks[parent->second].children.push_back(task);
      task = parent->second;
    }
  }
  tree.damage = describe_damage(reader, replayed);
  if (!replayed) tree.damage_code = replayed.error().code();
  return tree;
}

}  // namespace perfx::profile
