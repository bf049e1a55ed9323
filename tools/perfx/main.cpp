// perfx: entry point. Takes perfx's global options (--help, --version, --no-pager) and
// dispatches `perfx <command> [args]` to the registered subcommand (see command.hpp),
// starting the pager (pager.hpp) for the commands whose text output is long.

#include <fmt/core.h>

#include <algorithm>
#include <cstdio>
#include <string>
#include <string_view>

#include "command.hpp"
#include "pager.hpp"
#include "perf_options.hpp"

namespace perfx::cli {
namespace {

std::vector<Command>& registry() {
  static std::vector<Command> cmds;
  return cmds;
}

void print_usage(std::FILE* out) {
  fmt::print(out,
             "usage: perfx [--version] [--help] [--no-pager] <command> [<args>]\n\n"
             "options:\n"
             "   -h, --help      show this help and exit\n"
             "   -v, --version   show perfx's version and exit\n"
             "   -P, --no-pager  do not send long output through a pager\n\n"
             "commands:\n");
  for (const auto& c : commands()) fmt::print(out, "   {:<13} {}\n", c.name, c.summary);
  fmt::print(out, "\nSee 'perfx <command> --help' for the options of one command.\n");
}

// A command name perfx does not have: perf's command it lacks, or a typo of its own.
int unknown_command(std::string_view name) {
  std::vector<std::string> names;
  for (const auto& c : commands()) names.push_back(c.name);
  const std::string near = nearest_name(name, names);
  if (!near.empty()) {
    fmt::print(stderr, "perfx: '{}' is not a perfx command; did you mean '{}'?\n", name, near);
  } else if (std::find(perf_commands().begin(), perf_commands().end(), name) !=
             perf_commands().end()) {
    fmt::print(stderr, "perfx: perf's `{}` is not supported by perfx yet. See 'perfx --help'.\n",
               name);
  } else {
    fmt::print(stderr, "perfx: '{}' is not a perfx command. See 'perfx --help'.\n", name);
  }
  return 1;  // as perf: an unknown command is not a usage error (129)
}

}  // namespace

const std::vector<Command>& commands() {
  auto& cmds = registry();
  std::sort(cmds.begin(), cmds.end(),
            [](const Command& a, const Command& b) { return a.name < b.name; });
  return cmds;
}

Registration::Registration(Command cmd) { registry().push_back(std::move(cmd)); }

}  // namespace perfx::cli

int main(int argc, char** argv) {
  using perfx::cli::commands;
  bool pager = true;
  int first = 1;
  for (; first < argc && argv[first][0] == '-'; ++first) {
    const std::string_view opt = argv[first];
    if (opt == "--help" || opt == "-h") {
      perfx::cli::print_usage(stdout);
      return 0;
    }
    if (opt == "--version" || opt == "-v") {
      fmt::print("perfx version " PERFX_VERSION "\n");
      return 0;
    }
    if (opt == "--no-pager" || opt == "-P") {
      pager = false;
      continue;
    }
    const std::string near = perfx::cli::nearest_name(opt.substr(opt.find_first_not_of('-')),
                                                      {"help", "version", "no-pager"});
    fmt::print(stderr, "perfx: unknown option: {}{}\n", opt,
               near.empty() ? "" : "; did you mean '--" + near + "'?");
    perfx::cli::print_usage(stderr);
    return perfx::cli::kUsageExit;
  }
  if (first >= argc) {
    perfx::cli::print_usage(stderr);
    return 1;
  }
  const std::string_view name = argv[first];
  if (name == "help") {
    perfx::cli::print_usage(stdout);
    return 0;
  }
  if (name == "version") {
    fmt::print("perfx version " PERFX_VERSION "\n");
    return 0;
  }
  for (const auto& c : commands()) {
    if (c.name == name) {
      std::string prog = "perfx " + c.name;
      argv[first] = prog.data();
      if (pager && c.paged) perfx::cli::start_pager();
      const int rc = c.run(argc - first, argv + first);
      perfx::cli::finish_pager();
      return rc;
    }
  }
  return perfx::cli::unknown_command(name);
}
