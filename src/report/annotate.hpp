#pragma once
/// \file
/// `perfx annotate`: perf annotate's --stdio listing. For each symbol with samples (by
/// period, highest first; or the ones asked for), its machine code disassembled
/// (symbol::Disassembler) with each instruction's share of the symbol's samples, the
/// source lines it came from interleaved (DWARF, the source file when it can be read).
/// Percentages are perf's: a line owns the samples at its address up to the next
/// instruction's (calc_percent()), of the symbol's total (local) or the event's (global),
/// by period or by sample count (--percent-type).

#include <cstdint>
#include <ostream>
#include <string>
#include <string_view>
#include <vector>

#include "perfx/error.hpp"
#include "perfx/perf_text.hpp"
#include "profile/profile.hpp"

namespace perfx::report {

// The options and the summary are public (perfx/perf_text.hpp).
using perfx::AnnotateOptions;
using perfx::AnnotateSummary;
using perfx::parse_percent_type;
using perfx::PercentType;

/// Writes the listing of every selected symbol of `profile` (loaded with its leaf
/// frames: LoadOptions::callchains may be off). Errors: kNotSupported for a recording
/// of an architecture the disassembler does not know.
[[nodiscard]] Result<AnnotateSummary> write_annotations(const profile::Profile& profile,
                                                        std::ostream& out,
                                                        const AnnotateOptions& options);

}  // namespace perfx::report
