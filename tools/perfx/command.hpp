#pragma once
// Subcommand registry. Each tools/perfx/cmd_<name>.cpp registers itself with
//   static const perfx::cli::Registration kReg{{"stat", "Count events", &run_stat}};
// so adding a subcommand never touches main.cpp. A command gets argv with
// argv[0] = "perfx <name>" and returns the process exit status.

#include <functional>
#include <string>
#include <vector>

namespace perfx::cli {

struct Command {
  std::string name;
  std::string summary;
  std::function<int(int argc, char** argv)> run;
  /// Whether its text output is long enough to go through a pager on a terminal
  /// (pager.hpp); `perfx --no-pager` turns that off.
  bool paged = false;
};

/// All registered commands, sorted by name.
const std::vector<Command>& commands();

struct Registration {
  explicit Registration(Command cmd);
};

/// Parse-only mode, set by the CLI fuzz target (fuzz/cli_args_fuzzer.cpp): a command
/// returns 0 right after its options parsed, before it touches files, events or processes.
inline bool parse_only = false;

}  // namespace perfx::cli
