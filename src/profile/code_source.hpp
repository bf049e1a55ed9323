#pragma once
/// \file
/// The machine code behind a profile's frames, for perf annotate's listing: each frame's
/// symbol in its DSO (the file read as the recording named it, by build-id when known),
/// the symbol's bytes, their instructions (Capstone) and source lines (DWARF). The
/// listing printer in src/report sees plain data only.

#include <cstdint>
#include <memory>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "perfx/error.hpp"
#include "profile/profile.hpp"

namespace perfx::profile {

/// A frame's symbol in its DSO; `problem` says why there is none.
struct CodeSymbol {
  const void* dso = nullptr;  ///< identity of the DSO (null: no symbol found)
  std::string name;
  std::uint64_t start = 0, end = 0;  ///< the symbol's range, in the DSO's symbol space
  std::uint64_t address = 0;         ///< the frame's address in that space
  std::uint64_t delta = 0;           ///< symbol space - file offset (the PT_LOAD's)
  std::string problem;               ///< set when dso is null
};

/// One disassembled instruction.
struct CodeInstruction {
  std::uint64_t address = 0;
  std::uint32_t size = 0;
  std::string text;  ///< "mov    %rdi,%rax"; "(bad)" where the bytes decode to nothing
};

class CodeSource {
 public:
  /// For a recording of `arch` ("x86_64", "aarch64"; "" = this machine's). kNotSupported
  /// for an architecture the disassembler does not know.
  [[nodiscard]] static Result<CodeSource> open(std::string_view arch, bool intel_syntax,
                                               bool demangle, std::string buildid_dir);
  CodeSource(CodeSource&&) noexcept;
  CodeSource& operator=(CodeSource&&) noexcept;
  ~CodeSource();

  /// The symbol holding frame `f` of a file-backed DSO (`build_id`: its mapping's, or "").
  [[nodiscard]] CodeSymbol lookup(const Frame& f, const std::string& build_id);
  /// The symbol's bytes (from the DSO's file); false with `problem` set when unreadable.
  bool read(const CodeSymbol& sym, const std::string& dso_path, std::vector<std::uint8_t>& code,
            std::string& problem) const;
  /// The instructions of `code` (the symbol's bytes), branch targets named after symbols.
  [[nodiscard]] std::vector<CodeInstruction> disassemble(const CodeSymbol& sym,
                                                         std::span<const std::uint8_t> code) const;
  /// The source file:line of `address` (symbol space); nullopt without DWARF.
  [[nodiscard]] std::optional<std::pair<std::string, std::uint32_t>> srcline(
      const CodeSymbol& sym, std::uint64_t address) const;
  /// The file the DSO was read from ("" when it could not be opened).
  [[nodiscard]] const std::string& file_path(const CodeSymbol& sym) const;

 private:
  struct Impl;
  explicit CodeSource(std::unique_ptr<Impl> impl);
  std::unique_ptr<Impl> impl_;
};

}  // namespace perfx::profile
