#pragma once
/// \file
/// perf record's --affinity (record_session.cpp): the recording thread moves to the CPU
/// of the ring buffer it reads ("cpu") or to that CPU's NUMA node ("node"), so the
/// buffer's pages are read where they were written.

#include <sched.h>

#include <string>
#include <vector>

namespace perfx::sys {

class ReaderAffinity {
 public:
  /// `mode`: "cpu", "node", or anything else (perf's "sys": the thread stays put).
  explicit ReaderAffinity(const std::string& mode);

  [[nodiscard]] bool active() const { return mode_ != Mode::kSys; }

  /// Before reading the buffer of `cpu` (-1: per-task buffer, left alone): pins the
  /// thread to the mode's CPU set when it differs from the last one.
  void before_buffer(int cpu);

 private:
  enum class Mode { kSys, kCpu, kNode } mode_ = Mode::kSys;
  std::vector<std::vector<int>> nodes_;  // node -> its CPUs (from sysfs)
  int last_set_ = -2;                    // the CPU or node pinned last
};

}  // namespace perfx::sys
