#include "subcommand_args.hpp"

#include <fmt/core.h>

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

}  // namespace perfx::cli
