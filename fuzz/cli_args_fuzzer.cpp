// Fuzz target: the command-line parsing of every perfx subcommand (CLI11 options,
// validators, `--` handling), without executing anything: the CLI sources are linked
// without main.cpp and run with cli::parse_only set, so a command returns right after
// its options parsed (tools/perfx/command.hpp).
//
// Input: newline-separated tokens. The first token names the subcommand (or, if it names
// none, picks one by its length); the rest is argv. Invariant: no crash and no escaped
// exception (CLI11 errors must be caught by the command and turned into an exit status).

#include <cstddef>
#include <cstdint>
#include <iostream>
#include <sstream>
#include <string>
#include <string_view>
#include <vector>

#include "command.hpp"

namespace perfx::cli {
namespace {
std::vector<Command>& registry() {
  static std::vector<Command> cmds;
  return cmds;
}
}  // namespace

// main.cpp's registry (main.cpp itself is not linked: it would define main()).
const std::vector<Command>& commands() { return registry(); }
Registration::Registration(Command cmd) { registry().push_back(std::move(cmd)); }

}  // namespace perfx::cli

namespace {

// Commands known to honour parse_only. Others (they would run for real) are never called.
constexpr std::string_view kParseOnly[] = {"annotate", "buildid-list", "diff",   "evlist",
                                           "list",     "record",       "report", "script",
                                           "stat",     "top",          "trace"};

bool allowed(std::string_view name) {
  for (auto n : kParseOnly)
    if (n == name) return true;
  return false;
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  if (size > 2048) return 0;
  static std::ostringstream sink;
  static bool silenced = [] {
    // CLI11 prints help and errors through std::cout / std::cerr: keep the fuzzer quiet.
    std::cout.rdbuf(sink.rdbuf());
    std::cerr.rdbuf(sink.rdbuf());
    return true;
  }();
  (void)silenced;
  sink.str({});
  perfx::cli::parse_only = true;

  std::vector<std::string> tokens;
  std::string_view in(reinterpret_cast<const char*>(data), size);
  while (!in.empty() && tokens.size() < 64) {
    const auto nl = in.find('\n');
    tokens.emplace_back(in.substr(0, nl));
    in = nl == std::string_view::npos ? std::string_view{} : in.substr(nl + 1);
  }
  if (tokens.empty()) return 0;

  std::vector<const perfx::cli::Command*> cmds;
  for (const auto& c : perfx::cli::commands())
    if (allowed(c.name)) cmds.push_back(&c);
  if (cmds.empty()) return 0;
  const perfx::cli::Command* cmd = cmds[tokens[0].size() % cmds.size()];
  for (const auto* c : cmds)
    if (c->name == tokens[0]) cmd = c;

  std::vector<std::string> args;
  args.push_back("perfx " + cmd->name);
  args.insert(args.end(), tokens.begin() + 1, tokens.end());
  std::vector<char*> argv;
  for (auto& a : args) argv.push_back(a.data());
  argv.push_back(nullptr);
  (void)cmd->run(static_cast<int>(args.size()), argv.data());
  return 0;
}
