#pragma once
/// \file
/// A perf `-vv` style dump of a perf_event_attr (perfx::describe_attr). Pure.

#include <string>

#include "perfx/raw.hpp"

namespace perfx::event {

/// "perf_event_attr:" then one "  NAME<pad to 32> VALUE" line per non-zero field (type
/// and size always), sample_type/read_format as NAME|NAME, type and known configs named
/// ("1 (PERF_TYPE_SOFTWARE)", "0x1 (task-clock)").
std::string dump_attr(const raw::EventAttr& attr);

}  // namespace perfx::event
