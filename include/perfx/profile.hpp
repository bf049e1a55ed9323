#pragma once
/// \file
/// A resolved profile: what every presentation (perf report's text, folded stacks, flame
/// graphs, pprof, speedscope, Firefox Profiler, diff) is drawn from. Built from a
/// recording by perfx::Recording::load_profile() (recording.hpp), written out by the
/// exporters (exporters.hpp). Pure data, interned so a 400k-sample recording stays small:
///   frames  - one entry per unique (function, dso, address-or-line, inline) frame
///   stacks  - one entry per unique call stack, root first, as frame indices
///   samples - one entry per sample (or per merged run): which stack, thread, time, weight
/// Every index is into the vectors of the same Profile; check_indices() checks them for a
/// Profile that was not made by the library.
///
/// \code
///   auto rec = perfx::Recording::open("perf.data");
///   auto prof = rec->load_profile();
///   for (const perfx::ProfileSample& s : prof->samples)
///     if (auto leaf = perfx::sampled_frame(*prof, s)) use(prof->frames[*leaf].function);
/// \endcode

#include <cstdint>
#include <iterator>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "perfx/error.hpp"
#include "perfx/export.hpp"
#include "perfx/huge_vector.hpp"

namespace perfx {

/// Where a frame's code lives; drives flame-graph colours and filters.
/// kOffCpu: the leaf marker frame ("[off-cpu]", "[run-queue]") the loader puts under the
/// stack of an off-CPU interval (perfx/off_cpu.hpp).
enum class FrameKind : std::uint8_t { kUser, kKernel, kJit, kUnknown, kOffCpu };

/// A mapped file (or kernel/vdso region) the frames' addresses fall in.
struct PERFX_API ProfileMapping {
  std::uint64_t start = 0;   ///< first address of the mapping
  std::uint64_t limit = 0;   ///< one past the last address
  std::uint64_t offset = 0;  ///< file offset of `start`
  std::string file;          ///< path of the DSO ("[kernel.kallsyms]", "[vdso]", ...)
  std::string build_id;      ///< lower-case hex, empty when unknown
};

/// One resolved code location: function, DSO, address and, when asked for, source line.
struct PERFX_API ProfileFrame {
  std::string function;  ///< demangled name; "[unknown]" when unresolved (as perf)
  std::string dso;       ///< short DSO name as perf shows it ("libc.so.6")
  /// Instruction address (sample ip or return address) inside its ProfileMapping's range
  /// (the map its DSO was first seen in); map_address is perf's map-relative one.
  std::uint64_t address = 0;
  std::uint64_t symbol_offset = 0;  ///< address - symbol start, when resolved
  std::uint64_t symbol_size = 0;    ///< the symbol's length in bytes, 0 when unresolved
  std::string file;                 ///< source file, empty when no debug info
  std::uint32_t line = 0;           ///< source line, 0 when unknown
  /// Looked up without a line, but in a file where GNU addr2line names a function at the
  /// address (perf's srcline is then "??:0", not symbol+offset).
  bool addr2line_function = false;
  bool inlined = false;  ///< an inline frame expanded from the next-outer frame
  /// The symbol's own frame of an address whose DWARF names its function otherwise (a
  /// glibc alias: clock_gettime@@GLIBC_2.17 is __GI___clock_gettime there), with
  /// ProfileOptions::inline_unwound_only: the inline frame after it carries the DWARF
  /// name in callchains, as perf 6.1 report shows them; this one is only the sample's
  /// own symbol (perf's Self row), never a caller.
  bool sample_only = false;
  /// Unwound from a user stack copy (--call-graph dwarf), not read from the sample's
  /// callchain: perf's --ignore-callees and --parent do not look at such frames.
  bool unwound = false;
  FrameKind kind = FrameKind::kUnknown;
  std::int32_t mapping = -1;  ///< index into Profile::mappings, -1 if none
  /// perf's map-relative address (map_ip: ip - map start + pgoff; absolute for kernel,
  /// JIT and unmapped addresses): what `perf script` prints in callchains and what
  /// `perf report` shows for an unresolved symbol.
  std::uint64_t map_address = 0;
  std::string dso_path;  ///< the DSO's recorded path ("/usr/lib/.../libc.so.6")
  /// The instruction's address in its own process (0: `address`). An unresolved frame
  /// has a frame per process that mapped its DSO elsewhere: perf keys and shows its
  /// callchain entries by this address.
  std::uint64_t process_address = 0;
};

/// A thread of the recording, with its command name as of its samples.
struct PERFX_API ProfileThread {
  std::int32_t pid = 0;  ///< process id
  std::int32_t tid = 0;  ///< thread id
  std::string comm;      ///< command name (COMM record), as perf shows it
};

/// One sample (or several merged ones, see `count`).
struct PERFX_API ProfileSample {
  std::uint32_t stack = 0;    ///< index into Profile::stacks
  std::uint32_t thread = 0;   ///< index into Profile::threads
  std::uint64_t time_ns = 0;  ///< perf clock (0 if the recording has no time)
  std::uint64_t period = 1;   ///< event count this sample stands for
  /// Recorded samples this entry stands for: 1, or more when Recording::load_profile() merged
  /// samples of the same stack/thread/cpu/event (ProfileOptions::aggregate, or
  /// ProfileOptions::merge_runs for consecutive ones; time_ns is then the first one's time
  /// and period the sum).
  std::uint32_t count = 1;
  /// CPU number; 16 bits hold any Linux CPU (NR_CPUS is at most 8192).
  std::uint16_t cpu = 0;
  std::uint16_t event = 0;  ///< index into Profile::events (Recording::load_profile() keeps 65536)
};
// One per recorded sample in the per-sample exports: 400k samples are 12.8 MB at 32 bytes.
static_assert(sizeof(ProfileSample) == 32);

/// One event (attr) of the recording, with its totals.
struct PERFX_API ProfileEvent {
  std::string name;            ///< "cpu-clock", "sched:sched_switch", ...
  std::string unit;            ///< "nanoseconds" for clocks, else "events"
  bool has_callchain = false;  ///< the attr sampled PERF_SAMPLE_CALLCHAIN
  bool has_cpu = false;        ///< the attr sampled PERF_SAMPLE_CPU
  /// Samples of this event in the file: after the --time and --cpu filters (perf leaves
  /// those out of its totals), before --pid/--tid/--comms.
  std::uint64_t total_samples = 0;
  std::uint64_t total_period = 0;  ///< their summed period (perf's "Event count")
  /// Holds off-CPU intervals weighted by their length in ns (stacks ending in a kOffCpu
  /// frame), with on-CPU clock samples or alone: presentations weigh samples by period.
  bool off_cpu = false;
};

/// An event group of the recording (HEADER_GROUP_DESC): `members` events from `leader`
/// on, in Profile::events order.
struct PERFX_API ProfileEventGroup {
  std::string name;  ///< the group's name; "" for an anonymous group
  std::uint32_t leader = 0;
  std::uint32_t members = 0;
};

/// The whole profile; see the file comment for how its parts index each other.
struct PERFX_API Profile {
  std::vector<ProfileFrame> frames;  ///< unique frames, indexed by stacks
  /// Each stack: frame indices, root (outermost caller) first, leaf last.
  std::vector<std::vector<std::uint32_t>> stacks;
  /// In huge pages when large: 400k samples are 12.8 MB of fresh memory, 3000 page
  /// faults of ~12 us each on a VM in 4 KiB pages.
  HugeVector<ProfileSample> samples;
  std::vector<ProfileThread> threads;    ///< indexed by ProfileSample::thread
  std::vector<ProfileMapping> mappings;  ///< indexed by ProfileFrame::mapping
  std::vector<ProfileEvent> events;      ///< indexed by ProfileSample::event
  std::uint64_t start_time_ns = 0;       ///< first sample time
  std::uint64_t end_time_ns = 0;         ///< last sample time
  std::uint64_t lost_samples = 0;        ///< from LOST records; shown, never hidden
  std::string command_line;              ///< the recorded command, when the file has it
  std::string hostname;                  ///< the recording machine's, when the file has it
  std::string arch;  ///< the recording machine's ("x86_64"), when the file has it
  /// Socket of each CPU of the recording machine (HEADER_CPU_TOPOLOGY), by CPU number;
  /// empty when the file has no topology.
  std::vector<std::int32_t> cpu_sockets;
  /// The recording's event groups of more than one event (perf report shows each as one
  /// section); events within range of Profile::events only.
  std::vector<ProfileEventGroup> event_groups;
  /// With ProfileOptions::trace_output: the distinct formatted fields of tracepoint
  /// samples, and per sample (parallel to `samples`) the index of its text, kNoTrace for
  /// a sample of another event. Both empty otherwise.
  std::vector<std::string> traces;
  std::vector<std::uint32_t> sample_traces;                     ///< see `traces`
  static constexpr std::uint32_t kNoTrace = ~std::uint32_t{0};  ///< not a tracepoint sample
  /// Problems found while loading (missing DSOs, build-id mismatches), one per line.
  std::vector<std::string> warnings;
  /// The file is damaged: the error that stopped reading (truncated or corrupt record, with
  /// its offset), or a summary of the corrupt bytes skipped. Everything read before it is
  /// in the profile; callers show it and then fail (docs/reliability.md).
  std::string damage;
};

/// The unit of an event's periods: "nanoseconds" for the clocks (cpu-clock, task-clock),
/// else "events".
[[nodiscard]] PERFX_API std::string event_unit(std::string_view event_name);

/// The frame sample `s` was taken in: the last frame of its stack that is not an inline
/// frame (inlined code is counted to the function it was inlined into, as perf does
/// without --inline). nullopt when the stack is empty or an index is out of range.
[[nodiscard]] PERFX_API std::optional<std::uint32_t> sampled_frame(const Profile& p,
                                                                   const ProfileSample& s);

/// Checks that every sample's stack and every stack's frames are in range (what the
/// exporters index without further checks). kInvalidArgument naming the first bad one:
/// "sample refers to stack 9 of 4", "stack 2 refers to frame 12 of 10".
[[nodiscard]] PERFX_API Result<void> check_indices(const Profile& p);

}  // namespace perfx
