#pragma once
/// \file
/// Signals for samplers: overflow notification by signal (F_SETOWN_EX/F_SETSIG/O_ASYNC,
/// man page "Signal overflow"), and a self-pipe that turns SIGINT/SIGTERM/SIGCHLD/...
/// into a readable fd for an epoll loop without racing the wait.

#include <sys/types.h>

#include <initializer_list>
#include <vector>

#include "perfx/error.hpp"
#include "sys/unique_fd.hpp"

namespace perfx::sys {

/// Makes overflows of `fd` deliver `signo` to thread `tid` with si_fd = fd and
/// si_code = POLL_IN (or POLL_HUP when a REFRESH count runs out).
Result<void> route_overflow_signal(int fd, int signo, pid_t tid);

/// From now on SIGINT and SIGTERM only set a latch while no SignalPipe handles them (see
/// perfx::latch_stop_signals()); the next SignalPipe of that signal starts with it.
void latch_stop_signals();

/// The signal latched and not yet taken by a SignalPipe (0: none); clears it.
int take_latched_signal() noexcept;

/// Installs handlers (without SA_RESTART) for the given signals that write the signal
/// number into a non-blocking pipe (a signal latched before, first). Only one SignalPipe may exist
/// at a time; the previous handlers are restored on destruction. Handlers reset to default in
/// exec'd children.
class SignalPipe {
 public:
  static Result<SignalPipe> install(std::initializer_list<int> signals);
  SignalPipe(SignalPipe&& o) noexcept;
  SignalPipe& operator=(SignalPipe&&) = delete;
  SignalPipe(const SignalPipe&) = delete;
  ~SignalPipe();

  /// The read end, for epoll/poll.
  [[nodiscard]] int fd() const noexcept { return read_.get(); }
  /// Reads every pending signal number (non-blocking; empty when none).
  std::vector<int> take();

 private:
  SignalPipe() = default;
  UniqueFd read_;
  UniqueFd write_;
  std::vector<int> signals_;
  bool active_ = false;
};

}  // namespace perfx::sys
