#pragma once
/// \file
/// tracefs access for tracepoints: where it is mounted, tracepoint ids, the full list.

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "event/resolver.hpp"
#include "perfx/error.hpp"

namespace perfx::sys {

/// The directory holding tracefs' `events/`, found in the mount table `mounts_file`
/// (/proc/mounts format): a tracefs mount, else `<debugfs>/tracing`. kNotFound when
/// neither is mounted, with the command to mount tracefs in the message.
Result<std::string> find_tracefs(const std::string& mounts_file = "/proc/mounts");

/// The id of tracepoint `subsys:name` (events/<subsys>/<name>/id under `root`).
/// kNotFound for an unknown subsystem or tracepoint (the message names it),
/// kInvalidArgument for names that are not plain directory names.
Result<std::uint64_t> read_tracepoint_id(const std::string& root, std::string_view subsys,
                                         std::string_view name);

/// Every tracepoint under `root`/events (directories holding an `id` file are not
/// checked here), sorted by subsystem then name.
Result<std::vector<event::TracepointName>> list_tracepoints(const std::string& root);

}  // namespace perfx::sys
