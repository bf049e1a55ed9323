#pragma once
/// \file
/// A recording replayed for a sample printer (perf script): the reader, the process
/// model and the symbol tables behind one object, handing out each record in time order
/// with its thread, and each code location as plain text-ready data. The printer in
/// src/report sees neither the reader nor the symbol module.

#include <cstdint>
#include <functional>
#include <memory>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "perfx/error.hpp"
#include "perfx/raw.hpp"
#include "perfx/records.hpp"
#include "profile/record_counts.hpp"
#include "profile/symbol_naming.hpp"
#include "profile/time_filter.hpp"

namespace perfx::record {
class PerfDataReader;
}

namespace perfx::profile {

/// check_cpu_list()'s first message (replay.hpp; pipe mode finds events later).
inline constexpr std::string_view kNoCpuEvents =
    "File does not contain CPU events. Remove -C option to proceed.";

/// The thread of a replayed record, as of that record.
struct ReplayThread {
  std::int32_t pid = -1, tid = -1;
  std::string_view comm;
  const void* identity = nullptr;  ///< the same for every record of one thread
};

/// One record in time order (valid during the callback).
struct ReplayedRecord {
  const record::Record& record;
  std::uint64_t offset = 0;              ///< the record's byte offset (for progress)
  const ReplayThread* thread = nullptr;  ///< nullptr for records without a thread
  std::span<const std::byte> bytes;      ///< the record as in the file, header included
};

/// A code location (LocationTable id) as a printer shows it.
struct LocationView {
  bool in_dso = false;               ///< a map held the address
  std::uint64_t map_address = 0;     ///< perf's map-relative address (or the raw ip)
  std::string_view dso_long;         ///< the DSO's path ("" without one)
  std::string_view dso_short;        ///< its short name
  std::uint64_t symbol_address = 0;  ///< map_address in the DSO's symbol space
  bool has_symbol = false;
  std::string_view symbol;          ///< its name, when has_symbol
  std::uint64_t symbol_offset = 0;  ///< symbol_address - the symbol's start
  std::string_view srcfile;         ///< with source lines asked for and found
  std::uint32_t line = 0;
  /// No source line, but GNU addr2line (which perf runs) would name a function here:
  /// perf's srcline is then "??:0".
  bool addr2line_function = false;
  /// With addr2line_function: a DWARF unit covers the address, so addr2line's file name
  /// is empty (perf: ":0" instead of "??:0").
  bool addr2line_file_empty = false;
};

/// One DWARF inline scope of a code location, innermost first: the function and the
/// source line inside it (the address's own line, or the call site of the scope within).
struct InlineScope {
  std::string function;
  std::string file;
  std::uint32_t line = 0;
};

class SampleReplay {
 public:
  /// Replays `reader` from where it stands; it must outlive this object.
  SampleReplay(record::PerfDataReader& reader, const SymbolNaming& naming);
  ~SampleReplay();
  SampleReplay(const SampleReplay&) = delete;
  SampleReplay& operator=(const SampleReplay&) = delete;

  /// The recording's events (pipe mode: those seen so far).
  [[nodiscard]] std::size_t events() const noexcept;
  [[nodiscard]] const raw::EventAttr& attr(std::size_t index) const noexcept;
  [[nodiscard]] std::string event_name(std::size_t index) const;
  [[nodiscard]] bool is_pipe() const noexcept;
  /// The reader replayed (its events and features as they stand).
  [[nodiscard]] const record::PerfDataReader& reader() const noexcept;
  [[nodiscard]] std::uint64_t file_size() const noexcept;
  /// The input as it was opened ("perf.data", "-").
  [[nodiscard]] const std::string& input_name() const noexcept;

  /// recording_time_filter() and check_cpu_list() of the recording (replay.hpp).
  [[nodiscard]] Result<TimeFilter> time_filter(std::string_view spec, bool relative) const;
  [[nodiscard]] Result<void> check_cpus(const std::vector<std::uint32_t>& cpus) const;

  /// Calls `fn` with each record in time order until it returns false; the reader's
  /// fatal error, if any. `as_perf_sees` (perf's -D): FINISHED_ROUND records too, in
  /// the order perf's dump shows them (profile::for_each_ordered()).
  [[nodiscard]] Result<void> run(const std::function<bool(const ReplayedRecord&)>& fn,
                                 bool as_perf_sees = false);

  /// The sampled ip's DSO as perf's machine__resolve() names it for -D: its path,
  /// "" when no map holds the ip. Call during run() for the record's sample.
  [[nodiscard]] std::string_view sample_dso(const ReplayedRecord& item,
                                            const record::Sample& sample);

  /// sample_locations() (replay.hpp) for a sample of `item` (its thread must be set).
  bool sample_locations(const ReplayedRecord& item, const record::Sample& sample, bool callchains,
                        std::vector<std::uint32_t>& out, std::vector<std::uint64_t>* ips,
                        std::size_t* first_unwound = nullptr);

  /// Location `id`, resolved (with its source line when `srcline`) on first use.
  [[nodiscard]] LocationView location(std::uint32_t id, bool srcline);
  /// Number of locations interned so far.
  [[nodiscard]] std::size_t locations() const noexcept;
  /// The inline scopes (innermost first) of location `id`'s symbol address; empty when
  /// it has no symbol or DWARF has none.
  [[nodiscard]] std::vector<InlineScope> inline_scopes(std::uint32_t id, bool srcline);

  /// The recording's clock reference (HEADER_CLOCK_DATA, perf record -k): the wall-clock
  /// time and the recording clock's time at one instant, in ns; nullopt without it.
  [[nodiscard]] std::optional<std::pair<std::uint64_t, std::uint64_t>> clock_reference() const;
  /// perf script's insn: the bytes of the instruction at location `id`, read from its
  /// DSO's file (perf's thread__memcpy()) and cut to the x86-64 instruction's length
  /// (libopcodes); empty where perf prints none (kernel, no file, undecodable bytes).
  /// Valid until the next call.
  [[nodiscard]] std::span<const std::uint8_t> instruction(std::uint32_t id);
  /// perf script's srccode of location `id`: the source file as GNU addr2line names it,
  /// the line, and that line's text from the file (without its newline); nullopt where
  /// there is no source line or the file cannot be read. Valid until the next call.
  struct SourceCode {
    std::string_view file;
    std::uint32_t line = 0;
    std::string_view text;
  };
  [[nodiscard]] std::optional<SourceCode> source_code(std::uint32_t id);

  /// perf report --stats' counts (profile/record_counts.hpp) of the records run()
  /// delivered (all of them with `as_perf_sees`), `replayed` being run()'s result.
  [[nodiscard]] RecordCounts record_counts(const Result<void>& replayed) const;

  /// describe_skipped() and describe_damage() of the reader after run().
  [[nodiscard]] std::vector<std::string> skipped() const;
  [[nodiscard]] std::string damage(const Result<void>& replayed) const;

 private:
  struct Impl;
  std::unique_ptr<Impl> impl_;
};

/// perf script's iregs/uregs text of a sample's registers (record::format_regs()).
[[nodiscard]] std::string format_sample_regs(const record::Regs& regs);

}  // namespace perfx::profile
