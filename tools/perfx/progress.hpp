#pragma once
// Progress while a command reads a perf.data: one shared rule and one look for report,
// script, annotate, diff and the exports.

#include <cstdint>
#include <string_view>

namespace perfx::cli {

/// The callback type of profile::LoadOptions::progress and report::ScriptOptions::progress:
/// (bytes read, bytes in the file).
using ProgressFn = void (*)(std::uint64_t done, std::uint64_t total);

/// A progress callback that draws "<label>: NN%" on stderr, or nullptr when progress must
/// not be shown: stderr is not a terminal, or stdout is a pipe or a socket (a pager or
/// another program shares the terminal), or `streams_to_stdout` (the command writes its
/// output while it reads, as script does) and stdout is the terminal. `label` must
/// outlive the reading ("Loading samples", "Loading old.data").
[[nodiscard]] ProgressFn terminal_progress(std::string_view label, bool streams_to_stdout = false);

}  // namespace perfx::cli
