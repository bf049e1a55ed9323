#pragma once
/// \file
/// `perfx diff`: compares two profiles the way `perf diff` does (self overhead per
/// shared object + symbol, "Baseline" = old percent, "Delta Abs" = new - old percent,
/// rows sorted by the absolute delta), and draws a differential flame graph.

#include <cstdint>
#include <optional>
#include <ostream>
#include <string>
#include <vector>

#include "perfx/error.hpp"
#include "profile/profile.hpp"
#include "profile/thread_filter.hpp"
#include "report/export.hpp"

namespace perfx::report {

/// One (shared object, symbol) row of a diff.
struct DiffRow {
  std::string dso;
  std::string symbol;
  bool unresolved = false;  ///< the DSO's addresses without a symbol, collapsed
  profile::FrameKind kind = profile::FrameKind::kUnknown;
  std::uint64_t old_period = 0;
  std::uint64_t new_period = 0;
  std::optional<double> baseline;  ///< old self percent; nullopt when only in NEW
  std::optional<double> delta;     ///< new - old percent; nullopt when only in OLD
  /// -c ratio / wdiff: for rows in both files (new / old period, new*w2 - old*w1).
  std::optional<double> ratio;
  std::optional<std::int64_t> wdiff;
};

/// One event compared (matched by name between the two profiles).
struct DiffSection {
  std::string event;
  std::uint64_t old_total = 0;  ///< total period of the event in OLD
  std::uint64_t new_total = 0;
  std::vector<DiffRow> rows;  ///< sorted as perf diff prints them
};

/// perf diff's -c: what the second column computes, and the row order.
enum class DiffCompute : std::uint8_t { kDeltaAbs, kDelta, kRatio, kWeighted };

/// perf diff's filters and layout switches.
struct DiffOptions {
  DiffCompute compute = DiffCompute::kDeltaAbs;
  std::int64_t weight_old = 1;  ///< wdiff:w1,w2
  std::int64_t weight_new = 1;
  bool periods = false;        ///< -p: "Base period" and "Period" columns
  bool baseline_only = false;  ///< -b: only rows in both files, baselines of those
  /// --dsos / --symbols: rows of other shared objects (short or long name) or symbols are
  /// not shown; percentages stay of every sample (perf's filtered hist entries).
  std::vector<std::string> dsos;
  std::vector<std::string> symbols;
  /// -C/--comms, --pid, --tid: perf's thread filter. Rows are (DSO, symbol), so a row
  /// takes the verdict of the sample that created it, and later samples of other
  /// threads add to it (perf's hist_entry::filtered).
  profile::ThreadFilter thread_filter;
  bool quiet = false;  ///< -q: rows only, no "# Event" and column header lines
  /// -t: columns joined by this string, perf's separated layout (see write_diff_table()).
  std::string field_separator;
};

/// Parses perf diff's -c value: delta, delta-abs, ratio, wdiff:W1,W2 (perf's words in the
/// error).
[[nodiscard]] Result<void> parse_diff_compute(const std::string& text, DiffOptions& options);

/// Compares every event of `old_profile`, in its order, with the event of the same name
/// in `new_profile`; an event NEW lacks is shown with its baselines only, as perf does.
/// Percentages are of each event's total period (Profile::Event::total_period: samples a
/// thread filter left out of the profile still count, as in perf).
/// Error kInvalidArgument when no event is common to both.
[[nodiscard]] Result<std::vector<DiffSection>> diff_profiles(const profile::Profile& old_profile,
                                                             const profile::Profile& new_profile,
                                                             const DiffOptions& options = {});

/// Prints perf diff's stdio table: "# Event '...'" and the columns
/// "# Baseline  Delta Abs  Shared Object  Symbol" (rows only with `options.quiet`); a
/// --dsos or --symbols filter of one value drops that column, as perf.
[[nodiscard]] Result<void> write_diff_table(const std::vector<DiffSection>& sections,
                                            std::ostream& out, const DiffOptions& options = {});

/// Differential flame graph (HTML, same viewer as `--format html`): frame widths are
/// NEW's samples, colours the change of each path's share of all samples (red = grew,
/// blue = shrank, white = unchanged). Options as for the flame graph.
[[nodiscard]] Result<void> write_diff_flamegraph_html(const profile::Profile& old_profile,
                                                      const profile::Profile& new_profile,
                                                      std::ostream& out,
                                                      const ExportOptions& options);

}  // namespace perfx::report
