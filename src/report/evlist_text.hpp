#pragma once
/// \file
/// `perfx evlist`: perf evlist's lines for the events of a recording (perf's
/// evsel__fprintf()): the names; -v every attr field ("name: type: 1, size: 128, ...");
/// -F the sampling frequency or period; -g the groups as "{leader,member,...}";
/// --trace-fields the tracepoints' field names.

#include <string>

#include "record/features.hpp"
#include "record/sample_layout.hpp"

namespace perfx::report {

struct EvlistOptions {
  bool verbose = false;  ///< -v
  bool freq = false;     ///< -F
  bool group = false;    ///< -g
  /// --trace-fields: each tracepoint's field names, from the format files under
  /// `tracefs` (as perf reads the live formats); "(not a tracepoint)" for other events.
  bool trace_fields = false;
  std::string tracefs = "/sys/kernel/tracing";
};

[[nodiscard]] std::string evlist_text(const record::AttrTable& attrs,
                                      const record::Features& features,
                                      const EvlistOptions& options);

}  // namespace perfx::report
