#pragma once
/// \file
/// x86-64 sample registers (PERF_SAMPLE_REGS_USER / REGS_INTR): perf's names for the
/// bits of sample_regs_user / sample_regs_intr (arch/x86/include/uapi/asm/perf_regs.h),
/// the masks perf asks for, and perf's register-list syntax (`--user-regs=ip,sp`).

#include <cstdint>
#include <string>
#include <string_view>

#include "perfx/error.hpp"
#include "record/records.hpp"

namespace perfx::record {

/// perf's PERF_REGS_MASK for x86-64: the general registers, IP, FLAGS, CS, SS (not DS,
/// ES, FS, GS, which the kernel does not sample for 64-bit tasks).
inline constexpr std::uint64_t kX86_64RegsMask = 0xff0fff;

/// perf's name of register bit `bit` ("AX", "FLAGS", "R15", "XMM3"); "unknown" when the
/// bit names no register.
[[nodiscard]] std::string_view x86_64_reg_name(unsigned bit) noexcept;

/// A register list as perf takes it ("ax,bx,ip", any case) -> mask. Empty = every
/// register of kX86_64RegsMask. kInvalidArgument naming the unknown register and
/// listing the known ones.
[[nodiscard]] Result<std::uint64_t> parse_x86_64_regs(std::string_view list);

/// perf script's iregs/uregs text: " ABI:2    AX:0x1    BX:0x2 ..." (each name right-
/// aligned in 5 columns, a space after each value); "" when the sample has no registers.
[[nodiscard]] std::string format_regs(const Regs& regs);

}  // namespace perfx::record
