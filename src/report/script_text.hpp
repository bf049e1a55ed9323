#pragma once
/// \file
/// `perfx script`: perf script's default text, one line per sample (plus a callchain
/// block and a blank line for samples with callchains), in time order. Tracepoint
/// samples print their fields through libtraceevent with the live tracefs format
/// files (when built with PERFX_HAVE_TRACEEVENT). Side-band records (COMM, FORK,
/// EXIT, MMAP, MMAP2, LOST, SWITCH) only with the show_*_events options. perf script's
/// filters (--comms, --pid, --tid, --cpu, --time, --dsos, --symbols) pick the samples.

#include <cstdint>
#include <optional>
#include <ostream>
#include <string>
#include <vector>

#include "perfx/error.hpp"
#include "perfx/perf_text.hpp"

namespace perfx::profile {
class SampleReplay;
}

namespace perfx::report {

/// What write_script() prints and which samples: public (perfx/perf_text.hpp).
using ScriptOptions = perfx::ScriptOptions;

/// Checks -F field names; kInvalidArgument naming the bad one.
[[nodiscard]] Result<void> validate_script_fields(const std::vector<std::string>& fields);

/// Replays the recording behind `replay` (profile/sample_replay.hpp) and writes perf
/// script's text to `out`.
/// Errors: the reader's (kNotFound, kMalformedData with the offset, ...), kInvalidArgument
/// when a requested field is not in the recording (as perf: "Samples for 'cpu-clock'
/// event do not have CPU attribute set"). `warnings` (when not null) receives what was
/// left out without stopping the output, with counts (profile::describe_skipped()).
[[nodiscard]] Result<void> write_script(std::ostream& out, profile::SampleReplay& replay,
                                        const ScriptOptions& options,
                                        std::vector<std::string>* warnings = nullptr);

}  // namespace perfx::report
