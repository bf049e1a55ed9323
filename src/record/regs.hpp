#pragma once
/// \file
/// x86-64 sample registers (PERF_SAMPLE_REGS_USER / REGS_INTR): perf's register-list
/// syntax (`--user-regs=ip,sp`) and its register text. The register numbers, names and
/// masks are in core/x86_regs.hpp.

#include <cstdint>
#include <string>
#include <string_view>

#include "core/x86_regs.hpp"
#include "perfx/error.hpp"
#include "record/records.hpp"

namespace perfx::record {

/// perf's register-list syntax; parsed in core (the record plan needs it too).
using core::parse_x86_64_regs;

/// perf script's iregs/uregs text: " ABI:2    AX:0x1    BX:0x2 ..." (each name right-
/// aligned in 5 columns, a space after each value); "" when the sample has no registers.
[[nodiscard]] std::string format_regs(const Regs& regs);

}  // namespace perfx::record
