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
#include "perfx/report.hpp"
#include "profile/hists.hpp"
#include "profile/profile.hpp"
#include "profile/thread_filter.hpp"
#include "report/report_callgraph.hpp"

namespace perfx::report {

using ReportOptions = perfx::ReportOptions;
using perfx::sort_keys_of_fields;
using perfx::validate_fields;
using perfx::validate_sort_keys;
using perfx::write_report;

/// The hist entries of event `event` (and a group's other `members - 1` events) as the
/// report keys, filters and counts them.
[[nodiscard]] profile::Hists report_hists(const profile::Profile& profile,
                                          const ReportOptions& options, std::uint32_t event,
                                          std::uint32_t members = 1);

/// Whether perfx shows perf's output field `f` (a sort_field_named() name) when --sort
/// names it: overhead, overhead_children, sample, period, overhead_sys, overhead_us.
[[nodiscard]] bool is_sort_field(std::string_view f);

/// perf's srcline text for a frame (profile::frame_srcline()).
using profile::frame_srcline;

}  // namespace perfx::report
