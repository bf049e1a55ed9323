#pragma once
/// \file
/// x86-64 perf register numbers for perfx's internals (symbol unwinder, record register
/// options): the table is public, in perfx/regs.hpp; these are its names in perfx::core.

#include "perfx/regs.hpp"

namespace perfx::core {

using perfx::kRegsAbi32;
using perfx::kRegsAbi64;
using perfx::kRegsAbiNone;
using perfx::kX86_64RegsMask;
using perfx::x86_64_reg_name;
using perfx::X86Reg;

}  // namespace perfx::core
