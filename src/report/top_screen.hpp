#pragma once
/// \file
/// `perfx top --stdio`: one screen of perf top's text (perf_top__print_sym_table()):
///
///      PerfTop:    3987 irqs/sec  kernel:46.7%  exact:  0.0% lost: 0/0 drop: 0/0 [4000Hz
///      cpu-clock],  (all, 2 CPUs)
///   -------------------------------------------------------------------------------
///
///       50.13%  sym_pinned        [.] sym_alpha
///
/// With -g (top_chain_screen_text()) the rows and call graphs come from the report's
/// text of a Profile of the live samples.
///
/// The rows are perf report's --no-children rows without the column header: overhead of
/// the entries' total period, then the sort keys, columns sized by the rows shown
/// (hists__output_recalc_col_len(): Shared Object at least 16 wide when one has no
/// symbol), every line cut to the window's width.

#include <cstdint>
#include <string>
#include <vector>

#include "profile/live_counts.hpp"
#include "profile/profile.hpp"

namespace perfx::report {

struct TopScreen {
  double samples_per_sec = 0;
  std::uint64_t samples = 0;  ///< of the interval (for the kernel and exact shares)
  std::uint64_t kernel_samples = 0;
  std::uint64_t exact_samples = 0;
  std::uint64_t lost = 0;
  std::uint64_t lost_total = 0;
  std::string event;          ///< "4000Hz cpu-clock" (one event), else the first event's name
  std::string target;         ///< "(all, 2 CPUs)", "(target_pid: 42, 2 CPUs)", "(target_tid: 7)"
  std::size_t width = 80;     ///< the terminal's columns
  std::size_t max_rows = 20;  ///< rows shown (perf's print_entries)
  double percent_limit = 0;   ///< rows below this share are not shown
};

/// The screen's text, header to last row (no clear-screen sequence).
[[nodiscard]] std::string top_screen_text(const TopScreen& screen,
                                          const std::vector<profile::LiveRow>& rows,
                                          const std::vector<profile::LiveKey>& keys);

/// `perfx top -g`: the header, then perf report's rows of `profile` (LiveCounts::
/// refresh_profile()) without the column header: Children and Self (`children`) or
/// Overhead, the sort keys, each entry's call graph under it (caller first with Children,
/// as perf top -g); at most `max_rows` entries, entry lines cut to the window.
[[nodiscard]] std::string top_chain_screen_text(const TopScreen& screen,
                                                const profile::Profile& profile,
                                                const std::vector<profile::LiveKey>& keys,
                                                bool children);

}  // namespace perfx::report
