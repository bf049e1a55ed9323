#pragma once
/// \file
/// perf's text views of a recording (perfx/recording.hpp), byte for byte what perf 6.1
/// prints: `perf script` (write_script), `perf report --stats` (write_record_stats),
/// `perf report --tasks`/`--mmaps` (write_task_tree), `perf evlist` (evlist_text),
/// `perf buildid-list` (write_buildid_list) and `perf annotate --stdio`
/// (write_annotations, over a loaded Profile). Each reads through the Recording: one pass
/// of its data section (a pipe has only one).
///
/// \code
///   auto rec = perfx::Recording::open("perf.data");
///   perfx::ScriptOptions so;
///   so.fields = {"comm", "tid", "time", "ip", "sym"};
///   std::vector<std::string> warnings;
///   auto ok = perfx::write_script(*rec, std::cout, so, &warnings);
/// \endcode

#include <cstdint>
#include <optional>
#include <ostream>
#include <string>
#include <string_view>
#include <vector>

#include "perfx/error.hpp"
#include "perfx/export.hpp"
#include "perfx/profile.hpp"
#include "perfx/recording.hpp"

namespace perfx {

// ---------------------------------------------------------------- perf script

/// What write_script() prints and which samples.
struct PERFX_API ScriptOptions {
  /// -F fields (perf's names): comm, tid, pid, time, cpu, event, ip, sym, symoff, dso,
  /// addr, period, srcline, trace, iregs, uregs, insn, insnlen, flags, callindent,
  /// srccode, misc, tod, weight, phys_addr. Empty = perf's default for each event type.
  std::vector<std::string> fields;
  bool ns = false;                              ///< --ns: nanosecond timestamps
  bool show_task_events = false;                ///< COMM/FORK/EXIT records
  bool show_mmap_events = false;                ///< MMAP/MMAP2 records
  std::string tracefs = "/sys/kernel/tracing";  ///< where tracepoint format files live
  std::string buildid_dir;                      ///< perf's build-id cache, "" = $HOME/.debug
  /// perf's --symfs: DSOs, debug files, the build-id cache and kallsyms are read under
  /// this directory, their usual path appended ("" = as usual).
  std::string symfs;
  std::string kallsyms;           ///< --kallsyms: kernel symbols from this file
  std::string vmlinux;            ///< -k/--vmlinux: kernel symbols from this ELF
  bool demangle_params = false;   ///< C++ parameter lists (perf script -v)
  bool demangle = true;           ///< false: mangled names (--no-demangle)
  bool full_source_path = false;  ///< srcline with the file's whole path
  /// perf script's filters (empty = all). A sample is shown when its thread's comm, pid
  /// and tid at that time, its CPU, its time (perf's --time windows), and the DSO
  /// (short or long name) and symbol (name, or "0x<start>") of its ip are listed.
  /// Side-band records (show_*_events) are filtered by CPU only, as perf does.
  ThreadFilter thread_filter;
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
  bool show_lost_events = false;       ///< PERF_RECORD_LOST records
  bool show_switch_events = false;     ///< PERF_RECORD_SWITCH / SWITCH_CPU_WIDE records
  bool show_namespace_events = false;  ///< PERF_RECORD_NAMESPACES records
  bool show_cgroup_events = false;     ///< PERF_RECORD_CGROUP records
  bool show_bpf_events = false;        ///< PERF_RECORD_KSYMBOL and BPF_EVENT records
  bool show_text_poke_events = false;  ///< PERF_RECORD_KSYMBOL and TEXT_POKE records
  /// --stop-bt: a callchain ends after the first frame whose symbol is one of these.
  std::vector<std::string> stop_bt;
  /// --graph-function: only the branch-trace (BTS/PT) calls into these functions and
  /// what they call; other samples have no branch flags, so perf shows none of them.
  std::string graph_function;
  /// Only the samples of this event (index in the recording), no side-band records
  /// (write_script_per_event()'s passes).
  std::optional<std::size_t> only_event;
  bool side_band_only = false;  ///< the side-band records shown, no samples
  /// When set, receives the number of samples printed.
  std::uint64_t* samples_written = nullptr;
  /// Callchain frames with DWARF inline scopes print one "(inlined)" line per scope, as
  /// perf script does by default (--no-inline turns it off).
  bool inline_frames = true;
  /// Threads in all, the replaying one included: the others format the text. 0 = one per
  /// core (up to 3); 1 = everything on the calling thread.
  unsigned threads = 0;
  /// Called now and then with (bytes read, bytes in the file) while reading; may be null.
  void (*progress)(std::uint64_t done, std::uint64_t total) = nullptr;
  /// -D/--dump-raw-trace: every record's raw dump (write_raw_dump()'s text, perf script's
  /// handlers) before what the script prints for it, in perf's order.
  bool dump_raw_trace = false;
};

/// Checks -F field names (perf's grammar: [type:][+-]field,...); kInvalidArgument naming
/// the bad one.
[[nodiscard]] PERFX_API Result<void> validate_script_fields(const std::vector<std::string>& fields);

/// Writes perf script's text for the recording: one line per sample (plus a callchain
/// block and a blank line for samples with callchains), in time order; tracepoint
/// samples print their fields through libtraceevent with the live tracefs format files.
/// Errors: the reader's (kMalformedData with the offset: everything before the damage was
/// written), kInvalidArgument when a requested field is not in the recording (as perf:
/// "Samples for 'cpu-clock' event do not have CPU attribute set"). `warnings` (when not
/// null) receives what was left out without stopping the output, with counts.
[[nodiscard]] PERFX_API Result<void> write_script(Recording& recording, std::ostream& out,
                                                  const ScriptOptions& options,
                                                  std::vector<std::string>* warnings = nullptr);

/// One file written by write_script_per_event().
struct PERFX_API EventDump {
  std::string path;           ///< "<input>.<event name>.dump"
  std::uint64_t bytes = 0;    ///< its size
  std::uint64_t samples = 0;  ///< the samples in it
};

/// perf script --per-event-dump: each event's samples as write_script() prints them, in
/// the file "<input>.<event name>.dump" (`input`: the recording's path as given, not a
/// pipe); the side-band records asked for (show_*_events) go to `side_band`. One pass of
/// the recording per event (and one for the side-band records when any are shown).
/// Errors: write_script()'s, and the files' (named).
[[nodiscard]] PERFX_API Result<std::vector<EventDump>> write_script_per_event(
    Recording& recording, const std::string& input, std::ostream& side_band,
    const ScriptOptions& options, std::vector<std::string>* warnings = nullptr);

/// perf's line for a dump written: "[ perf script: Wrote 0.004 MB <path> (35 samples) ]",
/// the size as perf reads it before its last flush (whole 4 KiB buffers).
[[nodiscard]] PERFX_API std::string event_dump_line(const EventDump& dump);

// ---------------------------------------------------------------- perf report -D

/// What write_raw_dump() prints around the records.
struct PERFX_API RawDumpOptions {
  /// Whose dump: perf report's (its first lines, the record counts at the end), perf
  /// annotate's (no first lines, the counts with the empty types; a few of perf's own
  /// records are "unhandled!" there) or that of one file of perf diff (no first lines,
  /// no counts; ID_INDEX "unhandled!" too).
  enum class Command : std::uint8_t { kReport, kAnnotate, kDiff };
  Command command = Command::kReport;
  /// report -q: without report's first lines ("# To display the perf.data header ...").
  bool quiet = false;
  /// perf's "WARNING: No sample_id_all support, falling back to unordered processing"
  /// first, for a file whose first event lacks sample_id_all (a stat recording). perf
  /// prints it once per run: false for diff's second file.
  bool warn_unordered = true;
};

/// perf report -D/--dump-raw-trace: each record of the recording in perf's processing
/// order (time order within its rounds, perf's own records where they are in the file),
/// as perf 6.1 dumps it: its offset and size, its bytes in hex and as characters, the
/// cpu and time columns and its decoded text (a sample's fields, callchain, registers,
/// user stack size, and the thread and DSO it resolves to), then (report, annotate) the
/// record counts (write_record_stats()). Errors: the reader's (after the dump and counts of
/// everything before the damage), kIo when `out` fails.
[[nodiscard]] PERFX_API Result<void> write_raw_dump(Recording& recording, std::ostream& out,
                                                    const RawDumpOptions& options = {});

// ---------------------------------------------------------------- perf report --stats/--tasks

/// perf report --stats: the count of each record type, then per event its samples and
/// lost samples. `skip_empty` (perf's default): types and events with nothing counted are
/// left out. A damaged file gives the statistics of what was read, then its error.
[[nodiscard]] PERFX_API Result<void> write_record_stats(Recording& recording, std::ostream& out,
                                                        bool skip_empty = true);

/// perf report --tasks: the recording's threads as a tree by parent (pid, tid, ppid,
/// comm); with `mmaps` (--mmaps) each thread's process maps under it. Errors: the
/// reader's, kMalformedData when a thread's parent is not in the recording (perf: "failed
/// to process tasks").
[[nodiscard]] PERFX_API Result<void> write_task_tree(Recording& recording, std::ostream& out,
                                                     bool mmaps);

// ---------------------------------------------------------------- perf evlist

/// What evlist_text() shows of each event.
struct PERFX_API EvlistOptions {
  bool verbose = false;  ///< -v
  bool freq = false;     ///< -F
  bool group = false;    ///< -g
  /// --trace-fields: each tracepoint's field names, from the format files under
  /// `tracefs` (as perf reads the live formats); "(not a tracepoint)" for other events.
  bool trace_fields = false;
  std::string tracefs = "/sys/kernel/tracing";
};

/// perf evlist's lines for the events of the recording (a pipe is read to its end: its
/// attrs come as records). kInvalidArgument "<path>: no events in it" for none.
[[nodiscard]] PERFX_API Result<std::string> evlist_text(Recording& recording,
                                                        const EvlistOptions& options);

// ---------------------------------------------------------------- perf buildid-list

/// perf buildid-list: "<build-id> <path>" lines from the recording's HEADER_BUILD_ID in
/// the file's order; `with_hits` (-H) only those of DSOs some sample's ip fell in. A pipe
/// (perf's way there): the build-ids the stream carried, then those of the other DSOs
/// with samples whose build-id is read from the files. Errors: the reader's; a damaged
/// pipe gives the lines of what was read, then kMalformedData.
[[nodiscard]] PERFX_API Result<void> write_buildid_list(Recording& recording, std::ostream& out,
                                                        bool with_hits);

/// The running kernel's build-id (lower-case hex, from /sys/kernel/notes); "" when
/// unknown (perf buildid-list -k).
[[nodiscard]] PERFX_API std::string running_kernel_build_id();

// ---------------------------------------------------------------- perf annotate

/// Assembly syntax of annotate's listing (perf's -M).
enum class AsmSyntax : std::uint8_t { kAtt, kIntel };

/// perf's --percent-type.
enum class PercentType : std::uint8_t { kLocalPeriod, kGlobalPeriod, kLocalHits, kGlobalHits };

/// "local-period", "global-period", "local-hits", "global-hits" (perf also takes
/// "period-local" and the like); kInvalidArgument naming the bad text.
[[nodiscard]] PERFX_API Result<PercentType> parse_percent_type(std::string_view text);

struct PERFX_API AnnotateOptions {
  std::vector<std::string> symbols;  ///< only these symbols (empty: every one with samples)
  std::vector<std::string> dsos;     ///< only symbols of these DSOs (short or long name)
  std::int32_t event = -1;           ///< only this event index (-1: each in turn)
  PercentType percent_type = PercentType::kLocalPeriod;
  bool show_nr_samples = false;        ///< -n: a Samples column instead of Percent
  bool show_total_period = false;      ///< --show-total-period: a Period column
  bool source = true;                  ///< interleave source lines (--no-source: no)
  bool full_paths = false;             ///< -P: the DSO's whole path in the title
  bool asm_raw = false;                ///< --asm-raw: the instruction bytes too
  bool print_line = false;             ///< -l: the hottest source lines first, " // file:line"
  double percent_limit = 0;            ///< symbols below this share of the event are skipped
  AsmSyntax syntax = AsmSyntax::kAtt;  ///< -M: AT&T (default) or Intel
  bool demangle = true;                ///< false: symbol names as the binaries have them
  std::string buildid_dir;             ///< perf's build-id cache, "" = $HOME/.debug
};

struct PERFX_API AnnotateSummary {
  std::size_t annotated = 0;          ///< symbols printed
  std::vector<std::string> problems;  ///< one per symbol that could not be annotated
};

/// perf annotate --stdio: for each selected symbol of `profile` (by period, highest
/// first), its machine code with each instruction's share of the symbol's samples and
/// the source lines interleaved. `profile` may be loaded without callchains (the leaf is
/// all annotate looks at). Errors: kNotSupported for a recording of an architecture the
/// disassembler does not know; kIo when `out` fails.
[[nodiscard]] PERFX_API Result<AnnotateSummary> write_annotations(const Profile& profile,
                                                                  std::ostream& out,
                                                                  const AnnotateOptions& options);

}  // namespace perfx
