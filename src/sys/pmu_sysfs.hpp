#pragma once
/// \file
/// Reads dynamic PMUs from sysfs: /sys/bus/event_source/devices/<pmu>/{type,format/,events/}.

#include <string>
#include <string_view>
#include <vector>

#include "event/resolver.hpp"
#include "perfx/error.hpp"
#include "sys/text_files.hpp"

namespace perfx::sys {

/// Names of the sub-directories of `pmu_dir` (one per PMU), sorted. Empty when the
/// directory cannot be read.
std::vector<std::string> list_pmus(const std::string& pmu_dir);

/// Reads `<pmu_dir>/<name>/`: type, every format/ field, every events/ alias (with its
/// .unit/.scale companions). kNotFound when there is no such PMU; kMalformedData when
/// `type` or a format file does not parse (the message names the file).
Result<event::PmuInfo> read_pmu(const std::string& pmu_dir, std::string_view name);

}  // namespace perfx::sys
