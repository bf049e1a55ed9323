#pragma once
/// \file
/// perf's `-D/--dump-raw-trace` text of one record (util/session.c dump_event(),
/// dump_sample(), and the per-type printers the tool's handlers call):
///
///   \n0x<offset>@<path> [0x<size>]: event: <type>
///   .
///   . ... raw event: size <size> bytes
///   .  0000:  <16 bytes in hex>  <the same as characters>
///   \n<cpu> <time> 0x<offset> [0x<size>]: PERF_RECORD_<TYPE><the type's text>
///
/// A sample adds its fields (callchain, registers, user stack, ...) and the thread and
/// DSO perf resolves it to. Pure formatting: the caller hands in the record, its bytes
/// and what the process model knows.

#include <cstdint>
#include <span>
#include <string>
#include <string_view>

#include "perfx/raw.hpp"
#include "perfx/records.hpp"

namespace perfx::report {

/// Whose handlers the dump follows: perf's tools leave different user records
/// ": unhandled!" (all but script: THREAD_MAP, CPU_MAP and the stat records; annotate
/// and diff: EVENT_UPDATE too; annotate: CGROUP; diff: ID_INDEX).
enum class DumpTool : std::uint8_t { kReport, kAnnotate, kDiff, kScript };

/// What the dump needs of the recording as a whole.
struct DumpContext {
  std::string path;               ///< the input as given ("perf.data"; "pipe" for a stream)
  std::uint64_t offset_base = 0;  ///< subtracted from offsets (a stream's 16-byte header)
  std::uint64_t sample_type = 0;  ///< the OR of the events' sample_type (cpu/time columns)
  bool sample_id_all = false;     ///< the first event's
  DumpTool tool = DumpTool::kReport;
};

/// The thread and DSO perf's machine__resolve() finds for a sample.
struct DumpResolved {
  std::string_view comm;
  std::int32_t tid = 0;
  std::string_view dso;  ///< the DSO's path, "" for none ("<not found>")
};

/// One record to dump: as decoded, its bytes in the file (header included), its event
/// (attr and name; null/empty for user records and unknown ids) and, for a sample, what
/// it resolves to (null: no thread lines).
struct DumpRecord {
  const record::Record& record;
  std::span<const std::byte> bytes;
  const raw::EventAttr* attr = nullptr;
  std::string_view event_name;
  const DumpResolved* resolved = nullptr;
};

/// Appends perf's -D text of `r` to `out`.
void append_raw_dump(std::string& out, const DumpContext& ctx, const DumpRecord& r);

/// perf's raw hex block of `bytes` (trace_event()): ".", ". ... raw event: size N bytes",
/// 16 bytes a line, and a blank line.
void append_hex_block(std::string& out, std::span<const std::byte> bytes);

}  // namespace perfx::report
