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

/// A register list as perf takes it ("ax,bx,ip", any case) -> mask. Empty = every
/// register of core::kX86_64RegsMask. kInvalidArgument naming the unknown register and
/// listing the known ones.
[[nodiscard]] Result<std::uint64_t> parse_x86_64_regs(std::string_view list);

/// perf script's iregs/uregs text: " ABI:2    AX:0x1    BX:0x2 ..." (each name right-
/// aligned in 5 columns, a space after each value); "" when the sample has no registers.
[[nodiscard]] std::string format_regs(const Regs& regs);

}  // namespace perfx::record
