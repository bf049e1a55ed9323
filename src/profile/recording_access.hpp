#pragma once
/// \file
/// What the library's own readers of a perfx::Recording (perf_text.cpp: script, stats,
/// tasks, evlist, buildid-list, annotate) need of it beyond the public API: its reader.

#include "perfx/recording.hpp"
#include "record/perf_data_reader.hpp"

namespace perfx::detail {

struct RecordingAccess {
  /// The reader as opened (header, attrs, features read; the data section untouched
  /// unless a pass used it). Does not use up a pass.
  [[nodiscard]] static record::PerfDataReader& reader(Recording& recording);
  /// A reader at the start of the data section for one pass: the one opened, the first
  /// time; a file opened anew after that. A pipe has one pass: kInvalidArgument after it.
  [[nodiscard]] static Result<record::PerfDataReader*> pass(Recording& recording);
};

}  // namespace perfx::detail
