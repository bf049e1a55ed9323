#pragma once
/// \file
/// x86-64 perf register numbers: the bits of sample_regs_user / sample_regs_intr and the
/// order of the sampled values (arch/x86/include/uapi/asm/perf_regs.h), perf's names for
/// them, the PERF_SAMPLE_REGS_ABI_* values, and finding one register in a sampled set.
///
///   // sample.regs_user: abi, then one u64 per bit set in attr.sample_regs_user
///   auto ip = perfx::reg_value(attr.sample_regs_user, values, perfx::X86Reg::kIp);

#include <bit>
#include <cstdint>
#include <iterator>
#include <optional>
#include <span>
#include <string_view>

namespace perfx {

/// PERF_REG_X86_*: bit numbers in the register masks.
enum class X86Reg : unsigned {
  kAx = 0,
  kBx = 1,
  kCx = 2,
  kDx = 3,
  kSi = 4,
  kDi = 5,
  kBp = 6,
  kSp = 7,
  kIp = 8,
  kFlags = 9,
  kCs = 10,
  kSs = 11,
  kDs = 12,
  kEs = 13,
  kFs = 14,
  kGs = 15,
  kR8 = 16,
  kR9 = 17,
  kR10 = 18,
  kR11 = 19,
  kR12 = 20,
  kR13 = 21,
  kR14 = 22,
  kR15 = 23,
  kXmm0 = 32,  ///< each XMM register takes two bits (XMM1 = 34, ...)
};

/// PERF_SAMPLE_REGS_ABI_* values.
inline constexpr std::uint64_t kRegsAbiNone = 0;
inline constexpr std::uint64_t kRegsAbi32 = 1;
inline constexpr std::uint64_t kRegsAbi64 = 2;

/// perf's PERF_REGS_MASK for x86-64: the general registers, IP, FLAGS, CS, SS (not DS,
/// ES, FS, GS, which the kernel does not sample for 64-bit tasks).
inline constexpr std::uint64_t kX86_64RegsMask = 0xff0fff;

/// perf's name of register bit `bit` ("AX", "FLAGS", "R15", "XMM3"); "unknown" when the
/// bit names no register.
[[nodiscard]] constexpr std::string_view x86_64_reg_name(unsigned bit) noexcept {
  constexpr std::string_view kGeneral[] = {
      "AX", "BX", "CX", "DX", "SI", "DI", "BP",  "SP",  "IP",  "FLAGS", "CS",  "SS",
      "DS", "ES", "FS", "GS", "R8", "R9", "R10", "R11", "R12", "R13",   "R14", "R15",
  };
  constexpr std::string_view kXmm[] = {
      "XMM0", "XMM1", "XMM2",  "XMM3",  "XMM4",  "XMM5",  "XMM6",  "XMM7",
      "XMM8", "XMM9", "XMM10", "XMM11", "XMM12", "XMM13", "XMM14", "XMM15",
  };
  constexpr auto kXmm0Bit = static_cast<unsigned>(X86Reg::kXmm0);
  if (bit < std::size(kGeneral)) return kGeneral[bit];
  if (bit >= kXmm0Bit && bit < 64 && (bit - kXmm0Bit) % 2 == 0) return kXmm[(bit - kXmm0Bit) / 2];
  return "unknown";
}
static_assert(x86_64_reg_name(static_cast<unsigned>(X86Reg::kR15)) == "R15");
static_assert(x86_64_reg_name(static_cast<unsigned>(X86Reg::kFlags)) == "FLAGS");

/// The value of register `reg` in a sampled register set: `values` holds one u64 per bit
/// set in `mask` (sample_regs_user / sample_regs_intr), lowest bit first, as the kernel
/// writes PERF_SAMPLE_REGS_USER / _INTR. nullopt when `reg` is not in `mask` or
/// `values` is shorter than the mask says.
[[nodiscard]] constexpr std::optional<std::uint64_t> reg_value(
    std::uint64_t mask, std::span<const std::uint64_t> values, X86Reg reg) noexcept {
  const auto bit = static_cast<unsigned>(reg);
  if (bit >= 64 || (mask & (std::uint64_t{1} << bit)) == 0) return std::nullopt;
  const auto index =
      static_cast<std::size_t>(std::popcount(mask & ((std::uint64_t{1} << bit) - 1)));
  if (index >= values.size()) return std::nullopt;
  return values[index];
}

/// The register perf names `name` ("ax", "IP", "r15", "xmm3"; case-insensitive), or
/// nullopt.
[[nodiscard]] constexpr std::optional<X86Reg> x86_64_reg_from_name(std::string_view name) noexcept {
  for (unsigned bit = 0; bit < 64; ++bit) {
    const std::string_view n = x86_64_reg_name(bit);
    if (n == "unknown" || n.size() != name.size()) continue;
    bool same = true;
    for (std::size_t i = 0; i < n.size() && same; ++i) {
      char c = name[i];
      if (c >= 'a' && c <= 'z') c = static_cast<char>(c - 'a' + 'A');
      same = c == n[i];
    }
    if (same) return static_cast<X86Reg>(bit);
  }
  return std::nullopt;
}

}  // namespace perfx
