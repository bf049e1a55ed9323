#pragma once
/// \file
/// Processes and threads from /proc: the threads of a pid (perf stat -p counts each
/// thread) and thread names (--per-thread prints "comm-tid").

#include <sys/types.h>

#include <string>
#include <string_view>
#include <vector>

#include "perfx/error.hpp"

namespace perfx::sys {

/// The thread ids of process `pid` (/proc/<pid>/task), sorted. kNotFound: "no process
/// with pid N".
Result<std::vector<pid_t>> process_threads(pid_t pid, const std::string& proc = "/proc");

/// Every process id in /proc, sorted (perf's thread map of a system-wide --per-thread).
Result<std::vector<pid_t>> all_processes(const std::string& proc = "/proc");

/// The command name of thread `tid` (/proc/<tid>/comm without the newline), or "?".
std::string thread_comm(pid_t tid, const std::string& proc = "/proc");

/// Parses a perf-style pid/tid list "123,456" (kInvalidArgument naming the bad item).
Result<std::vector<pid_t>> parse_pid_list(std::string_view text);

}  // namespace perfx::sys
