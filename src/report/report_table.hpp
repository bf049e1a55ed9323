#pragma once
/// \file
/// `perfx report --stdio`: perf report's text layout of the hist entries
/// (profile/hists.hpp) of a profile::Profile. Hist entries are keyed by the sort keys (comm, pid,
/// tid, dso, sym, srcline, srcfile, cpu; `overhead` is accepted and adds no key, as perf); with
/// callchains and `children`, every distinct entry of a stack accumulates the sample's period once
/// (perf's "Children"), the leaf also as "Self". Percentages are of the event's total period
/// (perf's default absolute percentage), which leaves out samples dropped by --time and --cpu.

#include <cstdint>
#include <optional>
#include <ostream>
#include <string>
#include <vector>

#include "perfx/error.hpp"
#include "profile/hists.hpp"
#include "profile/profile.hpp"
#include "profile/thread_filter.hpp"
#include "report/report_callgraph.hpp"

namespace perfx::report {

struct ReportOptions {
  /// Sort keys, perf's names: comm, pid, tid, dso, sym, srcline, srcfile, cpu, time.
  std::vector<std::string> sort = {"comm", "dso", "sym"};
  /// Children/Self columns (used only when the event has callchains).
  bool children = true;
  GraphMode graph = GraphMode::kGraph;
  double graph_threshold = 0.5;  ///< percent; callchain branches below are hidden
  /// -g ...,caller / callee: root first or leaf first in callchains; unset = perf's
  /// default (caller with children, callee without).
  std::optional<bool> caller_order;
  double percent_limit = 0.0;        ///< hide entries below this percentage
  bool show_nr_samples = false;      ///< -n: a Samples column
  std::vector<std::string> dsos;     ///< --dsos filter (short or long names)
  std::vector<std::string> symbols;  ///< --symbols filter
  bool header_hint = true;           ///< the "To display the perf.data header info" line
  /// The --time text, shown as perf does: "# Samples: 1K of event 'x' (time slices: ...)".
  std::string time_slices;
  /// --comms, --pid, --tid: samples of other threads are left out of the entries (but
  /// not of the header's totals, as perf). A profile loaded with these filters
  /// (LoadOptions) has none of those samples, which gives the same entries, but it
  /// cannot take their unresolved ones out of the totals for --hide-unresolved.
  profile::ThreadFilter thread_filter;
  /// -F/--fields: the output columns, perf's names: `overhead` (self), `overhead_children`,
  /// `sample`, `period` and sort keys; sort keys missing from it are appended (perf).
  /// Empty = perf's default (Children + Self or Overhead, -n Samples, the sort keys).
  std::vector<std::string> fields;
  /// -s given with -F: entries are sorted by the -s keys first, then by the fields in
  /// their order (perf); otherwise by overhead, then the keys.
  bool sort_keys_first = false;
  bool quiet = false;  ///< -q: no header lines, only the entries (perf report -q)
  /// --max-stack: only the N frames nearest the leaf of every callchain count.
  std::optional<std::size_t> max_stack;
  /// --hide-unresolved: samples whose leaf has no symbol are left out (not of the totals),
  /// and unresolved frames leave the callchains (perf).
  bool hide_unresolved = false;
  /// --percentage relative: percentages of the samples that pass --dsos/--symbols, and the
  /// header's sample count and event count are theirs (perf). Default: absolute.
  bool relative_percentage = false;
  /// --show-total-period: a Period column (self period) after Samples, in the default
  /// columns only (not with -F), as perf.
  bool show_total_period = false;
  /// -t/--field-separator: columns joined by it instead of spaces: values not aligned
  /// (perf's " 12.50%" padded after), the separator's first character turned into '.'
  /// inside key values, no dot rule under the header (perf's symbol_conf.field_sep).
  std::string field_separator;
  /// --full-source-path: srcline and srcfile with the whole path of the source file.
  bool full_source_path = false;
  /// --group / --no-group: an event group of the recording is one section, each entry
  /// with a value per member (perf 6.1's default when the file has groups).
  bool group = true;
  /// -p/--parent: the regex (POSIX extended, as perf) that names a sample's parent for the
  /// `parent` sort key; perf's default.
  std::string parent_regex = "^sys_|^do_page_fault";
  /// -x/--exclude-other: samples without a parent make no entries (they stay in the totals).
  bool exclude_other = false;
  /// --time-quantum: the width of the time buckets of the `time` sort key (perf's default
  /// 100 ms). The profile needs per-sample times (LoadOptions::aggregate off).
  std::uint64_t time_quantum_ns = 100'000'000;
  /// Only the first N entries over the percent limit, which alone size the columns
  /// (perf top's screen rows); 0 = all.
  std::size_t max_entries = 0;
  /// perf's max_cols of hists__fprintf() (perf top's window): entry lines of this many
  /// characters or more are cut to one less; callchain lines are not. 0 = no cut.
  std::size_t max_cols = 0;
};

/// The sort keys named by -F fields (for -F without -s, as perf).
[[nodiscard]] std::vector<std::string> sort_keys_of_fields(const std::vector<std::string>& fields);

/// Checks -F fields; kInvalidArgument with perf's "Unknown --fields key: `x'".
[[nodiscard]] Result<void> validate_fields(const std::vector<std::string>& fields);

/// Checks sort keys (`overhead` is allowed: perf's --sort overhead is one entry);
/// kInvalidArgument naming the bad key and listing valid ones.
[[nodiscard]] Result<void> validate_sort_keys(const std::vector<std::string>& keys);

/// Writes the report for every event that has samples.
[[nodiscard]] Result<void> write_report(std::ostream& out, const profile::Profile& profile,
                                        const ReportOptions& options);

/// The hist entries of event `event` (and a group's other `members - 1` events) as the
/// report keys, filters and counts them.
[[nodiscard]] profile::Hists report_hists(const profile::Profile& profile,
                                          const ReportOptions& options, std::uint32_t event,
                                          std::uint32_t members = 1);

/// perf's srcline text for a frame (profile::frame_srcline()).
using profile::frame_srcline;

}  // namespace perfx::report
