#pragma once
/// \file
/// `perfx evlist`: perf evlist's lines for the events of a recording (perf's
/// evsel__fprintf()): the names; -v every attr field ("name: type: 1, size: 128, ...");
/// -F the sampling frequency or period; -g the groups as "{leader,member,...}";
/// --trace-fields the tracepoints' field names.

#include <cstdint>
#include <string>
#include <vector>

#include "perfx/perf_text.hpp"
#include "perfx/raw.hpp"

namespace perfx::report {

/// What evlist_text() shows of each event and how: public (perfx/perf_text.hpp).
using EvlistOptions = perfx::EvlistOptions;

/// One event of the recording, as evlist shows it.
struct EvlistEvent {
  std::string name;
  raw::EventAttr attr{};
  /// perf's attr dump (", name: value" per field set), for -v.
  std::string attr_fields;
};

/// One event group (HEADER_GROUP_DESC).
struct EvlistGroup {
  std::string name;  ///< "{anon_group}" for a group without a name (as perf writes it)
  std::uint32_t leader = 0;
  std::uint32_t members = 0;
};

[[nodiscard]] std::string evlist_text(const std::vector<EvlistEvent>& events,
                                      const std::vector<EvlistGroup>& groups,
                                      const EvlistOptions& options);

}  // namespace perfx::report
