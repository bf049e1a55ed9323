#pragma once
// The sample filters of the commands that read a perf.data (report, script, annotate,
// diff): perf's --comms, --pid, --tid, --cpu, --dsos, --symbols and --time, declared and
// parsed in one place. perf spells some of them differently per command (diff's -C is
// --comms, script's --dsos has no -d): FilterSpelling says which a command takes.
#pragma GCC diagnostic ignored "-Wnull-dereference"  // CLI11 under GCC 12, see option_prefix.hpp

#include <CLI/CLI.hpp>

#include <cstdint>
#include <string>
#include <vector>

#include "perfx/recording.hpp"

namespace perfx::cli {

/// Where SampleFilters::parse() puts each filter, in the library's option structs; null:
/// the command does not take that filter.
struct FilterTargets {
  ThreadFilter* threads = nullptr;              ///< --comms, --pid, --tid
  std::vector<std::uint32_t>* cpus = nullptr;   ///< --cpu
  std::vector<std::string>* dsos = nullptr;     ///< --dsos
  std::vector<std::string>* symbols = nullptr;  ///< --symbols
  std::string* time = nullptr;                  ///< --time
};

/// The filters as given on the command line.
struct SampleFilters {
  std::string comms, pids, tids, cpus, dsos, symbols, time;

  /// Parses the lists into `to`: "bad --pid 'X'" (then --tid, --cpu) for the first bad
  /// one; with `check_time`, then the --time windows (check_time_windows()).
  [[nodiscard]] Result<void> parse(const FilterTargets& to, bool check_time = true) const;
};

/// The names under which a command takes each filter; nullptr: it does not take it.
struct FilterSpelling {
  const char* comms = "-c,--comms";
  const char* dsos = "-d,--dsos";
  const char* symbols = "-S,--symbols";
  const char* cpu = "-C,--cpu";
  bool threads = true;  ///< --pid and --tid
  bool time = true;     ///< --time
};

/// Adds the filter options `names` offers to `app`, bound to `f`'s text fields.
void add_filter_options(CLI::App& app, SampleFilters& f, const FilterSpelling& names = {});

}  // namespace perfx::cli
