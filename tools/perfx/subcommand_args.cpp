#include "subcommand_args.hpp"

#include <fmt/core.h>

#include <algorithm>

#include "command.hpp"
#include "perf_options.hpp"

namespace perfx::cli {

LeadingArgs parse_leading_args(int argc, char** argv, std::string_view command,
                               std::string_view usage) {
  LeadingArgs r;
  int i = 1;
  for (; i < argc && argv[i][0] == '-'; ++i) {
    const std::string_view a = argv[i];
    if (a == "-h" || a == "--help") {
      fmt::print("{}", usage);
      r.exit = 0;
      return r;
    }
    if ((a == "-i" || a == "--input") && i + 1 < argc) {
      r.input = argv[++i];
    } else if (a.starts_with("--input=")) {
      r.input = std::string(a.substr(8));
    } else if (a.starts_with("-i") && a.size() > 2) {
      r.input = std::string(a.substr(2));
    } else if (a == "-f" || a == "--force") {
      r.force = true;
    } else if (const std::string msg = perf_not_yet(command, a); !msg.empty()) {
      fmt::print(stderr, "perfx {}: {}\n", command, msg);
      r.exit = kUsageExit;
      return r;
    } else {
      fmt::print(stderr, "perfx {}: unknown option: {}\n{}", command, a, usage);
      r.exit = kUsageExit;
      return r;
    }
  }
  if (i >= argc) {
    fmt::print(stderr, "{}", usage);
    r.exit = kUsageExit;
  }
  r.sub = i;
  return r;
}

int unknown_subcommand(std::string_view command, std::string_view sub,
                       const std::vector<std::string>& names, std::string_view usage) {
  const std::string near = nearest_name(sub, names);
  fmt::print(stderr, "perfx {}: unknown subcommand '{}'{}\n{}", command, sub,
             near.empty() ? "" : "; did you mean '" + near + "'?", usage);
  return kUsageExit;
}

int run_subcommand(int argc, char** argv, std::string_view command, std::string_view usage,
                   const std::vector<Subcommand>& subs) {
  const LeadingArgs lead = parse_leading_args(argc, argv, command, usage);
  if (lead.exit) return *lead.exit;
  const int i = lead.sub;
  const std::string_view sub = argv[i];
  std::vector<std::string> names;
  for (const auto& s : subs) {
    names.emplace_back(s.names.front());
    if (std::find(s.names.begin(), s.names.end(), sub) == s.names.end()) continue;
    std::string prog = fmt::format("perfx {} {}", command, sub);
    argv[i] = prog.data();
    if (s.records && parse_only) return 0;
    return s.run(lead, argc - i, argv + i);
  }
  return unknown_subcommand(command, sub, names, usage);
}

namespace {

// The registered command `target` run with `args` (args[0] its program name).
int run_registered(std::string_view command, std::string_view target,
                   std::vector<std::string> args) {
  std::vector<char*> cargs;
  for (auto& a : args) cargs.push_back(a.data());
  cargs.push_back(nullptr);
  for (const auto& c : commands()) {
    if (c.name == target) return c.run(static_cast<int>(args.size()), cargs.data());
  }
  fmt::print(stderr, "perfx {}: the {} command is missing from this build\n", command, target);
  return 1;
}

}  // namespace

int run_record_with(std::string_view command, std::vector<std::string> front, int argc,
                    char** argv) {
  for (int i = 1; i < argc; ++i) front.emplace_back(argv[i]);
  return run_registered(command, "record", std::move(front));
}

int run_script_alias(const LeadingArgs& lead, int argc, char** argv) {
  std::vector<std::string> args{"perfx script"};
  if (lead.input != LeadingArgs{}.input) args.insert(args.end(), {"-i", lead.input});
  if (lead.force) args.emplace_back("-f");
  for (int i = 1; i < argc; ++i) args.emplace_back(argv[i]);
  return run_registered(argv[0], "script", std::move(args));
}
}  // namespace perfx::cli
