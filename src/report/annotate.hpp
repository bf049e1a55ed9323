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
#include "profile/profile.hpp"
#include "symbol/disassembler.hpp"
#include "symbol/dso.hpp"

namespace perfx::report {

/// perf's --percent-type.
enum class PercentType : std::uint8_t { kLocalPeriod, kGlobalPeriod, kLocalHits, kGlobalHits };

/// "local-period", "global-period", "local-hits", "global-hits" (perf also takes
/// "period-local" and the like); kInvalidArgument naming the bad text.
[[nodiscard]] Result<PercentType> parse_percent_type(std::string_view text);

struct AnnotateOptions {
  std::vector<std::string> symbols;  ///< only these symbols (empty: every one with samples)
  std::vector<std::string> dsos;     ///< only symbols of these DSOs (short or long name)
  std::int32_t event = -1;           ///< only this event index (-1: each in turn)
  PercentType percent_type = PercentType::kLocalPeriod;
  bool show_nr_samples = false;    ///< -n: a Samples column instead of Percent
  bool show_total_period = false;  ///< --show-total-period: a Period column
  bool source = true;              ///< interleave source lines (--no-source: no)
  bool full_paths = false;         ///< -P: the DSO's whole path in the title
  bool asm_raw = false;            ///< --asm-raw: the instruction bytes too
  bool print_line = false;         ///< -l: the hottest source lines first, " // file:line"
  double percent_limit = 0;        ///< symbols below this share of the event are skipped
  symbol::AsmSyntax syntax = symbol::AsmSyntax::kAtt;
  symbol::SearchPaths paths;
};

struct AnnotateSummary {
  std::size_t annotated = 0;          ///< symbols printed
  std::vector<std::string> problems;  ///< one per symbol that could not be annotated
};

/// Writes the listing of every selected symbol of `profile` (loaded with its leaf
/// frames: LoadOptions::callchains may be off). Errors: kNotSupported for a recording
/// of an architecture the disassembler does not know.
[[nodiscard]] Result<AnnotateSummary> write_annotations(const profile::Profile& profile,
                                                        std::ostream& out,
                                                        const AnnotateOptions& options);

}  // namespace perfx::report
