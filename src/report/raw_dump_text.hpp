#pragma once
/// \file
/// perf's -D over a replayed recording: perf report's (and annotate's) dump of every
/// record followed by the record counts, and the per-record dump perf script
/// interleaves with its lines (report/raw_dump.hpp formats each record).

#include <ostream>
#include <string>
#include <string_view>

#include "perfx/error.hpp"
#include "report/raw_dump.hpp"

namespace perfx::profile {
class SampleReplay;
struct ReplayedRecord;
}  // namespace perfx::profile

namespace perfx::report {

/// Dumps the records of a SampleReplay::run(..., true) one at a time.
class ReplayDumper {
 public:
  ReplayDumper(profile::SampleReplay& replay, DumpTool tool);
  /// Appends `item`'s dump to `out`.
  void append(std::string& out, const profile::ReplayedRecord& item);

 private:
  void refresh_context();
  profile::SampleReplay& replay_;
  DumpContext ctx_;
  std::size_t events_seen_ = 0;  // the events ctx_ was made from (a pipe adds more)
};

/// perf's session warning under -D for a file whose first event lacks sample_id_all (its
/// ordered processing needs timestamps): "WARNING: No sample_id_all support, falling back
/// to unordered processing\n"; empty otherwise, and for a pipe (no events at the start).
[[nodiscard]] std::string_view unordered_warning(const profile::SampleReplay& replay);

/// perf report -D (`tool` kReport), annotate -D (kAnnotate) and one file of diff -D
/// (kDiff): unordered_warning() when `warn_unordered`, `report_header` perf report's first
/// two lines, then every record's dump in
/// perf's order, then the record counts (report --stats' text; annotate's with the empty
/// types too; none for diff).
/// Errors: the reader's; kIo when `out` fails.
[[nodiscard]] Result<void> write_raw_dump(std::ostream& out, profile::SampleReplay& replay,
                                          DumpTool tool, bool report_header,
                                          bool warn_unordered = true);

}  // namespace perfx::report
