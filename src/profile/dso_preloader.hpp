#pragma once
/// \file
/// Loads DSOs (symbol tables, debug files, kallsyms) on a background thread as the
/// replay first meets them, so that reading them overlaps decoding the samples instead
/// of following it. symbol::Dso::load() runs once (std::call_once): whoever needs a DSO
/// first, this thread or a later lookup, loads it and the other waits or returns. The
/// same holds for the DWARF (opened under the DSO's own lock). When the DWARF is wanted,
/// the source lines of the addresses the replay meets are looked up here too (the DSO
/// remembers them): the replay's thread mostly waits for the reader thread, so that work
/// fits in its pauses instead of following the replay.

#include <condition_variable>
#include <cstdint>
#include <deque>
#include <mutex>
#include <thread>
#include <unordered_set>

#include "symbol/dso.hpp"

namespace perfx::profile {

class DsoPreloader {
 public:
  /// `dwarf`: also open each DSO's DWARF (for source lines and inline frames), which
  /// for a distribution's debug file means decompressing megabytes of debug sections;
  /// for lines only (no `inlines`), a DSO whose source-line cache exists is not opened
  /// (symbol::Dso::prepare_dwarf()).
  explicit DsoPreloader(bool dwarf = false, bool inlines = false);
  /// Waits for the DSO being loaded (not for the queued ones).
  ~DsoPreloader();
  DsoPreloader(const DsoPreloader&) = delete;
  DsoPreloader& operator=(const DsoPreloader&) = delete;

  /// Queues `dso` unless it was queued before (nullptr is ignored). Called from the
  /// replay thread only; cheap for a DSO already seen.
  void add(const symbol::Dso* dso);
  /// Queues a source-line lookup of `map_addr` (map-relative) in `dso` (add() the DSO
  /// first); nothing unless constructed with `dwarf`. The caller adds each address once.
  void add_address(const symbol::Dso* dso, std::uint64_t map_addr);

 private:
  struct Job {
    const symbol::Dso* dso;
    std::uint64_t map_addr;
    bool address;  // a source-line lookup, else load the DSO (and open its DWARF)
  };
  void run();
  void push(const Job& job);

  std::unordered_set<const symbol::Dso*> seen_;  // replay thread only
  std::mutex mutex_;
  std::condition_variable wake_;
  std::deque<Job> queue_;
  bool stopping_ = false;
  const bool dwarf_;
  const bool inlines_;
  std::thread worker_;  // last: started once the members above exist
};

}  // namespace perfx::profile
