#pragma once
/// \file
/// The public PerfDataInfo of an open reader (perfx/perf_data.hpp): header, features and
/// events, no counters. Shared by the perf.data API and perfx::Recording.

#include "perfx/perf_data.hpp"
#include "record/perf_data_reader.hpp"

namespace perfx::record {

/// Header fields, hostname/OS/perf version/arch and the events (pipe mode: those seen so
/// far) of `r`; the record counters are left zero.
[[nodiscard]] PerfDataInfo header_info(const PerfDataReader& r);

}  // namespace perfx::record
