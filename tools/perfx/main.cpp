// perfx: entry point. Dispatches `perfx <command> [args]` to the registered
// subcommand (see command.hpp); no logic of its own.

#include <fmt/core.h>

#include <algorithm>
#include <cstdio>
#include <string_view>

#include "command.hpp"

namespace perfx::cli {
namespace {

std::vector<Command>& registry() {
  static std::vector<Command> cmds;
  return cmds;
}

void print_usage(std::FILE* out) {
  fmt::print(out, "usage: perfx [--version] [--help] <command> [<args>]\n\ncommands:\n");
  for (const auto& c : commands()) fmt::print(out, "   {:<10} {}\n", c.name, c.summary);
  fmt::print(out, "\nSee 'perfx <command> --help' for the options of one command.\n");
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
  if (argc < 2) {
    perfx::cli::print_usage(stderr);
    return 1;
  }
  const std::string_view name = argv[1];
  if (name == "--help" || name == "-h" || name == "help") {
    perfx::cli::print_usage(stdout);
    return 0;
  }
  if (name == "--version" || name == "version") {
    fmt::print("perfx version " PERFX_VERSION "\n");
    return 0;
  }
  for (const auto& c : commands()) {
    if (c.name == name) {
      std::string prog = "perfx " + c.name;
      argv[1] = prog.data();
      return c.run(argc - 1, argv + 1);
    }
  }
  fmt::print(stderr, "perfx: '{}' is not a perfx command. See 'perfx --help'.\n", name);
  return 1;
}
