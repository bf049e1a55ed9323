#pragma once
/// \file
/// perf record's --control (record_session.cpp): commands read from a file descriptor or
/// a FIFO while recording, answered with "ack\n" as perf's evlist__ctl_process() does.

#include <string>
#include <vector>

#include "perfx/error.hpp"
#include "perfx/record.hpp"
#include "perfx/sampler.hpp"
#include "sys/unique_fd.hpp"

namespace perfx::sys {

/// The control channel of a plan (plan.control); inactive when it is off.
class RecordControl {
 public:
  /// Opens the FIFOs (fifo:) or takes the caller's descriptors (fd:).
  [[nodiscard]] static Result<RecordControl> open(const ControlPlan& plan);

  /// The fd to wait on (-1: none).
  [[nodiscard]] int fd() const { return ctl_; }

  /// Reads and runs the pending commands: enable / disable (all events, or one by name
  /// after a space), ping, stop, evlist; perf's messages go to the observer. Unknown
  /// commands are ignored without an ack, as perf. Returns true when "stop" was read.
  /// At end of file the fd leaves the sampler's wait set (no more commands).
  Result<bool> process(const RecordPlan& plan, Sampler& sampler, RecordObserver& obs);

 private:
  void ack() const;
  Result<void> enable_event(const RecordPlan& plan, Sampler& sampler, const std::string& name,
                            bool enable, RecordObserver& obs);

  UniqueFd owned_ctl_, owned_ack_;
  int ctl_ = -1;
  int ack_ = -1;
  std::string pending_;
};

}  // namespace perfx::sys
