#pragma once
// The front every perfx command shares, so that a cmd_<name>.cpp only wires its own
// options: the includes of an option parser, the error lines ("perfx CMD: msg", exit 1),
// the parse with perf's usage exits (129, 0 for --help) and the CLI fuzz target's stop
// (command.hpp), the workload after a prefix command's options, and the options the
// readers of a perf.data take alike (-i, -f, -v, -o; the sample filters are in
// sample_filters.hpp).
#pragma GCC diagnostic ignored "-Wnull-dereference"  // CLI11 under GCC 12, see option_prefix.hpp

#include <fmt/core.h>
#include <CLI/CLI.hpp>

#include <functional>
#include <initializer_list>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "command.hpp"
#include "option_prefix.hpp"
#include "perf_options.hpp"

namespace perfx::cli {

/// A command's voice on stderr: every line starts with "perfx NAME: ".
class CommandFront {
 public:
  /// `name` as the messages say it: "report", "sched", "lock contention".
  explicit CommandFront(std::string name) : name_(std::move(name)) {}

  /// Prints "perfx NAME: msg".
  void say(std::string_view msg) const;
  /// Prints "perfx NAME: msg"; returns 1, the exit status of a failed command.
  int fail(std::string_view msg) const;
  /// Prints "perfx NAME: warning: msg".
  void warn(std::string_view msg) const;
  /// Prints "perfx NAME: msg"; returns kUsageExit (a usage error found after parsing).
  int usage_error(std::string_view msg) const;

  /// parse_args() with perf's usage exits: the exit status when the command must stop
  /// here (--help: 0; a usage error: kUsageExit; the CLI fuzz target: 0), else nullopt.
  /// `check` (may be empty) runs after a good parse and before the fuzz target's stop:
  /// a non-empty message is a usage error, printed as "APP NAME: msg".
  static std::optional<int> parse(CLI::App& app, int argc, char** argv,
                                  const std::function<std::string()>& check = {});

  /// For a command with a workload (stat, trace): parse() as a prefix command (the first
  /// word that is not an option starts the workload), refusing an unknown option before
  /// the workload, and puts the workload's words (a leading "--" dropped) into `workload`.
  static std::optional<int> parse_workload(CLI::App& app, int argc, char** argv,
                                           std::vector<std::string>& workload);

 private:
  std::string name_;
};

/// The options of the commands that read a perf.data, as they all spell them.
struct ReaderArgs {
  std::string input = "perf.data";  ///< -i/--input FILE ('-': a pipe on stdin)
  bool force = false;               ///< -f/--force: a file of another owner (perf's rule)
  int verbose = 0;                  ///< -v/--verbose, accepted for perf's habit
  std::string output;               ///< -o/--output FILE ("" and "-": stdout)
  bool stdio = false;               ///< --stdio, accepted: text is the only interface
  bool no_demangle = false;         ///< --no-demangle (--demangle: false): mangled names
  bool demangle_params = false;     ///< --demangle-params: C++ names with parameter lists
  bool full_source_path = false;    ///< --full-source-path: srcline with the whole path
  bool header = false;              ///< --header: the recording's header first
  bool header_only = false;         ///< --header-only: only the recording's header
  std::string symfs;                ///< --symfs DIR: files with symbols read under DIR
  std::string kallsyms;             ///< --kallsyms FILE: kernel symbols from FILE only
  std::string vmlinux;              ///< -k/--vmlinux FILE: kernel symbols from FILE only
};

/// Which of ReaderArgs' options a command takes (or-ed).
enum ReaderOption : unsigned {
  kInputOption = 1,
  kForceOption = 2,
  kVerboseOption = 4,
  kOutputOption = 8,
  kStdioOption = 16,
  kNoDemangleOption = 32,
  kDemangleParamsOption = 64,
  kFullSourcePathOption = 128,
  kHeaderOptions = 256,      ///< --header and --header-only
  kSymbolFileOptions = 512,  ///< --symfs, --kallsyms, -k/--vmlinux
  /// What every command that reads one perf.data into text takes.
  kReaderOptions = kInputOption | kForceOption | kVerboseOption | kOutputOption,
  /// What report and script take alike about symbols, sources and the header.
  kListingOptions = kNoDemangleOption | kDemangleParamsOption | kFullSourcePathOption |
                    kHeaderOptions | kSymbolFileOptions,
};

/// Adds the ReaderArgs options `which` names to `app`.
void add_reader_options(CLI::App& app, ReaderArgs& args, unsigned which);

/// perf's check before it opens the recording: a --kallsyms or --vmlinux file that cannot
/// be read is "Invalid file: NAME" (the exit status to return), nothing otherwise.
std::optional<int> check_symbol_files(const CommandFront& cmd, const ReaderArgs& args);

/// One perf OPT_BOOLEAN: a flag under `names` that sets `*value`.
struct Switch {
  const char* names;
  bool* value;
  const char* help;
};

/// Adds each switch as a flag: a command's on/off options read as one table.
void add_switches(CLI::App& app, std::initializer_list<Switch> switches);

/// The target options of the commands that open events (record, stat, top, trace):
/// -a/--all-cpus, -C/--cpu LIST, -p/--pid LIST, -t/--tid LIST.
void add_target_options(CLI::App& app, bool& system_wide, std::string& cpus, std::string& pids,
                        std::string& tids);

/// -e/--event, one event list per -e (a CLI11 vector is greedy: `perfx stat -e
/// task-clock sleep 1` must run sleep, as perf does).
void add_event_option(CLI::App& app, std::vector<std::string>& events, const std::string& help);

}  // namespace perfx::cli
