#pragma once
/// \file
/// perf report's columns for hist entries: which columns (-F, or Children/Self/Overhead,
/// -n Samples, --show-total-period Period, the sort keys), their widths (perf's
/// hists__calc_col_len()), the header lines and each entry's line.

#include <cstdint>
#include <string>
#include <unordered_map>
#include <vector>

#include "profile/hists.hpp"
#include "report/report_table.hpp"

namespace perfx::report {

/// The columns of one event's (or group's) table.
class ReportColumns {
 public:
  /// perf's output fields: -F as given (then the sort keys it lacks), else Children + Self
  /// (or Overhead), -n's Samples and the sort keys. Keys of one-value filters are elided.
  /// `total(m)` is member m's total period, the percentages' base.
  ReportColumns(const profile::Hists& hists, const ReportOptions& options,
                std::vector<std::uint64_t> totals);

  /// Whether the Children column is shown (perf then sorts by it).
  [[nodiscard]] bool shows_children() const;
  /// Column widths over `rows` (as perf's hists__calc_col_len).
  void size(const std::vector<const profile::HistEntry*>& rows);
  /// The column header line, and (unless a field separator) the dot rule and "#".
  [[nodiscard]] std::string header() const;
  /// An entry's line (without its newline).
  [[nodiscard]] std::string line(const profile::HistEntry& e) const;
  /// The leader's share of an entry, the value --percent-limit compares.
  [[nodiscard]] double shown_percent(const profile::HistEntry& e) const;

  /// --hierarchy (perf's hist_entry__hierarchy_fprintf()): the value columns of an entry,
  /// each after two spaces.
  [[nodiscard]] std::string values_text(const profile::HistEntry& e) const;
  /// Whether key `key` has a column (not elided by a one-value filter).
  [[nodiscard]] bool shows_key(std::size_t key) const { return key_col(key) != nullptr; }
  /// --hierarchy: key `key`'s cell as a last column, left-trimmed.
  [[nodiscard]] std::string key_text(const profile::HistEntry& e, std::size_t key) const;
  /// --hierarchy's header lines (perf's hists__fprintf_hierarchy_headers()), after "# ".
  [[nodiscard]] std::string hierarchy_header() const;
  /// perf's hists__overhead_width(): the value columns with two spaces between them.
  [[nodiscard]] std::size_t values_width() const;

 private:
  enum class Kind : std::uint8_t { kChildren, kSelf, kSamples, kPeriod, kSys, kUser, kKey };
  struct Col {
    Kind kind = Kind::kKey;
    std::size_t key = 0;  // index into the keys for kKey
    std::string header;
    std::size_t width = 8;
  };
  void add_key(profile::SortKey k);
  /// An output field's column (-F, or --sort's after the default ones); false for a key.
  bool add_field(std::string_view field);
  [[nodiscard]] std::string cell_text(const profile::HistEntry& e, std::size_t key) const;
  [[nodiscard]] std::string key_cell(std::string v, const Col& col, bool last) const;
  [[nodiscard]] std::string separated_cell(const profile::HistEntry& e, const Col& col,
                                           bool last) const;
  [[nodiscard]] std::string percent(std::uint32_t m, std::uint64_t v) const;
  [[nodiscard]] std::string value_cell(const profile::HistEntry& e, const Col& col) const;
  [[nodiscard]] const Col* key_col(std::size_t key) const;
  [[nodiscard]] const std::string& last_comm(std::int32_t tid) const;

  const profile::Hists& h_;
  const ReportOptions& o_;
  std::vector<std::uint64_t> totals_;  // per member
  std::vector<Col> cols_;
  mutable std::unordered_map<std::int32_t, const std::string*> last_comm_;
};

/// perf's column header of a sort key ("Shared Object").
[[nodiscard]] std::string_view sort_key_header(profile::SortKey key);

/// perf's sort__setup_elide(): the --comms, --dsos or --symbols list of one value that
/// makes key `k`'s column redundant (perf prints "# dso: X" instead); nullptr otherwise.
[[nodiscard]] const std::vector<std::string>* elided_filter(profile::SortKey k,
                                                            const ReportOptions& o);

}  // namespace perfx::report
