#pragma once
/// \file
/// The process model perf replays from side-band records, over time:
///   MMAP/MMAP2  add a mapping to the process (overlapped parts of older maps are cut)
///   COMM        renames a thread; an exec (MISC_COMM_EXEC) keeps the maps, as in perf:
///               samples still inside execve() return to the old image, and the new
///               binary's MMAPs that follow replace what they overlap
///   FORK        a new thread (pid == ppid) shares its process's maps; a new process
///               gets a copy of the parent's maps (none for a synthesized FORK) and its comm
///   EXIT        nothing is dropped (late samples of an exiting thread still resolve)
/// Kernel maps (pid -1 MMAPs and kallsyms) are shared by all processes.
/// Feed records in time order. Not thread-safe: one replay thread; the Dso objects
/// it hands out are shared and thread-safe (see dso.hpp).

#include <cstdint>
#include <map>
#include <memory>
#include <mutex>
#include <string>
#include <unordered_map>
#include <vector>

#include "symbol/dso.hpp"

namespace perfx::symbol {

/// One mapping of a process: [start, end) mapped from `dso` at file offset `pgoff`.
struct Map {
  std::uint64_t start = 0;
  std::uint64_t end = 0;
  std::uint64_t pgoff = 0;
  Dso* dso = nullptr;
  bool identity = false;    ///< JIT/anon and kernel maps: addresses are absolute
  std::uint32_t prot = 0;   ///< PROT_* (MMAP2; PROT_EXEC for an MMAP of code)
  std::uint32_t flags = 0;  ///< MAP_* (MMAP2)
  std::uint64_t ino = 0;    ///< inode (MMAP2 without a build-id)

  /// perf's map__map_ip(): the address as the DSO sees it (file offset or absolute).
  [[nodiscard]] std::uint64_t map_ip(std::uint64_t ip) const noexcept {
    return identity ? ip : ip - start + pgoff;
  }
};

/// The maps of one address space, sorted by start; lookups by binary search.
class MapSet {
 public:
  /// Inserts `m`, cutting any part of older maps that it overlaps.
  void insert(const Map& m);
  /// The map holding `addr`, or nullptr.
  [[nodiscard]] const Map* find(std::uint64_t addr) const;
  void clear() { maps_.clear(); }
  [[nodiscard]] std::size_t size() const noexcept { return maps_.size(); }
  /// Calls `fn(map)` for every map, by start address.
  template <typename Fn>
  void for_each(Fn&& fn) const {
    for (const auto& [start, m] : maps_) fn(m);
  }

 private:
  std::map<std::uint64_t, Map> maps_;  // keyed by start
};

class Unwinder;

struct ThreadState {
  std::int32_t pid = -1;
  std::int32_t tid = -1;
  std::int32_t ppid = -1;  ///< the forking thread's tid (perf's thread->ppid); -1 unknown
  std::string comm;
  std::shared_ptr<MapSet> maps;
};

/// Caches DSOs by path: each opened and loaded once, shared by all maps.
class DsoCache {
 public:
  explicit DsoCache(SearchPaths paths) : paths_(std::move(paths)) {}
  /// The DSO for `path` of `kind`, created on first use. Stable pointer.
  Dso* get(const std::string& path, DsoKind kind, const std::string& build_id = {});
  /// Build-ids known from the recording (HEADER_BUILD_ID, MMAP2), by path.
  void set_build_id(const std::string& path, std::string build_id);
  [[nodiscard]] std::vector<Dso*> all() const;
  [[nodiscard]] const SearchPaths& paths() const noexcept { return paths_; }

 private:
  SearchPaths paths_;
  mutable std::mutex mutex_;
  std::unordered_map<std::string, std::unique_ptr<Dso>> dsos_;
  std::unordered_map<std::string, std::string> build_ids_;
};

/// Where an address lies: the map (and so the DSO), and the map-relative address.
struct Location {
  const Map* map = nullptr;    ///< nullptr when no map holds the address
  std::uint64_t map_addr = 0;  ///< map_ip(ip), or ip when there is no map
  bool kernel = false;
};

class Machine {
 public:
  explicit Machine(SearchPaths paths = {});
  ~Machine();

  /// MMAP/MMAP2. `pid` -1 = kernel map. `build_id` hex or "". `prot`, `flags`, `ino`:
  /// kept on the map for listings (perf report --mmaps).
  void on_mmap(std::int32_t pid, std::int32_t tid, std::uint64_t start, std::uint64_t len,
               std::uint64_t pgoff, const std::string& filename, const std::string& build_id,
               std::uint32_t prot = 0, std::uint32_t flags = 0, std::uint64_t ino = 0);
  void on_comm(std::int32_t pid, std::int32_t tid, const std::string& comm, bool exec);
  /// FORK. `clone_maps` false: a FORK perf synthesized for a task that already ran
  /// (PERF_RECORD_MISC_FORK_EXEC), whose own MMAPs follow: a new process then starts with
  /// no maps instead of a copy of its parent's (perf's machine__process_fork_event()).
  void on_fork(std::int32_t pid, std::int32_t ppid, std::int32_t tid, std::int32_t ptid,
               bool clone_maps = true);
  void on_exit(std::int32_t pid, std::int32_t tid);

  /// The thread (created on first sight, sharing its process's maps).
  ThreadState& thread(std::int32_t pid, std::int32_t tid);
  /// Every thread seen, by tid (exited ones too).
  [[nodiscard]] const std::unordered_map<std::int32_t, ThreadState>& threads() const noexcept {
    return threads_;
  }
  /// Resolves `ip` of `t` to a map; `kernel` = the ip is a kernel address (cpumode).
  [[nodiscard]] Location resolve(const ThreadState& t, std::uint64_t ip, bool kernel);

  /// Changes whenever any address space may have changed (a map added, an exec, a fork,
  /// a thread created or moved to another process): what resolve() returns for a thread
  /// and ip is the same as long as this stays the same. For caches of resolved stacks.
  [[nodiscard]] std::uint64_t maps_generation() const noexcept { return generation_; }

  [[nodiscard]] DsoCache& dsos() noexcept { return dsos_; }
  /// The kernel DSO ("[kernel.kallsyms]").
  [[nodiscard]] Dso* kernel_dso();
  /// The DWARF unwinder for `--call-graph dwarf` samples, with its per-process Dwfl
  /// cache (created on first use; lives as long as the machine).
  [[nodiscard]] Unwinder& unwinder();

 private:
  std::shared_ptr<MapSet> process_maps(std::int32_t pid);

  DsoCache dsos_;
  std::unordered_map<std::int32_t, ThreadState> threads_;
  std::unordered_map<std::int32_t, std::shared_ptr<MapSet>> processes_;
  MapSet kernel_maps_;
  Map kernel_map_;
  bool kernel_map_set_ = false;
  std::unique_ptr<Unwinder> unwinder_;
  std::uint64_t generation_ = 0;
};

}  // namespace perfx::symbol
