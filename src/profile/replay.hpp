#pragma once
/// \file
/// Time-ordered replay of a perf.data through the process model, and per-address
/// symbolization with a cache: the common core of `perfx report`, `perfx script`
/// and load_profile().
///
/// Records arrive in perf's time order from for_each_ordered() (ordered_records.hpp: the
/// round rule, read ahead on a second core); memory is bounded by a couple of rounds,
/// not by the file.

#include <cstdint>
#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <unordered_map>
#include <vector>

#include "perfx/error.hpp"
#include "profile/sample_replay.hpp"
#include "profile/time_filter.hpp"
#include "record/perf_data_reader.hpp"
#include "record/records.hpp"
#include "symbol/machine.hpp"

namespace perfx::profile {

/// One record delivered in time order: decoded, with its attr and the thread state
/// after the process model applied it (nullptr for records without a thread).
struct ReplayItem {
  const record::Record& record;
  const record::RawRecord& raw;
  symbol::ThreadState* thread = nullptr;
};

/// Applies a side-band record (MMAP, MMAP2, COMM, FORK, EXIT) to `machine` and returns
/// the thread the record belongs to (for a sample or another record with a sample_id:
/// its thread; kernel MMAPs: the idle thread 0, as perf shows them), or nullptr.
symbol::ThreadState* apply_record(symbol::Machine& machine, const record::Record& r);

/// Replays `reader` in time order, updating `machine` on MMAP/MMAP2/COMM/FORK/EXIT
/// before calling `fn`. Stops early when `fn` returns false. `as_perf_sees`: also the
/// FINISHED_ROUND records, in perf's -D order (for_each_ordered()).
/// Errors: the reader's fatal error (truncation/corruption with the offset).
[[nodiscard]] Result<void> replay(record::PerfDataReader& reader, symbol::Machine& machine,
                                  const std::function<bool(const ReplayItem&)>& fn,
                                  bool as_perf_sees = false);

/// One line for a damaged recording once replay() is done: the error that stopped it
/// (offset, record), the bytes the reader skipped or found missing, or both, with the
/// first skip's warning when nothing stopped it. Empty for a whole file. Everything read
/// before the damage was delivered: callers show it, then this line, then fail.
[[nodiscard]] std::string describe_damage(const record::PerfDataReader& reader,
                                          const Result<void>& replayed);

/// What a pass over `reader` left out without stopping, one warning per line, each with
/// its count: the reader's warnings (an unfinished recording, a torn last record,
/// resynchronisations), records that did not decode (malformed samples: a callchain nr
/// past the record, ...) and records of unknown types. Empty when nothing was left out.
/// Callers print these and keep exit 0 (the data that was read is complete).
[[nodiscard]] std::vector<std::string> describe_skipped(const record::PerfDataReader& reader);

/// perf's --time windows `spec` for `reader`'s recording: the percent forms are of the
/// span its HEADER_SAMPLE_TIME feature gives (parse_time_filter()). `relative` (perf
/// script --reltime): seconds count from the first sample (percent forms are already
/// of the span; perf 6.1 shifts those too and then shows nothing).
[[nodiscard]] Result<TimeFilter> recording_time_filter(const record::PerfDataReader& reader,
                                                       std::string_view spec,
                                                       bool relative = false);

/// perf_session__cpu_bitmap()'s checks of a --cpu list, in perf's words: every event of
/// the recording has PERF_SAMPLE_CPU, and every CPU is below the recording's CPU count
/// (HEADER_NRCPUS, when present). kInvalidArgument otherwise; nothing to check when
/// `cpus` is empty.
[[nodiscard]] Result<void> check_cpu_list(const record::PerfDataReader& reader,
                                          const std::vector<std::uint32_t>& cpus);
// kNoCpuEvents, the first check's message: profile/sample_replay.hpp.

/// An interned code location: a DSO (or none) and the map-relative address.
struct Location {
  const symbol::Dso* dso = nullptr;  ///< nullptr when no map held the address
  std::uint64_t map_addr = 0;        ///< perf's map-relative address (or raw ip)
  bool kernel = false;
  /// Unwound from a user stack copy (--call-graph dwarf): perf 6.1 expands inline scopes
  /// of such frames only (InlineMode::kUnwound).
  bool unwound = false;
  /// The sample's ip - map_addr: where its process mapped the DSO (user frames of a map
  /// that is not identity-mapped, else 0). Locations that differ only here are resolved
  /// once (LocationTable::canonical()), but an unresolved one is shown per process, by
  /// its own address, as perf keys its callchain entries.
  std::uint64_t bias = 0;
  bool operator==(const Location&) const = default;
};

struct LocationHash {
  std::size_t operator()(const Location& l) const noexcept {
    return std::hash<std::uint64_t>()(l.map_addr * 0x9e3779b97f4a7c15ULL ^
                                      reinterpret_cast<std::uintptr_t>(l.dso)) ^
           (l.kernel ? 1u : 0u) ^ (l.unwound ? 2u : 0u) ^ (l.bias * 0xff51afd7ed558ccdULL);
  }
};

/// What a location resolves to.
struct Resolved {
  const symbol::Symbol* sym = nullptr;  ///< nullptr = "[unknown]"
  std::uint64_t sym_addr = 0;           ///< address in the DSO's symbol space
  std::string srcfile;                  ///< with source lines on
  std::uint32_t line = 0;
  /// No line, but addr2line would name a function (symbol::Dso::addr2line_names_function())
  bool addr2line_function = false;
  std::vector<symbol::InlineFrame> inlines;  ///< with inline frames on (innermost first)
};

/// The memory map a location was first seen in (for export mappings): runtime range and
/// the file offset of `start`; all zero when no map held the address.
struct MapRange {
  std::uint64_t start = 0;
  std::uint64_t end = 0;
  std::uint64_t pgoff = 0;
  bool identity = false;  ///< addresses in the map are absolute (JIT, kernel)
};

/// Which locations get their inline scopes (Resolved::inlines).
enum class InlineMode : std::uint8_t {
  kNone,     ///< none
  kAll,      ///< every location with a symbol
  kUnwound,  ///< only DWARF-unwound ones (perf 6.1's append_inlines() in unwind_entry())
};

/// Interns locations and resolves each one once (resolve_all() runs in parallel).
class LocationTable {
 public:
  /// Id of `loc`, adding it when new; `map` (may be null) is kept for the first sighting.
  std::uint32_t intern(const Location& loc, const symbol::Map* map = nullptr);
  /// The map `location(id)` was first seen in.
  [[nodiscard]] const MapRange& map_range(std::uint32_t id) const { return maps_[id]; }
  [[nodiscard]] const Location& location(std::uint32_t id) const { return locations_[id]; }
  [[nodiscard]] std::size_t size() const noexcept { return locations_.size(); }
  /// Resolves every location not yet resolved with `threads` workers (0 = all cores).
  void resolve_all(bool source_lines, InlineMode inlines, unsigned threads);
  /// Resolves one location now (single-threaded use, e.g. perf script) and returns it.
  const Resolved& resolve(std::uint32_t id, bool source_lines, InlineMode inlines);
  [[nodiscard]] const Resolved& resolved(std::uint32_t id) const { return resolved_[canon_[id]]; }
  /// The first location interned with `id`'s DSO, address, mode and unwinding (its bias
  /// aside): the one resolved for both.
  [[nodiscard]] std::uint32_t canonical(std::uint32_t id) const { return canon_[id]; }

 private:
  void resolve_one(std::uint32_t id, bool source_lines, InlineMode inlines);
  std::vector<Location> locations_;
  std::vector<MapRange> maps_;
  std::vector<Resolved> resolved_;
  std::vector<std::uint8_t> done_;
  std::vector<std::uint32_t> canon_;  // canonical() per location
  std::unordered_map<Location, std::uint32_t, LocationHash> index_;
  std::unordered_map<Location, std::uint32_t, LocationHash> canon_index_;  // bias 0 -> id
};

/// The callchain of a sample as locations, leaf first, the way perf walks it:
/// PERF_CONTEXT_* markers switch between kernel and user (HV, and the guest ones, are
/// kept too); any other value from PERF_CONTEXT_MAX up means a corrupt callchain, which
/// perf discards whole (add_callchain_ip()): then `out` has the sample ip alone and the
/// result is true (the stack depends on more than the callchain's bytes).
/// With REGS_USER + STACK_USER (`--call-graph dwarf`) and no user entries in the
/// callchain, the user frames are unwound from the stack copy (symbol::Unwinder) and
/// follow the kernel ones. Without a callchain, the sample ip alone (cpumode from the
/// record's misc). `first_unwound`, when given, receives the index in `out` of the first
/// DWARF-unwound frame (out.size() when none): perf 6.1 expands inline scopes for those
/// frames only.
bool sample_locations(symbol::Machine& machine, const symbol::ThreadState& thread,
                      const record::Sample& sample, std::uint16_t misc, bool callchains,
                      LocationTable& table, std::vector<std::uint32_t>& out,
                      std::vector<std::uint64_t>* ips = nullptr,
                      std::size_t* first_unwound = nullptr);

}  // namespace perfx::profile
