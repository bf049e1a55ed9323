#pragma once
/// \file
/// perf's tracing data (HEADER_TRACING_DATA feature / PERF_RECORD_HEADER_TRACING_DATA):
/// the tracefs format files of the recorded tracepoints, which `perf script` and
/// `perf report` need to decode PERF_SAMPLE_RAW. Layout of perf's trace-event-info.c,
/// version 0.6: magic, version, endianness, sizeof(long), page size, header_page,
/// header_event, ftrace formats, event systems with their formats, kallsyms (written
/// empty), printk formats, saved cmdlines (written empty).

#include <cstddef>
#include <string>
#include <utility>
#include <vector>

#include "perfx/error.hpp"

namespace perfx::sys {

/// Builds the tracing data for tracepoints given as (subsystem, name) pairs, reading
/// `tracefs_root`/events. Errors: kNotFound naming a missing format file.
Result<std::vector<std::byte>> build_tracing_data(
    const std::string& tracefs_root,
    const std::vector<std::pair<std::string, std::string>>& tracepoints);

}  // namespace perfx::sys
