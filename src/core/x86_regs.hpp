#pragma once
/// \file
/// x86-64 perf register numbers for perfx's internals (symbol unwinder, record register
/// options): the table is public, in perfx/regs.hpp; these are its names in perfx::core.

#include <cstdint>
#include <string_view>

#include "perfx/error.hpp"
#include "perfx/regs.hpp"

namespace perfx::core {

using perfx::kRegsAbi32;
using perfx::kRegsAbi64;
using perfx::kRegsAbiNone;
using perfx::kX86_64RegsMask;
using perfx::x86_64_reg_name;
using perfx::X86Reg;

/// A register list as perf takes it ("ax,bx,ip", any case) -> mask. Empty = every
/// register of kX86_64RegsMask. kInvalidArgument naming the unknown register and
/// listing the known ones.
[[nodiscard]] Result<std::uint64_t> parse_x86_64_regs(std::string_view list);

}  // namespace perfx::core
