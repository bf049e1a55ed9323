#pragma once
/// \file
/// perf.data -> profile::Profile: decodes the samples of a recording (file or pipe),
/// replays the process model (MMAP/MMAP2/COMM/FORK/EXIT), symbolizes every unique
/// address once (ELF symtab/dynsym, separate debug files, kallsyms, JIT maps, DWARF
/// lines and inline frames) and interns frames and stacks.

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "perfx/error.hpp"
#include "profile/off_cpu.hpp"
#include "profile/profile.hpp"
#include "profile/thread_filter.hpp"
#include "record/perf_data_reader.hpp"

namespace perfx::profile {

/// What load_profile() resolves and keeps. Defaults give what `perf report` shows.
struct LoadOptions {
  /// Resolve source file + line for every frame (DWARF). Costs time on big binaries.
  bool source_lines = false;
  /// Expand inline frames from DWARF (Frame::inlined = true for the expanded ones).
  bool inline_frames = false;
  /// Keep callchains; false keeps only the sampled ip (one frame per stack).
  bool callchains = true;
  /// Merge samples with the same stack, thread, cpu and event into one Sample (summed
  /// period, Sample::count). For consumers that need no per-sample times (text report):
  /// memory then grows with unique stacks, not with samples.
  bool aggregate = false;
  /// Merge a sample into the previous sample of the same thread when both have the same
  /// stack, cpu and event (summed period, Sample::count; time_ns stays the first one's).
  /// Keeps each thread's time order and its runs of identical stacks: enough for
  /// timelines with a weight per entry (speedscope), at a fraction of the memory.
  /// Ignored when `aggregate` is set.
  bool merge_runs = false;
  /// Worker threads for symbolization; 0 = all cores.
  unsigned threads = 0;
  /// Filters (empty = all). Samples not matching are dropped before aggregation.
  ThreadFilter thread_filter;
  std::vector<std::uint32_t> cpus;
  /// perf's --time windows (profile/time_filter.hpp syntax: "START,STOP", "10%/2", ...);
  /// empty = all. Like --cpu, samples outside are left out of the event totals too.
  std::string time;
  /// Directory searched for perf's build-id cache (~/.debug); empty = $HOME/.debug.
  std::string buildid_dir;
  /// Demangle C++ names with parameter lists (what perf report -v shows).
  bool demangle_params = false;
  /// false: symbol names as the binaries have them (perf's --no-demangle).
  bool demangle = true;
  /// A recording made with `record --off-cpu`/`--wall` (sched_switch with callchains plus
  /// context-switch records): how its off-CPU intervals appear (profile/off_cpu.hpp).
  /// kWall adds them to the on-CPU clock event, renamed "<event>+offcpu-time".
  OffCpuView off_cpu = OffCpuView::kWall;
  /// Called now and then with (bytes done, bytes total) while reading; may be empty.
  void (*progress)(std::uint64_t done, std::uint64_t total) = nullptr;
};

/// Reads the perf.data at `path` ("-" = stdin, pipe mode) into a Profile.
/// Each Sample of the result is one recorded sample (Profile::samples in time order, as
/// perf processes them); Profile::stacks are interned (root first). Frames are one per
/// unique (DSO, address), plus one per inline level with inline_frames.
/// Errors: kNotFound / kIo when the file cannot be read; kMalformedData (with the
/// byte offset) when it is truncated or corrupt.
[[nodiscard]] Result<Profile> load_profile(const std::string& path,
                                           const LoadOptions& options = {});
/// The same from an open reader, read from where it stands to its end (a stream can be
/// read once: the caller keeps the reader for its attrs and features afterwards).
[[nodiscard]] Result<Profile> load_profile_from(record::PerfDataReader& reader,
                                                const LoadOptions& options = {});

}  // namespace perfx::profile
