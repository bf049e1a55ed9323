#pragma once
/// \file
/// The `perfx stat` run loop: open counters on the target, launch the workload (perf's
/// fork/handshake/enable_on_exec pattern), wait for it or for SIGINT, read, repeat for
/// -r, and call back every -I interval. Declared public in perfx/stat.hpp (defined in
/// stat_session.cpp); these names keep the sys:: spelling for the library's own code.

#include "perfx/stat.hpp"
#include "sys/workload.hpp"

namespace perfx::sys {

using perfx::assign_cgroups;
using perfx::resolve_stat_threads;
using perfx::run_stat_session;
using perfx::StatRun;
using perfx::StatSessionConfig;
using perfx::StatTargetOptions;
using perfx::StatThreads;

}  // namespace perfx::sys
