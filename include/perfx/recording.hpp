#pragma once
/// \file
/// One front door to a recording: open a perf.data (perf's or perfx's, file or pipe mode,
/// compressed or not) once, with perf's owner check, then read it as a resolved profile
/// (load_profile(): symbols, source lines, inline frames, filters), as symbolized samples
/// in time order (for_each_sample()), or as perf's text views (perf_text.hpp: script,
/// report --stats/--tasks, evlist, buildid-list, annotate). Every reader of a recording
/// goes through here: the same reader, symbol search, filters and time-ordered replay.
///
/// \code
///   auto rec = perfx::Recording::open("perf.data");
///   if (!rec) return fail(rec.error().message());
///   auto prof = rec->load_profile();          // a perfx::Profile (profile.hpp)
///   perfx::export_profile("folded", *prof, std::cout);  // exporters.hpp
/// \endcode
///
/// A Recording reads its data section once per pass: each pass of a file opens it anew,
/// a pipe ("-") can be read once (a second pass is kInvalidArgument).

#include <algorithm>
#include <cstdint>
#include <functional>
#include <memory>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "perfx/error.hpp"
#include "perfx/export.hpp"
#include "perfx/off_cpu.hpp"
#include "perfx/perf_data.hpp"
#include "perfx/profile.hpp"

namespace perfx {

/// perf's thread filter (--comms, --pid, --tid of report, script and diff): a thread is
/// kept when each non-empty list names it.
struct PERFX_API ThreadFilter {
  std::vector<std::string> comms;  ///< command names
  std::vector<std::int32_t> pids;  ///< process ids
  std::vector<std::int32_t> tids;  ///< thread ids

  /// No list given: every thread is kept.
  [[nodiscard]] bool empty() const { return comms.empty() && pids.empty() && tids.empty(); }

  /// Whether a thread with this comm, pid and tid is kept.
  [[nodiscard]] bool keeps(std::string_view comm, std::int32_t pid, std::int32_t tid) const {
    auto listed = [](const auto& list, const auto& v) {
      return list.empty() || std::find(list.begin(), list.end(), v) != list.end();
    };
    return listed(comms, comm) && listed(pids, pid) && listed(tids, tid);
  }
};

/// What Recording::load_profile() resolves and keeps. Defaults give what `perf report`
/// shows.
struct PERFX_API ProfileOptions {
  /// Resolve source file + line for every frame (DWARF). Costs time on big binaries.
  bool source_lines = false;
  /// Expand inline frames from DWARF (ProfileFrame::inlined = true for the expanded ones).
  bool inline_frames = false;
  /// With inline_frames, perf 6.1 report's rule (its append_inlines() runs in
  /// unwind_entry() only): only frames unwound from a user stack copy (--call-graph
  /// dwarf) are expanded, and an address whose DWARF names its function otherwise than
  /// the symbol table gets an inline frame of that name (ProfileFrame::sample_only).
  bool inline_unwound_only = false;
  /// Keep callchains; false keeps only the sampled ip (one frame per stack).
  bool callchains = true;
  /// Merge samples with the same stack, thread, cpu and event into one ProfileSample
  /// (summed period, ProfileSample::count). For consumers that need no per-sample times
  /// (text report): memory then grows with unique stacks, not with samples.
  bool aggregate = false;
  /// Merge a sample into the previous sample of the same thread when both have the same
  /// stack, cpu and event (summed period, ProfileSample::count; time_ns stays the first
  /// one's). Keeps each thread's time order and its runs of identical stacks: enough for
  /// timelines with a weight per entry (speedscope), at a fraction of the memory.
  /// Ignored when `aggregate` is set.
  bool merge_runs = false;
  /// Keep each tracepoint sample's formatted fields (perf report's trace sort key):
  /// Profile::traces and Profile::sample_traces; samples are then not merged
  /// (`aggregate` and `merge_runs` are ignored). Formats come from `tracefs`.
  bool trace_output = false;
  /// With trace_output: the fields as raw values (perf's --raw-trace).
  bool raw_trace = false;
  /// Where tracepoint format files live (trace_output).
  std::string tracefs = "/sys/kernel/tracing";
  /// Worker threads for symbolization; 0 = all cores.
  unsigned threads = 0;
  /// Filters (empty = all). Samples not matching are dropped before aggregation.
  ThreadFilter thread_filter;
  std::vector<std::uint32_t> cpus;  ///< only samples on these CPUs (perf's --cpu)
  /// perf's --time windows ("START,STOP" in seconds, several separated by spaces,
  /// "10%/2", "0%-10%"); empty = all. Like --cpu, samples outside are left out of the
  /// event totals too.
  std::string time;
  /// Directory searched for perf's build-id cache (~/.debug); empty = $HOME/.debug.
  std::string buildid_dir;
  /// perf's --symfs: files with symbols (DSOs, debug files, the build-id cache, kallsyms)
  /// are looked up under this directory, their usual path appended; empty = as usual.
  std::string symfs;
  /// perf's --kallsyms: kernel symbols from this file only (not the build-id cache);
  /// empty = the cache's copy for the recorded kernel, else /proc/kallsyms.
  std::string kallsyms;
  /// perf's -k/--vmlinux: kernel symbols from this ELF file only (not kallsyms); a file
  /// that is not ELF leaves kernel addresses unresolved, as in perf.
  std::string vmlinux;
  /// Demangle C++ names with parameter lists (what perf report -v shows).
  bool demangle_params = false;
  /// false: symbol names as the binaries have them (perf's --no-demangle).
  bool demangle = true;
  /// Called now and then with (bytes done, bytes total) while reading; may be null.
  /// A recording made with `record --off-cpu`/`--wall` (sched_switch with callchains plus
  /// context-switch records): how its off-CPU intervals appear (perfx/off_cpu.hpp).
  /// kWall adds them to the on-CPU clock event, renamed "<event>+offcpu-time".
  OffCpuView off_cpu = OffCpuView::kWall;
  void (*progress)(std::uint64_t done, std::uint64_t total) = nullptr;
};

/// How to open a recording.
struct PERFX_API RecordingOptions {
  /// Read a file owned by another user (perf's -f/--force). Without it, a file not owned
  /// by the effective uid or root is refused: it could be crafted against the reader.
  bool force = false;
};

/// One frame of a symbolized sample.
struct PERFX_API SampleFrame {
  std::uint64_t address = 0;        ///< runtime address (ip or return address)
  std::uint64_t map_address = 0;    ///< perf's map-relative address
  std::string_view function;        ///< symbol name, "[unknown]" when unresolved
  std::uint64_t symbol_offset = 0;  ///< address - symbol start, when resolved
  std::string_view dso;             ///< the DSO's path, "[unknown]" when unmapped
};

/// A sample with its thread and resolved frames. Views are valid during the callback.
struct PERFX_API SymbolizedSample {
  std::size_t event = 0;  ///< index into PerfDataInfo::events
  std::int32_t pid = 0, tid = 0;
  std::uint32_t cpu = 0;
  std::uint64_t time = 0;               ///< perf clock, ns
  std::uint64_t period = 0;             ///< the sample's period (the attr's when not sampled)
  std::string_view comm;                ///< the thread's command name at the time of the sample
  std::span<const SampleFrame> frames;  ///< leaf first (the sampled ip, then its callers)
};

/// Which samples Recording::for_each_sample() delivers (empty lists: all).
struct PERFX_API SampleSelection {
  ThreadFilter threads;             ///< --comms/--pid/--tid
  std::vector<std::uint32_t> cpus;  ///< --cpu
  std::string time;                 ///< --time windows, as ProfileOptions::time
  bool callchains = true;           ///< false: the sampled ip alone
  bool demangle = true;             ///< false: mangled names
  std::string buildid_dir;          ///< "" = $HOME/.debug
};

/// Checks perf's --time windows (ProfileOptions::time) before a recording is read, for
/// a clear error up front: kInvalidArgument in perf's words. The percent forms need the
/// recording's span and are checked when it is read.
[[nodiscard]] PERFX_API Result<void> check_time_windows(std::string_view spec);

namespace detail {
struct RecordingAccess;
}

/// An open recording. Move-only.
class PERFX_API Recording {
 public:
  /// Opens `path` ("-" = stdin, pipe mode) after perf's owner check, and reads its header,
  /// attrs and features. Errors: kPermission (owner check, naming --force), kNotFound/kIo,
  /// kMalformedData with the offset.
  [[nodiscard]] static Result<Recording> open(const std::string& path,
                                              const RecordingOptions& options = {});

  Recording(Recording&&) noexcept;
  Recording& operator=(Recording&&) noexcept;
  ~Recording();

  /// The path it was opened with.
  [[nodiscard]] const std::string& path() const noexcept;
  /// Pipe mode (a stream: its data can be read once).
  [[nodiscard]] bool is_pipe() const noexcept;
  /// Header and events (pipe mode: those seen so far); no counters.
  [[nodiscard]] PerfDataInfo info() const;
  /// `perf report --header-only` text. Pipe mode reads the attr and feature records at
  /// the stream's head first, which uses up the stream's one pass.
  [[nodiscard]] Result<std::string> header_text();

  /// Reads the samples into a Profile: each ProfileSample one recorded sample
  /// (Profile::samples in time order, as perf processes them) unless merged by
  /// `options`; stacks interned root first; frames one per unique (DSO, address), plus
  /// one per inline level with inline_frames. A damaged file gives what was read before
  /// the damage with Profile::damage set. Errors: kInvalidArgument for a bad --time or
  /// --cpu (perf's words), a second pass of a pipe; the reader's errors.
  [[nodiscard]] Result<Profile> load_profile(const ProfileOptions& options = {});

  /// Calls `fn` for each sample in time order, symbolized, until it returns false.
  /// Errors: as load_profile(); a damaged file stops with kMalformedData naming the
  /// damage after the samples before it were delivered.
  [[nodiscard]] Result<void> for_each_sample(
      const SampleSelection& selection, const std::function<bool(const SymbolizedSample&)>& fn);

 private:
  friend struct detail::RecordingAccess;
  struct Impl;
  explicit Recording(std::unique_ptr<Impl> impl);
  std::unique_ptr<Impl> impl_;
};

}  // namespace perfx
