#pragma once
/// \file
/// Side-band records for what existed before recording started, as perf synthesizes them
/// (util/synthetic-events.c): COMM + FORK per thread and MMAP2 per executable mapping from
/// /proc, the kernel map ([kernel.kallsyms]_text as an MMAP with pgoff = _text like perf),
/// and build-ids (NT_GNU_BUILD_ID) of the DSOs that samples hit.
///
/// Records are appended as kernel-format bytes (record::encode_record) with an all-zero
/// sample_id trailer, as perf writes synthesized records.

#include <sys/types.h>

#include <cstddef>
#include <cstdint>
#include <map>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <unordered_map>
#include <vector>

#include "perfx/error.hpp"
#include "record/sample_layout.hpp"
#include "sys/text_files.hpp"

namespace perfx::sys {

/// What to synthesize for tasks.
struct SynthOptions {
  /// Also non-executable file mappings (perf record -d / mmap_data).
  bool mmap_data = false;
  /// Root of procfs (tests may point at a fake tree).
  std::string proc_root = "/proc";
  /// A NAMESPACES record per thread, between its FORK and COMM (perf record --namespaces).
  bool namespaces = false;
};

/// One parsed line of /proc/<pid>/maps.
struct MapsEntry {
  std::uint64_t start = 0, end = 0, pgoff = 0;
  std::uint32_t maj = 0, min = 0;
  std::uint64_t ino = 0;
  std::uint32_t prot = 0;   ///< PROT_READ|PROT_WRITE|PROT_EXEC
  std::uint32_t flags = 0;  ///< MAP_PRIVATE or MAP_SHARED
  std::string path;         ///< "" for anonymous mappings
};

/// Parses /proc/<pid>/maps text. Lines that do not parse are skipped.
std::vector<MapsEntry> parse_proc_maps(const std::string& text);

/// COMM (+ FORK for each thread) for every thread of process `pid`, then MMAP2 for its
/// executable mappings. A task that exits meanwhile is skipped (not an error).
Result<void> synthesize_process(pid_t pid, const record::SampleLayout& layout,
                                const SynthOptions& opt, std::vector<std::byte>& out);

/// The same for every process in /proc (system-wide recording). Returns how many.
Result<std::size_t> synthesize_all_processes(const record::SampleLayout& layout,
                                             const SynthOptions& opt, std::vector<std::byte>& out);

/// PERF_RECORD_NAMESPACES for thread `tid` of process `pid`: the device and inode of its
/// seven namespaces (/proc/TID/ns/{net,uts,ipc,pid,user,mnt,cgroup}), 0 for one it cannot
/// stat, as perf_event__synthesize_namespaces().
Result<void> synthesize_namespaces(pid_t pid, pid_t tid, const record::SampleLayout& layout,
                                   std::vector<std::byte>& out,
                                   const std::string& proc_root = "/proc");

/// PERF_RECORD_CGROUP for every directory of the cgroup tree mounted at `root`, parents
/// first (perf_event__synthesize_cgroups()): the cgroup id (its file handle) and the path
/// below the mount ("/" for the root). A directory that cannot be named is skipped.
Result<void> synthesize_cgroups(const record::SampleLayout& layout, std::vector<std::byte>& out,
                                const std::string& root = "/sys/fs/cgroup");

/// Only a COMM for `pid` (a forked workload before exec: perf names it "perf-exec").
Result<void> synthesize_comm(pid_t pid, const std::string& comm, const record::SampleLayout& layout,
                             std::vector<std::byte>& out);

/// The kernel map from /proc/kallsyms: PERF_RECORD_MMAP pid -1, misc KERNEL,
/// "[kernel.kallsyms]_text", start = pgoff = _text, len = _etext - _text (or up to the first
/// module). kNotFound when kallsyms has no _text (kptr_restrict hides addresses: all 0).
Result<void> synthesize_kernel_mmap(const record::SampleLayout& layout, std::vector<std::byte>& out,
                                    const std::string& kallsyms = "/proc/kallsyms");

/// The NT_GNU_BUILD_ID of an ELF file, or nullopt when it has none / is not ELF.
std::optional<std::vector<std::uint8_t>> read_elf_build_id(const std::string& path);

/// The running kernel's build-id from /sys/kernel/notes.
std::optional<std::vector<std::uint8_t>> read_kernel_build_id(
    const std::string& notes = "/sys/kernel/notes");

/// Tracks which DSOs samples hit, from the MMAP/MMAP2 and SAMPLE records streaming through
/// (needs PERF_SAMPLE_IP|TID). Cheap per record: one ordered-map lookup per sample.
class HitTracker {
 public:
  explicit HitTracker(const record::SampleLayout& layout) : layout_(layout) {}
  /// Feeds one whole record (header included).
  void feed(std::span<const std::byte> record);
  /// Paths of user-space files hit by at least one sample (no anon/[vdso]-like names).
  [[nodiscard]] std::vector<std::string> hit_files() const;
  /// Whether a kernel-mode sample was seen.
  [[nodiscard]] bool kernel_hit() const noexcept { return kernel_hit_; }
  /// Lowest and highest sample time seen (0,0 when none).
  [[nodiscard]] std::uint64_t first_time() const noexcept { return first_time_; }
  [[nodiscard]] std::uint64_t last_time() const noexcept { return last_time_; }
  /// PERF_RECORD_SAMPLE records fed.
  [[nodiscard]] std::uint64_t samples() const noexcept { return samples_; }

 private:
  struct Map {
    std::uint64_t end;
    std::uint32_t file;
  };
  void add_map(std::uint32_t pid, std::uint64_t start, std::uint64_t len, std::string_view name);
  record::SampleLayout layout_;
  std::vector<std::string> files_;
  std::vector<bool> hit_;
  std::unordered_map<std::string, std::uint32_t> file_index_;
  std::unordered_map<std::uint32_t, std::map<std::uint64_t, Map>> maps_;
  bool kernel_hit_ = false;
  std::uint64_t first_time_ = 0, last_time_ = 0;
  std::uint64_t samples_ = 0;
};

}  // namespace perfx::sys
