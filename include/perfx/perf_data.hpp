#pragma once
/// \file
/// Public perf.data API (thin wrappers over the internal record module): open a
/// recording written by perf or perfx (file or pipe mode, compressed or not),
/// walk its samples, and print its header like `perf report --header-only`.

#include <cstdint>
#include <functional>
#include <span>
#include <string>
#include <vector>

#include "perfx/error.hpp"
#include "perfx/export.hpp"

namespace perfx {

/// One event (attr) of a recording.
struct PerfDataEvent {
  std::string name;                 ///< "cpu-clock", "sched:sched_switch", ...
  std::uint32_t type = 0;           ///< perf_event_attr.type
  std::uint64_t config = 0;         ///< perf_event_attr.config
  std::uint64_t sample_type = 0;    ///< perf_event_attr.sample_type
  std::uint64_t sample_period = 0;  ///< period or frequency (see freq)
  bool freq = false;
  std::vector<std::uint64_t> ids;
};

/// What a recording holds (from the header; pipe-mode recordings are read through).
struct PerfDataInfo {
  bool pipe = false;
  bool swapped = false;  ///< recorded on the other byte order
  std::uint64_t file_size = 0;
  std::uint64_t data_size = 0;
  std::vector<PerfDataEvent> events;
  std::string hostname, os_release, perf_version, arch;
  std::uint64_t records = 0;  ///< filled by for_each_sample / read_perf_data_info(count)
  std::uint64_t samples = 0;
  std::uint64_t lost = 0;       ///< sum of PERF_RECORD_LOST counts
  std::uint64_t malformed = 0;  ///< records that failed to decode
  std::uint64_t skipped_bytes = 0;
};

/// A sample as the public API sees it. Spans are valid during the callback only.
struct PerfDataSample {
  std::size_t event = 0;  ///< index into PerfDataInfo::events
  std::uint64_t ip = 0;
  std::uint32_t pid = 0, tid = 0, cpu = 0;
  std::uint64_t time = 0;
  std::uint64_t period = 0;
  std::uint16_t cpumode = 0;                 ///< PERF_RECORD_MISC_{KERNEL,USER,...}
  std::span<const std::uint64_t> callchain;  ///< copied into a reused buffer
  std::span<const std::byte> raw;            ///< tracepoint RAW data
};

/// Reads the header of `path` ("-" = stdin); with `count_records` also walks the data
/// and fills the counters. Errors: kNotFound/kIo, kMalformedData with the offset.
[[nodiscard]] PERFX_API Result<PerfDataInfo> read_perf_data_info(const std::string& path,
                                                                 bool count_records = false);

/// Calls `fn` for every sample in file order. Returns the info with counters filled.
/// A truncated file gives the samples before the damage and an Error only if nothing
/// could be read; otherwise skipped_bytes says how much was lost.
[[nodiscard]] PERFX_API Result<PerfDataInfo> for_each_sample(
    const std::string& path, const std::function<void(const PerfDataSample&)>& fn);

/// The text `perf report --header-only -i path` prints (for the features present).
[[nodiscard]] PERFX_API Result<std::string> perf_data_header_text(const std::string& path);

}  // namespace perfx
