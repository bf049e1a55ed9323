#pragma once
/// \file
/// How a workload (the command a session runs, as perf forks and execs it) ended, and
/// the words and exit code for a command that could not be executed at all.
///
///   if (run.exec_errno != 0) {
///     std::fprintf(stderr, "%s\n", perfx::explain_exec_errno(run.exec_errno, argv0).c_str());
///     return perfx::exec_failure_exit_code(run.exec_errno);   // 127 or 126, as a shell
///   }

#include <sys/resource.h>

#include <chrono>
#include <string>
#include <string_view>

#include "perfx/export.hpp"

namespace perfx {

/// How a workload ended.
struct PERFX_API ExitStatus {
  int wait_status = 0;    ///< raw status from wait4()
  bool signaled = false;  ///< killed by a signal
  int signal = 0;         ///< the signal when `signaled`
  int code = 0;           ///< exit code; 128 + signal when signaled (as a shell reports it)
  rusage usage{};         ///< the child's resource usage (user/sys time) from wait4()
  std::chrono::nanoseconds ended{};  ///< CLOCK_MONOTONIC when wait4 returned
};

/// The message for a failed exec of a workload: "command not found: foo" (ENOENT),
/// "permission denied: foo" (EACCES), ...
[[nodiscard]] PERFX_API std::string explain_exec_errno(int err, std::string_view command);

/// The shell's exit code for an exec failure: 127 for ENOENT, 126 otherwise.
[[nodiscard]] PERFX_API int exec_failure_exit_code(int err) noexcept;

}  // namespace perfx
