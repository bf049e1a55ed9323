#pragma once
/// \file
/// Exports of a resolved profile::Profile to interchange formats and pictures:
/// folded stacks, HTML and SVG flame graphs, pprof, speedscope, Firefox Profiler
/// and perfx's own JSON. Pure: a Profile in, bytes out; no perf.data, no kernel.
/// Formats are documented in docs/exports.md.

#include <cstdint>
#include <ostream>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "perfx/error.hpp"
#include "perfx/exporters.hpp"
#include "profile/profile.hpp"

namespace perfx::report {

/// Knobs shared by the exporters: public (perfx/exporters.hpp).
using ExportOptions = perfx::ExportOptions;

/// One export format: its name, its writer and what it needs from the loader. The table
/// (export_format_table()) is the only place that knows the formats; every predicate
/// below is read from it.
struct ExportFormat {
  std::string_view name;  ///< "folded", "pprof", ...
  /// Writes a profile in this format (stream errors are export_profile()'s to report).
  Result<void> (*write)(const profile::Profile&, std::ostream&, const ExportOptions&) = nullptr;
  bool binary = false;              ///< see is_binary_format()
  bool needs_each_sample = false;   ///< see format_needs_each_sample()
  bool merges_runs = false;         ///< see format_merges_runs()
  bool wants_source_lines = false;  ///< see export_wants_source_lines()
};

/// Every export format, one row each, in documentation order.
[[nodiscard]] std::span<const ExportFormat> export_format_table() noexcept;

/// The row of `name`, or nullptr when no format has that name.
[[nodiscard]] const ExportFormat* find_export_format(std::string_view name) noexcept;

/// The format names export_profile() accepts, in documentation order:
/// folded, html, svg, pprof, speedscope, firefox, json.
[[nodiscard]] const std::vector<std::string_view>& export_formats();

/// True when `format` is one of export_formats().
[[nodiscard]] bool is_export_format(std::string_view format) noexcept;

/// True when the format writes binary bytes (pprof: gzip), so a CLI refuses a terminal.
[[nodiscard]] bool is_binary_format(std::string_view format) noexcept;

/// True when `format` shows samples over time (speedscope, firefox) or lists every sample
/// (json); the others (folded, html, svg, pprof) sum samples per stack and can take a
/// profile loaded with LoadOptions::aggregate, whose memory follows unique stacks.
[[nodiscard]] bool format_needs_each_sample(std::string_view format) noexcept;

/// True when the format only needs each thread's runs of identical samples in time order
/// (speedscope: one weighted entry per run), so the loader may merge them
/// (profile::LoadOptions::merge_runs) instead of keeping every sample.
[[nodiscard]] bool format_merges_runs(std::string_view format) noexcept;

/// True when the format carries source file and line per location (pprof Line/Function,
/// json frames): the loader should resolve them (profile::LoadOptions::source_lines).
[[nodiscard]] bool export_wants_source_lines(std::string_view format) noexcept;

/// Writes `profile` to `out` in `format`.
/// Errors: kInvalidArgument for an unknown format (the message lists the valid ones)
/// or an `options.event` out of range; kIo when the stream fails.
[[nodiscard]] Result<void> export_profile(std::string_view format, const profile::Profile& profile,
                                          std::ostream& out, const ExportOptions& options = {});

}  // namespace perfx::report
