#pragma once
// The front of a command with subcommands, as perf's sched and lock take it:
// `perfx sched [-i FILE] SUBCOMMAND [ARGS...]`.
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace perfx::cli {

struct LeadingArgs {
  std::string input = "perf.data";  ///< -i FILE, --input=FILE, -iFILE
  int sub = 0;                      ///< argv index of the subcommand word
  std::optional<int> exit;          ///< set: stop with this status (-h, usage error)
};

/// Reads the options before the subcommand; prints the usage or one error line itself.
LeadingArgs parse_leading_args(int argc, char** argv, std::string_view command,
                               std::string_view usage);

/// "perfx CMD: unknown subcommand 'X'; did you mean 'Y'?" and the usage; kUsageExit.
int unknown_subcommand(std::string_view command, std::string_view sub,
                       const std::vector<std::string>& names, std::string_view usage);

}  // namespace perfx::cli
