#pragma once
/// \file
/// DWARF unwinding of `--call-graph dwarf` samples (PERF_SAMPLE_REGS_USER +
/// PERF_SAMPLE_STACK_USER) with elfutils libdwfl, the way perf's unwind-libdw.c does:
/// the process's ELF files are reported to a Dwfl at their load bias (map start - pgoff)
/// as the unwinder meets them, dwfl_attach_state() supplies the sampled registers as the
/// initial frame and a memory reader over the copied stack (or, outside it, the mapped
/// files), and dwfl_getthread_frames() walks the CFI (.eh_frame, else .debug_frame).
///
/// Pure: inputs are the sampled registers, the stack bytes (starting at the sampled SP)
/// and the process's maps; nothing is read from the live system except the mapped
/// files. One Dwfl is cached per address space (MapSet), so each file's CFI is parsed
/// once per process, not per sample. Not thread-safe: one replay thread.

#include <cstddef>
#include <cstdint>
#include <memory>
#include <span>
#include <vector>

#include "core/x86_regs.hpp"
#include "symbol/machine.hpp"

namespace perfx::symbol {

/// The user registers of one sample (PERF_SAMPLE_REGS_USER), as recorded.
struct UserRegs {
  std::uint64_t abi =
      core::kRegsAbiNone;  ///< core::kRegsAbi32/64; core::kRegsAbiNone = no registers
  std::uint64_t mask = 0;  ///< the attr's sample_regs_user
  std::span<const std::uint64_t> values;  ///< one per mask bit, in bit order

  /// The value of perf register `reg`, or false when the mask does not hold it (or
  /// `values` is shorter than the mask says: damaged input).
  [[nodiscard]] bool get(core::X86Reg reg, std::uint64_t& out) const noexcept;
};

/// perf's default maximum number of frames (PERF_MAX_STACK_DEPTH).
inline constexpr std::size_t kMaxUnwindFrames = 127;

/// Unwinds user stacks with one cached Dwfl per address space.
class Unwinder {
 public:
  Unwinder();
  ~Unwinder();
  Unwinder(const Unwinder&) = delete;
  Unwinder& operator=(const Unwinder&) = delete;

  /// Unwinds one sample of thread `tid` whose address space is `maps`.
  /// `stack`: the valid bytes of the stack copy (dyn_size), which start at the SP in
  /// `regs`. Appends the user frames to `out`, leaf first, as perf does: the leaf's pc,
  /// then each caller's return address minus one (so it lies inside the call), at most
  /// `max_frames`. Returns the number appended; 0 when the sample cannot be unwound
  /// (no registers, leaf outside any reportable file, ...). Memory is read only inside
  /// `stack` and inside the files mapped by `maps`; damaged input yields fewer frames.
  std::size_t unwind(const std::shared_ptr<MapSet>& maps, std::int32_t tid, const UserRegs& regs,
                     std::span<const std::byte> stack, std::vector<std::uint64_t>& out,
                     std::size_t max_frames = kMaxUnwindFrames);

  /// Address spaces with a cached Dwfl (for tests).
  [[nodiscard]] std::size_t cached_spaces() const noexcept;

 private:
  struct Impl;
  std::unique_ptr<Impl> impl_;
};

}  // namespace perfx::symbol
