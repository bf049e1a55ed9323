#pragma once
// The front of a command with subcommands, as perf's sched and lock take it:
// `perfx sched [-i FILE] SUBCOMMAND [ARGS...]`.
#include <functional>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace perfx::cli {

struct LeadingArgs {
  std::string input = "perf.data";  ///< -i FILE, --input=FILE, -iFILE
  bool force = false;               ///< -f/--force: read a file another user owns
  int sub = 0;                      ///< argv index of the subcommand word
  std::optional<int> exit;          ///< set: stop with this status (-h, usage error)
};

/// Reads the options before the subcommand; prints the usage or one error line itself.
LeadingArgs parse_leading_args(int argc, char** argv, std::string_view command,
                               std::string_view usage);

/// "perfx CMD: unknown subcommand 'X'; did you mean 'Y'?" and the usage; kUsageExit.
int unknown_subcommand(std::string_view command, std::string_view sub,
                       const std::vector<std::string>& names, std::string_view usage);

/// One subcommand of sched or lock.
struct Subcommand {
  std::vector<std::string_view> names;  ///< its name, then the abbreviations perf takes
  /// Runs it with the leading options and its own argv (argv[0] = "perfx CMD SUB").
  std::function<int(const LeadingArgs& lead, int argc, char** argv)> run;
  bool records = false;  ///< runs `perfx record`: the CLI fuzz target stops before it
};

/// `perfx CMD [-i FILE] SUB [ARGS...]`: the leading options, then SUB run (or said unknown).
int run_subcommand(int argc, char** argv, std::string_view command, std::string_view usage,
                   const std::vector<Subcommand>& subs);

/// Runs the registered `perfx record` with `front` (front[0] = "perfx record"), then
/// argv[1..argc): a subcommand's record with its options in front of the user's.
int run_record_with(std::string_view command, std::vector<std::string> front, int argc,
                    char** argv);

/// `perfx CMD script [ARGS...]` as perf's sched and lock alias it: `perfx script ARGS`,
/// reading the leading -i FILE when one was given (perf reads perf.data then), with -f.
int run_script_alias(const LeadingArgs& lead, int argc, char** argv);

}  // namespace perfx::cli
