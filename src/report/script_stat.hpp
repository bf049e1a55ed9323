#pragma once
/// \file
/// perf script's text for a stat recording (builtin-script.c's process_stat_round_event()
/// and __process_stat()): at each STAT_ROUND, the column header once, then one line per
/// event, thread and CPU with the counts so far.

#include <memory>
#include <string>

#include "perfx/error.hpp"
#include "perfx/records.hpp"

namespace perfx::profile {
class SampleReplay;
struct StatFolder;
}  // namespace perfx::profile

namespace perfx::report {

class ScriptStatTable {
 public:
  explicit ScriptStatTable(profile::SampleReplay& replay);
  ~ScriptStatTable();
  ScriptStatTable(const ScriptStatTable&) = delete;
  ScriptStatTable& operator=(const ScriptStatTable&) = delete;

  /// Folds `r` (at file offset `offset`) into the counts; a STAT_ROUND appends the table
  /// to `out`. Errors: profile::StatFolder::on()'s (perf script stops there too).
  [[nodiscard]] Result<void> on(const record::Record& r, std::uint64_t offset, std::string& out);

 private:
  std::unique_ptr<profile::StatFolder> folder_;
  bool header_printed_ = false;
};

}  // namespace perfx::report
