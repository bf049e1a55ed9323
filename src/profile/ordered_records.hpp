#pragma once
/// \file
/// The records of a perf.data in perf's time order, read ahead on a second core.
///
/// Ordering follows perf's ordered-events rule: records are buffered per round
/// (PERF_RECORD_FINISHED_ROUND) and, at each round's end, those not later than the
/// previous round's newest timestamp are sorted (stable) and delivered; records without
/// a time (user records, attrs) are delivered at once. Memory is bounded by a couple of
/// rounds, not by the file.
///
/// For a mapped file, reading, decompressing, timestamping and sorting run on a reader
/// thread that hands the ordered records over in batches, while the calling thread
/// decodes and consumes them; it also gives the file's pages back behind the oldest
/// record still needed (PerfDataReader::release_before). Pipes are read on the calling
/// thread: their attrs arrive with the data and change what later records decode to.

#include <functional>

#include "perfx/error.hpp"
#include "record/perf_data_reader.hpp"

namespace perfx::profile {

/// Calls `deliver` for every record of `reader` in time order, on the calling thread.
/// The record's bytes are valid during the call only. Stops when `deliver` returns false.
/// `as_perf_sees` (perf's -D): the FINISHED_ROUND records are delivered too, each before
/// the records its round releases, and records without a time (0 or ~0) at once, so
/// that user records interleave with the others as perf's dump shows them.
/// Errors: the reader's fatal error (truncation/corruption with the offset).
[[nodiscard]] Result<void> for_each_ordered(
    record::PerfDataReader& reader, const std::function<bool(const record::RawRecord&)>& deliver,
    bool as_perf_sees = false);

}  // namespace perfx::profile
