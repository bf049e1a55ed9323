#pragma once
/// \file
/// DWARF lookups for dynamic probes (perf probe): the address of a source line and the
/// function around it, and fetch arguments for a function's parameters and variables
/// from their DWARF locations (x86-64 registers, frame-base offsets).

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "perfx/error.hpp"

namespace perfx::symbol {

/// A probe address found in DWARF.
struct ProbeSite {
  std::uint64_t address = 0;         ///< virtual address (ELF)
  std::string function;              ///< the function around it ("" when DWARF names none)
  std::uint64_t function_entry = 0;  ///< its lowest address
};

/// The first address of `source`:`line` in `path`'s line table (is_stmt rows; `source`
/// matches a file name ending in it at a '/' boundary). kNotFound naming the line when no
/// row has it, or when `path` has no DWARF.
[[nodiscard]] Result<ProbeSite> dwarf_line_site(const std::string& path, std::string_view source,
                                                std::uint32_t line);

/// Fetch arguments (tracefs syntax, `name=%di:s32`) for the variables named in `args`
/// (each `VAR` or `NAME=VAR`) of `function` in `path`, at the function's entry (or, for
/// variables kept in the frame as unoptimized code does, after its prologue: `site` then
/// moves there). `site` is the probe's virtual address, 0 for the function's entry.
/// Raw fetch args (`%di`, `$retval`...) pass through unchanged.
/// kNotFound for an unknown function or variable, kNotSupported for a location a probe
/// cannot read (DWARF expressions beyond one register or one frame offset).
[[nodiscard]] Result<std::vector<std::string>> dwarf_fetch_args(
    const std::string& path, std::string_view function, const std::vector<std::string>& args,
    std::uint64_t& site);

}  // namespace perfx::symbol
