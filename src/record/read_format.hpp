#pragma once
/// \file
/// Decoding what read(2) on an event fd returns: a whole `struct read_format`, with the
/// same parser the record decoder uses for PERF_SAMPLE_READ and PERF_RECORD_READ.

#include <cstdint>
#include <span>

#include "perfx/error.hpp"
#include "record/records.hpp"

namespace perfx::record {

/// Decodes a whole `struct read_format` (native byte order) laid out for `read_format`.
/// kMalformedData when `bytes` is too short for the layout or a group's nr. The result's
/// `entries` view into `bytes`.
[[nodiscard]] Result<ReadValues> decode_read_format(std::span<const std::byte> bytes,
                                                    std::uint64_t read_format);

}  // namespace perfx::record
