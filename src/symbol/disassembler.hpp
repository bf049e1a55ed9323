#pragma once
/// \file
/// Machine code -> instructions, for `perfx annotate`, with GNU libopcodes (binutils-dev):
/// the disassembler objdump is made of, so each instruction reads as it does in objdump
/// and perf annotate (AT&T syntax by default, or Intel; x86-64 and AArch64), and
/// addresses in operands (branch and call targets, rip-relative data) are followed by
/// the name the caller gives them: "je     1197 <hot_loop+0x2e>".

#include <cstdint>
#include <functional>
#include <memory>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "perfx/error.hpp"

namespace perfx::symbol {

enum class AsmSyntax : std::uint8_t { kAtt, kIntel };

struct Instruction {
  std::uint64_t address = 0;
  std::uint32_t size = 0;
  std::string text;  ///< "mov    %rdi,%rax"; "(bad)" where the bytes decode to nothing
};

/// Names a code address ("hot_loop+0x2e", "printf@plt"); nullopt: the bare address.
using AddressNamer = std::function<std::optional<std::string>(std::uint64_t)>;

class Disassembler {
 public:
  /// `arch`: the perf.data header's arch ("x86_64", "aarch64"; "" = this machine's).
  /// kNotSupported for other architectures (named in the message).
  [[nodiscard]] static Result<Disassembler> open(std::string_view arch, AsmSyntax syntax);
  Disassembler(Disassembler&&) noexcept;
  Disassembler& operator=(Disassembler&&) noexcept;
  ~Disassembler();

  /// Every instruction of `code`, which starts at `address`; together they cover `code`.
  [[nodiscard]] std::vector<Instruction> disassemble(std::span<const std::uint8_t> code,
                                                     std::uint64_t address,
                                                     const AddressNamer& namer = {}) const;

 private:
  struct Impl;
  explicit Disassembler(std::unique_ptr<Impl> impl);
  std::unique_ptr<Impl> impl_;
};

}  // namespace perfx::symbol
