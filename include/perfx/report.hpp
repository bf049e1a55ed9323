#pragma once
/// \file
/// perf report's and perf diff's text over a resolved Profile (perfx/profile.hpp).
///
/// The report groups one event's samples into perf's hist entries, keyed by the sort keys
/// (comm, pid, tid, dso, sym, srcline, srcfile, cpu, time, parent, socket); with
/// callchains and `children`, every distinct entry of a stack accumulates the sample's
/// period once (perf's "Children"), the leaf also as "Self". Percentages are of the
/// event's total period (perf's default absolute percentage). diff pairs the self
/// entries (shared object, symbol) of two profiles.
///
/// \code
///   perfx::ReportOptions options;
///   options.sort = {"dso", "sym"};
///   options.children = false;
///   if (auto ok = perfx::write_report(std::cout, profile, options); !ok) fail(ok.error());
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

/// How call graphs are printed under the entries (perf report's -g print type).
enum class CallGraphMode : std::uint8_t {
  kGraph,    ///< a tree, branches with percentages of the event's total
  kFlat,     ///< each chain, root to leaf
  kFolded,   ///< each chain on one line, "a;b;c"
  kNone,     ///< no call graphs
  kFractal,  ///< a tree, branches with percentages of their parent's callees
};

/// What merges callchain frames into one graph node (perf's -g sort_key).
enum class CallGraphKey : std::uint8_t {
  kFunction,  ///< the function (perf's default)
  kAddress,   ///< the instruction address; frames shown with their source line
  kSrcline,   ///< the source line; frames shown with it
};

/// What a call graph node shows (perf's -g value).
enum class CallGraphValue : std::uint8_t {
  kPercent,  ///< percentage (of the total, or of the parent with kFractal)
  kPeriod,   ///< the summed period
  kCount,    ///< the number of samples
};

/// What `perf report --stdio` takes.
struct PERFX_API ReportOptions {
  /// Sort keys, perf's names: comm, pid, tid, dso, sym, srcline, srcfile, cpu, time.
  std::vector<std::string> sort = {"comm", "dso", "sym"};
  /// Children/Self columns (used only when the event has callchains).
  bool children = true;
  CallGraphMode graph = CallGraphMode::kGraph;  ///< -g: how call graphs are printed
  double graph_threshold = 0.5;                 ///< percent; callchain branches below are hidden
  /// -g ...,caller / callee: root first or leaf first in callchains; unset = perf's
  /// default (caller with children, callee without).
  std::optional<bool> caller_order;
  /// -g print_limit: at most this many chains (flat, folded) or branches per level and
  /// frames of the first line (graph); 0 = all.
  std::uint32_t graph_print_limit = 0;
  CallGraphKey graph_key = CallGraphKey::kFunction;       ///< -g sort_key
  CallGraphValue graph_value = CallGraphValue::kPercent;  ///< -g value
  /// -g given explicitly (perf's symbol_conf.use_callchain): write_report() refuses a
  /// recording without callchains, as perf does.
  bool graph_requested = false;
  /// -s was given (perf's sort_order): when its first key starts with "sym" and no -F
  /// was given, a call graph without a percentage leaves out its first frame (perf).
  bool sort_given = false;
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
  ThreadFilter thread_filter;
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
  /// --ignore-callees: a regex (POSIX extended, as perf) naming functions whose callees are
  /// forgotten: the last match in the callchain's display order becomes the sample's own
  /// entry (its Self); in callee order its callees leave the chain, in caller order (the
  /// --children default) its callers do, as perf 6.1. Only frames of the recorded
  /// callchain match (not DWARF-unwound ones). Empty: off. check_ignore_callees().
  std::string ignore_callees;
  /// --time-quantum: the width of the time buckets of the `time` sort key (perf's default
  /// 100 ms). The profile needs per-sample times (LoadOptions::aggregate off).
  std::uint64_t time_quantum_ns = 100'000'000;
  /// --ns: the time sort key in nanoseconds (perf's symbol_conf.nanosecs).
  bool nanoseconds = false;
  /// --socket-filter: only entries of this processor socket, and "# Processor Socket: N"
  /// in the header; -1 = all. As in perf 6.1, entries are filtered only when a sort key
  /// merges entries after they are made (comm, tid) or with --hierarchy.
  int socket_filter = -1;
  /// --symbol-filter: only entries whose symbol contains this text (perf 6.1: applied, like
  /// --socket-filter, only when a sort key merges entries or with --hierarchy, and only
  /// to the recording's first event); with --percentage relative the event count and
  /// percentages are those of the entries kept. Empty: off.
  std::string symbol_filter;
  /// --raw-trace: tracepoint fields as raw values, not through their print format (the
  /// trace sort key's text).
  bool raw_trace = false;
  /// --hierarchy: entries nested by sort key, each level summing the one below (perf's
  /// symbol_conf.report_hierarchy); no Children column.
  bool hierarchy = false;
  /// Only the first N entries over the percent limit, which alone size the columns
  /// (perf top's screen rows); 0 = all.
  std::size_t max_entries = 0;
  /// perf's max_cols of hists__fprintf() (perf top's window): entry lines of this many
  /// characters or more are cut to one less; callchain lines are not. 0 = no cut.
  std::size_t max_cols = 0;
};

/// Parses perf report's -g/--call-graph value into `options`, as perf's
/// parse_callchain_report_opt(): comma-separated print_type (graph, flat, fractal, folded,
/// none), threshold, print_limit, order (caller, callee), sort_key (function, address,
/// srcline), branch and value (percent, period, count), words matched by prefix, in any
/// order; the first number is the threshold, the second the print limit; `none` ends the
/// list. Sets graph_requested (unless none). Returns whether a threshold was given.
/// Errors: kInvalidArgument naming the token perf would refuse.
[[nodiscard]] PERFX_API Result<bool> parse_call_graph(std::string_view text,
                                                      ReportOptions& options);

/// Sets what loading the profile must keep for a report with `options`: source lines for
/// the srcline and srcfile keys, each tracepoint sample's text for the trace key (raw with
/// --raw-trace). Leaves the other ProfileOptions as they are.
PERFX_API void report_profile_options(const ReportOptions& options, ProfileOptions& load);

/// Checks an --ignore-callees regex; kInvalidArgument with perf's "Invalid
/// --ignore-callees regex: X" and the reason.
[[nodiscard]] PERFX_API Result<void> check_ignore_callees(const std::string& regex);

/// perf's -g value when -g has none: "graph,0.5,caller,function,percent".
inline constexpr std::string_view kDefaultCallGraph = "graph,0.5,caller,function,percent";

/// The sort keys named by -F fields (for -F without -s, as perf).
[[nodiscard]] PERFX_API std::vector<std::string> sort_keys_of_fields(
    const std::vector<std::string>& fields);

/// Checks -F fields; kInvalidArgument with perf's "Unknown --fields key: `x'".
[[nodiscard]] PERFX_API Result<void> validate_fields(const std::vector<std::string>& fields);

/// Checks sort keys (`overhead` is allowed: perf's --sort overhead is one entry);
/// kInvalidArgument naming the bad key and listing valid ones.
[[nodiscard]] PERFX_API Result<void> validate_sort_keys(const std::vector<std::string>& keys);

/// Writes perf report's text for every event (or event group) that has samples.
[[nodiscard]] PERFX_API Result<void> write_report(std::ostream& out, const Profile& profile,
                                                  const ReportOptions& options);

/// One row of a diff: by default a (shared object, symbol) pair; -s picks the keys.
struct PERFX_API DiffRow {
  std::string comm;                      ///< -s comm: the command name
  std::int32_t pid = -1;                 ///< -s pid: the thread id (shown with its comm)
  std::string dso;                       ///< short name of the shared object
  std::string symbol;                    ///< the function, or the lowest unresolved address
  bool unresolved = false;               ///< the DSO's addresses without a symbol, collapsed
  FrameKind kind = FrameKind::kUnknown;  ///< the symbol's code: "[k]" for kernel
  std::uint64_t old_period = 0;          ///< self period in OLD
  std::uint64_t new_period = 0;          ///< self period in NEW
  std::optional<double> baseline;        ///< old self percent; nullopt when only in NEW
  std::optional<double> delta;           ///< new - old percent; nullopt when only in OLD
  /// -c ratio / wdiff: for rows in both files (new / old period, new*w2 - old*w1).
  std::optional<double> ratio;        ///< new / old period
  std::optional<std::int64_t> wdiff;  ///< new * w2 - old * w1
};

/// One event compared (matched by name between the two profiles).
struct PERFX_API DiffSection {
  std::string event;            ///< the event's name
  std::uint64_t old_total = 0;  ///< total period of the event in OLD
  std::uint64_t new_total = 0;  ///< total period of the event in NEW
  /// The periods the percentages are of: the totals, or with --percentage relative the
  /// periods of the rows the filters keep (0 makes the percentages NaN, as perf's).
  std::uint64_t old_base = 0;
  /// NEW's: with --percentage relative the period of its samples that pass the filters
  /// themselves (perf's total_non_filtered_period of the samples; NEW's entries are never
  /// output-sorted, which would sum the kept entries instead).
  std::uint64_t new_base = 0;
  /// OLD's period the deltas are of: with --percentage relative, as new_base, of OLD's
  /// samples (perf computes the deltas before its output sort makes old_base the sum of
  /// the kept entries, which an entry made by a kept sample and fed by others differs from).
  std::uint64_t old_delta_base = 0;
  std::vector<DiffRow> rows;  ///< sorted as perf diff prints them
};

/// perf diff's -c: what the second column computes, and the row order.
enum class DiffCompute : std::uint8_t { kDeltaAbs, kDelta, kRatio, kWeighted };

/// perf diff's filters and layout switches.
struct PERFX_API DiffOptions {
  DiffCompute compute = DiffCompute::kDeltaAbs;  ///< -c
  std::int64_t weight_old = 1;                   ///< wdiff:w1,w2: w1
  std::int64_t weight_new = 1;                   ///< wdiff:w1,w2: w2
  bool periods = false;                          ///< -p: "Base period" and "Period" columns
  bool baseline_only = false;  ///< -b: only rows in both files, baselines of those
  /// --dsos / --symbols: rows of other shared objects (short or long name) or symbols are
  /// not shown; percentages stay of every sample (perf's filtered hist entries).
  std::vector<std::string> dsos;     ///< --dsos
  std::vector<std::string> symbols;  ///< --symbols
  /// -C/--comms, --pid, --tid: perf's thread filter. Rows are (DSO, symbol), so a row
  /// takes the verdict of the sample that created it, and later samples of other
  /// threads add to it (perf's hist_entry::filtered).
  ThreadFilter thread_filter;
  bool quiet = false;  ///< -q: rows only, no "# Event" and column header lines
  /// -t: columns joined by this string, perf's separated layout (see write_diff_table()).
  std::string field_separator;
  /// -o/--order: the column the rows are sorted by: 0 the baseline, 1 the -c column
  /// (diff_profiles() refuses more with perf's "Order option out of limit.").
  unsigned order = 1;
  /// --percentage relative: percentages of the rows the filters keep, not of all samples.
  bool relative = false;
  /// -F/--formula: a "Formula" column with the -c column's computation, as perf's.
  bool formula = false;
  /// -s/--sort: the keys rows are paired by, in column order ("comm", "pid", "dso",
  /// "sym"; parse_diff_sort()).
  std::vector<std::string> sort_keys = {"dso", "sym"};
};

/// Parses perf diff's -s value into `options.sort_keys` ("symbol" is "sym"). Errors name
/// the key: perf's "Unknown --sort key: `x'", or a key perf has that diff here lacks.
[[nodiscard]] PERFX_API Result<void> parse_diff_sort(const std::string& text, DiffOptions& options);

/// Parses perf diff's -c value: delta, delta-abs, ratio, wdiff:W1,W2 (perf's words in the
/// error).
[[nodiscard]] PERFX_API Result<void> parse_diff_compute(const std::string& text,
                                                        DiffOptions& options);

/// Compares every event of `old_profile`, in its order, with the event of the same name
/// in `new_profile`; an event NEW lacks is shown with its baselines only, as perf does.
/// Percentages are of each event's total period (ProfileEvent::total_period: samples a
/// thread filter left out of the profile still count, as in perf).
/// Error kInvalidArgument when no event is common to both.
[[nodiscard]] PERFX_API Result<std::vector<DiffSection>> diff_profiles(
    const Profile& old_profile, const Profile& new_profile, const DiffOptions& options = {});

/// Prints perf diff's stdio table: "# Event '...'" and the columns
/// "# Baseline  Delta Abs  Shared Object  Symbol" (rows only with `options.quiet`); a
/// --dsos or --symbols filter of one value drops that column, as perf.
[[nodiscard]] PERFX_API Result<void> write_diff_table(const std::vector<DiffSection>& sections,
                                                      std::ostream& out,
                                                      const DiffOptions& options = {});

/// The differential flame graph's page.
struct PERFX_API DiffGraphOptions {
  std::string title;      ///< the page's title
  bool inverted = false;  ///< start as an icicle (callers at the top)
};

/// Differential flame graph (HTML): frame widths are NEW's samples, colours the change of
/// each path's share of all samples (red = grew, blue = shrank, white = unchanged).
[[nodiscard]] PERFX_API Result<void> write_diff_flamegraph(const Profile& old_profile,
                                                           const Profile& new_profile,
                                                           std::ostream& out,
                                                           const DiffGraphOptions& options);

}  // namespace perfx
