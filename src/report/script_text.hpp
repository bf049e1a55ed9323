#pragma once
/// \file
/// `perfx script`: perf script's default text, one line per sample (plus a callchain
/// block and a blank line for samples with callchains), in time order. Tracepoint
/// samples print their fields through libtraceevent with the live tracefs format
/// files (when built with PERFX_HAVE_TRACEEVENT). Side-band records (COMM, FORK,
/// EXIT, MMAP, MMAP2, LOST, SWITCH) only with the show_*_events options. perf script's
/// filters (--comms, --pid, --tid, --cpu, --time, --dsos, --symbols) pick the samples.

#include <cstdint>
#include <optional>
#include <ostream>
#include <string>
#include <vector>

#include "perfx/error.hpp"
#include "profile/thread_filter.hpp"

namespace perfx::report {

struct ScriptOptions {
  /// -F fields (perf's names): comm, tid, pid, time, cpu, event, ip, sym, symoff, dso,
  /// addr, period, srcline, trace, iregs, uregs. Empty = perf's default for each event type.
  std::vector<std::string> fields;
  bool ns = false;                              ///< --ns: nanosecond timestamps
  bool show_task_events = false;                ///< COMM/FORK/EXIT records
  bool show_mmap_events = false;                ///< MMAP/MMAP2 records
  std::string tracefs = "/sys/kernel/tracing";  ///< where tracepoint format files live
  std::string buildid_dir;                      ///< perf's build-id cache, "" = $HOME/.debug
  bool demangle_params = false;                 ///< C++ parameter lists (perf script -v)
  bool demangle = true;                         ///< false: mangled names (--no-demangle)
  bool full_source_path = false;                ///< srcline with the file's whole path
  /// perf script's filters (empty = all). A sample is shown when its thread's comm, pid
  /// and tid at that time, its CPU, its time (perf's --time windows), and the DSO
  /// (short or long name) and symbol (name, or "0x<start>") of its ip are listed.
  /// Side-band records (show_*_events) are filtered by CPU only, as perf does.
  profile::ThreadFilter thread_filter;
  std::vector<std::uint32_t> cpus;
  std::vector<std::string> dsos;
  std::vector<std::string> symbols;
  std::string time;
  /// -G/--hide-call-graph: one line per sample, as if it had no callchain.
  bool hide_call_graph = false;
  /// --max-stack: the callchain entries shown per sample, nearest the leaf first.
  std::optional<std::size_t> max_stack;
  /// Time column: absolute (perf's clock), --reltime (since the first event shown) or
  /// --deltatime (since the previous one).
  enum class TimeBase : std::uint8_t { kAbsolute, kRelative, kDelta };
  TimeBase time_base = TimeBase::kAbsolute;
  bool show_lost_events = false;    ///< PERF_RECORD_LOST records
  bool show_switch_events = false;  ///< PERF_RECORD_SWITCH / SWITCH_CPU_WIDE records
  /// Callchain frames with DWARF inline scopes print one "(inlined)" line per scope, as
  /// perf script does by default (--no-inline turns it off).
  bool inline_frames = true;
  /// Threads in all, the replaying one included: the others format the text. 0 = one per
  /// core (up to 3); 1 = everything on the calling thread.
  unsigned threads = 0;
  /// Called now and then with (bytes read, bytes in the file) while reading; may be null.
  void (*progress)(std::uint64_t done, std::uint64_t total) = nullptr;
};

/// Checks -F field names; kInvalidArgument naming the bad one.
[[nodiscard]] Result<void> validate_script_fields(const std::vector<std::string>& fields);

/// Reads the perf.data at `path` ("-" = stdin) and writes perf script's text to `out`.
/// Errors: the reader's (kNotFound, kMalformedData with the offset, ...), kInvalidArgument
/// when a requested field is not in the recording (as perf: "Samples for 'cpu-clock'
/// event do not have CPU attribute set"). `warnings` (when not null) receives what was
/// left out without stopping the output, with counts (profile::describe_skipped()).
[[nodiscard]] Result<void> write_script(std::ostream& out, const std::string& path,
                                        const ScriptOptions& options,
                                        std::vector<std::string>* warnings = nullptr);

}  // namespace perfx::report
