#include "symbol/machine.hpp"

#include <fmt/format.h>

#include <algorithm>

#include "symbol/unwind.hpp"

namespace perfx::symbol {

void MapSet::insert(const Map& m) {
  if (m.end <= m.start) return;
  // First map that could overlap: the one starting before m.start, if it reaches in.
  auto it = maps_.lower_bound(m.start);
  if (it != maps_.begin()) {
    auto prev = std::prev(it);
    if (prev->second.end > m.start) it = prev;
  }
  std::vector<Map> keep;
  while (it != maps_.end() && it->second.start < m.end) {
    const Map old = it->second;
    it = maps_.erase(it);
    if (old.start < m.start) {
      Map left = old;
      left.end = m.start;
      keep.push_back(left);
    }
    if (old.end > m.end) {
      Map right = old;
      right.start = m.end;
      if (!old.identity) right.pgoff = old.pgoff + (m.end - old.start);
      keep.push_back(right);
    }
  }
  for (const auto& k : keep) maps_.emplace(k.start, k);
  maps_.emplace(m.start, m);
}

const Map* MapSet::find(std::uint64_t addr) const {
  auto it = maps_.upper_bound(addr);
  if (it == maps_.begin()) return nullptr;
  --it;
  return addr < it->second.end ? &it->second : nullptr;
}

Dso* DsoCache::get(const std::string& path, DsoKind kind, const std::string& build_id) {
  std::lock_guard lock(mutex_);
  auto it = dsos_.find(path);
  if (it != dsos_.end()) return it->second.get();
  std::string bid = build_id;
  if (bid.empty()) {
    auto b = build_ids_.find(path);
    if (b != build_ids_.end()) bid = b->second;
  }
  auto dso = std::make_unique<Dso>(path, kind, bid, paths_);
  Dso* raw = dso.get();
  dsos_.emplace(path, std::move(dso));
  return raw;
}

void DsoCache::set_build_id(const std::string& path, std::string build_id) {
  std::lock_guard lock(mutex_);
  build_ids_[path] = std::move(build_id);
}

std::vector<Dso*> DsoCache::all() const {
  std::lock_guard lock(mutex_);
  std::vector<Dso*> out;
  out.reserve(dsos_.size());
  for (const auto& [k, v] : dsos_) out.push_back(v.get());
  return out;
}

Machine::Machine(SearchPaths paths) : dsos_(std::move(paths)) {}
Machine::~Machine() = default;

Unwinder& Machine::unwinder() {
  if (!unwinder_) unwinder_ = std::make_unique<Unwinder>();
  return *unwinder_;
}

Dso* Machine::kernel_dso() { return dsos_.get("[kernel.kallsyms]", DsoKind::kKernel); }

std::shared_ptr<MapSet> Machine::process_maps(std::int32_t pid) {
  auto& p = processes_[pid];
  if (!p) p = std::make_shared<MapSet>();
  return p;
}

ThreadState& Machine::thread(std::int32_t pid, std::int32_t tid) {
  auto it = threads_.find(tid);
  if (it != threads_.end()) {
    if (pid >= 0 && it->second.pid != pid) {
      // tid reused by another process (or first seen with pid unknown).
      ++generation_;
      it->second.pid = pid;
      it->second.maps = process_maps(pid);
    }
    return it->second;
  }
  ++generation_;
  ThreadState t;
  t.pid = pid;
  t.tid = tid;
  t.comm = tid == 0 ? std::string("swapper") : fmt::format(":{}", tid);
  t.maps = process_maps(pid >= 0 ? pid : tid);
  // Named ":TID" until a COMM or FORK names it, as perf's thread__new(), also when its
  // process is known (a sample of an exiting task has tid -1: perf shows ":-1").
  return threads_.emplace(tid, std::move(t)).first->second;
}

namespace {

// Anonymous memory, as perf tells it (map.h is_anon_memory()): code there is JIT code,
// looked up in /tmp/perf-PID.map. A memfd ("/memfd:NAME (deleted)") is a file to perf:
// a DSO of that name (runc and sandboxes run binaries from sealed memfds).
bool is_anon(const std::string& f) {
  return f == "//anon" || f.starts_with("/dev/zero") || f.starts_with("/anon_hugepage");
}

std::string module_name(const std::string& path) {
  auto slash = path.rfind('/');
  std::string base = slash == std::string::npos ? path : path.substr(slash + 1);
  auto dot = base.find(".ko");
  if (dot != std::string::npos) base = base.substr(0, dot);
  std::replace(base.begin(), base.end(), '-', '_');
  return "[" + base + "]";
}

}  // namespace

void Machine::on_mmap(std::int32_t pid, std::int32_t tid, std::uint64_t start, std::uint64_t len,
                      std::uint64_t pgoff, const std::string& filename, const std::string& build_id,
                      std::uint32_t prot, std::uint32_t flags, std::uint64_t ino) {
  if (!build_id.empty()) dsos_.set_build_id(filename, build_id);
  ++generation_;
  if (pid == -1) {
    // Kernel or module map.
    if (filename.starts_with("[kernel.kallsyms]")) {
      kernel_map_ = Map{start, start + len, pgoff, kernel_dso(), true};
      kernel_dso()->set_kernel_text(pgoff);
      kernel_map_set_ = true;
    } else {
      Map m{start, start + len, pgoff, dsos_.get(module_name(filename), DsoKind::kKernelModule),
            true};
      kernel_maps_.insert(m);
    }
    return;
  }
  ThreadState& t = thread(pid, tid);
  Map m{start, start + len, pgoff, nullptr, false, prot, flags, ino};
  if (filename == "[vdso]") {
    m.dso = dsos_.get(filename, DsoKind::kVdso, build_id);
  } else if (is_anon(filename)) {
    m.dso = dsos_.get(fmt::format("/tmp/perf-{}.map", pid), DsoKind::kJitMap);
    m.identity = true;
  } else if (!filename.empty() && filename.front() == '[') {
    m.dso = dsos_.get(filename, DsoKind::kNoFile);
  } else {
    m.dso = dsos_.get(filename, DsoKind::kElf, build_id);
  }
  t.maps->insert(m);
}

void Machine::on_comm(std::int32_t pid, std::int32_t tid, const std::string& comm, bool /*exec*/) {
  // An exec keeps the old maps, as perf does (thread__set_comm() only renames): samples
  // taken inside execve() after the COMM record still return to the old image, and the
  // new image's MMAPs replace what they overlap.
  thread(pid, tid).comm = comm;
}

void Machine::on_fork(std::int32_t pid, std::int32_t ppid, std::int32_t tid, std::int32_t ptid,
                      bool clone_maps) {
  ThreadState& parent = thread(ppid, ptid);
  ++generation_;
  std::string comm = parent.comm;
  std::shared_ptr<MapSet> maps;
  if (pid == ppid) {
    maps = process_maps(pid);
    if (!parent.maps) parent.maps = maps;
    maps = parent.maps;
  } else {
    maps = clone_maps ? std::make_shared<MapSet>(*parent.maps) : std::make_shared<MapSet>();
    processes_[pid] = maps;
  }
  ThreadState t;
  t.pid = pid;
  t.tid = tid;
  t.ppid = parent.tid;  // perf's thread__fork()
  t.comm = std::move(comm);
  t.maps = std::move(maps);
  threads_[tid] = std::move(t);
}

void Machine::on_exit(std::int32_t /*pid*/, std::int32_t /*tid*/) {}

Location Machine::resolve(const ThreadState& t, std::uint64_t ip, bool kernel) {
  Location loc;
  loc.kernel = kernel;
  if (kernel) {
    if (const Map* m = kernel_maps_.find(ip)) {
      loc.map = m;
      loc.map_addr = ip;
      return loc;
    }
    if (!kernel_map_set_) {
      kernel_map_ = Map{0, ~0ULL, 0, kernel_dso(), true};
      kernel_map_set_ = true;
    }
    loc.map_addr = ip;
    // perf's kernel map runs from _text to the next map (to the end without one): a
    // kernel-context address below it (user garbage in a kernel callchain) has no map.
    if (ip >= kernel_map_.start) loc.map = &kernel_map_;
    return loc;
  }
  if (t.maps) loc.map = t.maps->find(ip);
  loc.map_addr = loc.map != nullptr ? loc.map->map_ip(ip) : ip;
  return loc;
}

}  // namespace perfx::symbol
