// perf's options and commands, as perf 6.1 lists them: the rows are generated into
// data/*.inc by tools/perfx/data/gen_perf_options.sh (see there); this file only holds them.
#include "perf_options.hpp"

namespace perfx::cli {

const std::vector<PerfOption>& perf_options() {
  static const std::vector<PerfOption> kTable = {
#include "data/perf_options.inc"
  };
  return kTable;
}

const std::vector<std::string_view>& perf_commands() {
  static const std::vector<std::string_view> kCommands = {
#include "data/perf_commands.inc"
  };
  return kCommands;
}

}  // namespace perfx::cli
