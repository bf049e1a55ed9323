#pragma once
/// \file
/// perf's one-line text of a side-band record (perf_event__fprintf() and the per-type
/// printers of util/event.c): what `perf script --show-*-events` prints after its line
/// head and what `-D` prints after a record's offset.

#include <string>

#include "perfx/records.hpp"

namespace perfx::report {

/// "PERF_RECORD_<TYPE> ..." and a newline for COMM, FORK, EXIT, MMAP, MMAP2, LOST,
/// NAMESPACES, CGROUP, KSYMBOL, BPF_EVENT, TEXT_POKE, SWITCH and SWITCH_CPU_WIDE; ""
/// for other records.
[[nodiscard]] std::string side_band_text(const record::Record& r);

}  // namespace perfx::report
