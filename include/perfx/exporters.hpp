#pragma once
/// \file
/// Exports of a resolved perfx::Profile (profile.hpp) to interchange formats and pictures:
/// folded stacks (folded), HTML and SVG flame graphs (html, svg), pprof (gzip protobuf),
/// speedscope, Firefox Profiler (firefox) and perfx's own JSON (json). Pure: a Profile in,
/// bytes out. The formats are documented in docs/exports.md. (`export.hpp` is the
/// PERFX_API visibility macro, not this.)
///
/// \code
///   auto rec = perfx::Recording::open("perf.data");
///   perfx::ProfileOptions po;
///   po.aggregate = !perfx::format_needs_each_sample("svg");  // per stack is enough
///   auto prof = rec->load_profile(po);
///   std::ofstream svg("flame.svg");
///   auto ok = perfx::export_profile("svg", *prof, svg);
/// \endcode

#include <cstdint>
#include <ostream>
#include <string>
#include <string_view>
#include <vector>

#include "perfx/error.hpp"
#include "perfx/export.hpp"
#include "perfx/profile.hpp"

namespace perfx {

/// Knobs shared by the exporters; every field has a sensible default.
struct PERFX_API ExportOptions {
  /// Title shown by the HTML/SVG flame graphs and stored as the profile name in
  /// speedscope/Firefox; empty = derived from Profile::command_line.
  std::string title;
  /// Only samples of this event index (into Profile::events) are exported; -1 = the
  /// first event that has samples (flame graphs, folded) or all events (pprof, json,
  /// speedscope, firefox keep events apart by their own means).
  std::int32_t event = -1;
  /// folded/html/svg: put the thread's comm as the first (root) frame, as
  /// stackcollapse-perf.pl and inferno do.
  bool include_comm = true;
  /// folded: suffix kernel frames with "_[k]" (stackcollapse-perf.pl --all style).
  bool annotate_kernel = true;
  /// Keep inline frames (ProfileFrame::inlined); false folds them into their caller.
  bool inline_frames = true;
  /// svg: image width in pixels.
  std::uint32_t width = 1200;
  /// html/svg: start as an icicle (callers at the top) instead of a flame graph.
  bool inverted = false;
};

/// The format names export_profile() accepts, in documentation order:
/// folded, html, svg, pprof, speedscope, firefox, json.
[[nodiscard]] PERFX_API const std::vector<std::string_view>& export_formats();

/// True when `format` is one of export_formats().
[[nodiscard]] PERFX_API bool is_export_format(std::string_view format) noexcept;

/// True when the format writes binary bytes (pprof: gzip), so a CLI refuses a terminal.
[[nodiscard]] PERFX_API bool is_binary_format(std::string_view format) noexcept;

/// True when `format` shows samples over time (speedscope, firefox) or lists every sample
/// (json); the others (folded, html, svg, pprof) sum samples per stack and can take a
/// profile loaded with ProfileOptions::aggregate, whose memory follows unique stacks.
[[nodiscard]] PERFX_API bool format_needs_each_sample(std::string_view format) noexcept;

/// True when the format only needs each thread's runs of identical samples in time order
/// (speedscope: one weighted entry per run), so the loader may merge them
/// (ProfileOptions::merge_runs) instead of keeping every sample.
[[nodiscard]] PERFX_API bool format_merges_runs(std::string_view format) noexcept;

/// True when the format carries source file and line per location (pprof Line/Function,
/// json frames): the loader should resolve them (ProfileOptions::source_lines).
[[nodiscard]] PERFX_API bool export_wants_source_lines(std::string_view format) noexcept;

/// Writes `profile` to `out` in `format`.
/// Errors: kInvalidArgument for an unknown format (the message lists the valid ones)
/// or an `options.event` out of range; kIo when the stream fails.
[[nodiscard]] PERFX_API Result<void> export_profile(std::string_view format, const Profile& profile,
                                                    std::ostream& out,
                                                    const ExportOptions& options = {});

}  // namespace perfx
