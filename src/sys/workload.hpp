#pragma once
/// \file
/// The workload launcher, as perf does it: fork a child that blocks on a pipe until the
/// parent has opened its counters (with enable_on_exec on the child's pid), then execs
/// the command. An exec failure comes back through a CLOEXEC pipe (EOF = exec worked).
/// The child is owned RAII: destroying a Workload that was not waited for kills and
/// reaps the child.

#include <sys/resource.h>
#include <sys/types.h>

#include <chrono>
#include <string>
#include <vector>

#include "perfx/error.hpp"
#include "perfx/workload.hpp"

namespace perfx::sys {

using perfx::ExitStatus;  // how a workload ended (perfx/workload.hpp)

/// Converts a wait status to the shell-style exit code (exit code, or 128 + signal).
int shell_exit_code(int wait_status) noexcept;

/// A forked, not yet exec'd (then running) command.
class Workload {
 public:
  /// Forks a child that waits for start(). `argv[0]` is looked up in PATH by the child
  /// (execvp). Errors: kInvalidArgument for an empty argv, kSystem for fork/pipe failure.
  static Result<Workload> prepare(const std::vector<std::string>& argv);

  Workload(Workload&& other) noexcept;
  Workload& operator=(Workload&& other) noexcept;
  Workload(const Workload&) = delete;
  Workload& operator=(const Workload&) = delete;
  /// Kills (SIGKILL) and reaps the child if it was not waited for.
  ~Workload();

  /// The child's pid (valid after prepare()).
  [[nodiscard]] pid_t pid() const noexcept { return pid_; }

  /// Lets the child exec. Returns after the exec succeeded or failed. On failure the
  /// child has exited with 127 and has been reaped; the error has the exec errno and the
  /// message from explain_exec_errno() ("command not found: foo").
  Result<void> start();

  /// CLOCK_MONOTONIC just before the child was released (for elapsed time).
  [[nodiscard]] std::chrono::nanoseconds started() const noexcept { return started_; }

  /// Waits for the child to exit (retrying on EINTR) and returns its status.
  Result<ExitStatus> wait();

  /// Non-blocking wait: true (and `status` filled) when the child has exited, false when
  /// it is still running.
  Result<bool> try_wait(ExitStatus& status);

  /// Sends a signal to the child (e.g. forwarding SIGINT).
  Result<void> kill(int sig) const;

 private:
  Workload(pid_t pid, int go_fd, int err_fd, std::string command) noexcept
      : pid_(pid), go_fd_(go_fd), err_fd_(err_fd), command_(std::move(command)) {}
  void release() noexcept;

  pid_t pid_ = -1;
  int go_fd_ = -1;   // write end: the child execs when it reads a byte
  int err_fd_ = -1;  // read end of the CLOEXEC errno pipe
  bool reaped_ = true;
  std::string command_;
  std::chrono::nanoseconds started_{};
};

/// CLOCK_MONOTONIC now.
std::chrono::nanoseconds monotonic_now() noexcept;

}  // namespace perfx::sys
