#pragma once
/// \file
/// Loads DSOs (symbol tables, debug files, kallsyms) on a background thread as the
/// replay first meets them, so that reading them overlaps decoding the samples instead
/// of following it. symbol::Dso::load() runs once (std::call_once): whoever needs a DSO
/// first, this thread or a later lookup, loads it and the other waits or returns. The
/// same holds for the DWARF (opened under the DSO's own lock).

#include <condition_variable>
#include <deque>
#include <mutex>
#include <thread>
#include <unordered_set>

#include "symbol/dso.hpp"

namespace perfx::profile {

class DsoPreloader {
 public:
  /// `dwarf`: also open each DSO's DWARF (for source lines and inline frames), which
  /// for a distribution's debug file means decompressing megabytes of debug sections.
  explicit DsoPreloader(bool dwarf = false);
  /// Waits for the DSO being loaded (not for the queued ones).
  ~DsoPreloader();
  DsoPreloader(const DsoPreloader&) = delete;
  DsoPreloader& operator=(const DsoPreloader&) = delete;

  /// Queues `dso` unless it was queued before (nullptr is ignored). Called from the
  /// replay thread only; cheap for a DSO already seen.
  void add(const symbol::Dso* dso);

 private:
  void run();

  std::unordered_set<const symbol::Dso*> seen_;  // replay thread only
  std::mutex mutex_;
  std::condition_variable wake_;
  std::deque<const symbol::Dso*> queue_;
  bool stopping_ = false;
  const bool dwarf_;
  std::thread worker_;  // last: started once the members above exist
};

}  // namespace perfx::profile
