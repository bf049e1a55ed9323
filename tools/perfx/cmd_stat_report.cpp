// perfx stat report: a `stat record` perf.data -> the counts the live stat printed
// (perfx/stat_record.hpp: read_stat_recording, stat_recording_printouts; stat.hpp's format).
#include <algorithm>
#include <clocale>
#include <cstdio>
#include <numeric>
#include <optional>
#include <string>
#include <vector>

#include "command_front.hpp"
#include "perfx/stat.hpp"
#include "perfx/stat_record.hpp"
#include "perfx/system.hpp"
#include "stat_cli.hpp"

namespace perfx::cli {

bool is_stat_subcommand(std::string_view word, std::string_view sub) {
  return word.size() > 2 && sub.starts_with(word);  // perf: strlen > 2 && strstarts
}

std::string locale_thousands_sep() {
  // perf runs with setlocale(LC_ALL, ""): "%'" groups digits as the locale says.
  std::string sep;
  if (std::setlocale(LC_NUMERIC, "") != nullptr) {
    if (const std::lconv* lc = std::localeconv(); lc != nullptr && lc->thousands_sep != nullptr)
      sep = lc->thousands_sep;
  }
  std::setlocale(LC_NUMERIC, "C");
  return sep;
}

int run_stat_report(int argc, char** argv) {
  const CommandFront cmd{"stat report"};
  CLI::App app{"Print the counts of a 'perfx stat record' (or perf stat record) perf.data",
               "perfx stat report"};
  std::string input = "perf.data";
  app.add_option("-i,--input", input, "input file name")->capture_default_str();
  std::optional<StatAggr> aggr;
  // perf's OPT_SET_UINT: the last of them wins.
  const std::pair<const char*, StatAggr> modes[] = {{"-A,--no-aggr", StatAggr::kPerCpu},
                                                    {"--per-socket", StatAggr::kPerSocket},
                                                    {"--per-die", StatAggr::kPerDie},
                                                    {"--per-core", StatAggr::kPerCore},
                                                    {"--per-node", StatAggr::kPerNode}};
  const char* const helps[] = {
      "disable CPU count aggregation", "aggregate counts per processor socket",
      "aggregate counts per processor die", "aggregate counts per physical processor core",
      "aggregate counts per numa node"};
  for (std::size_t i = 0; i < std::size(modes); ++i) {
    app.add_flag_callback(
        modes[i].first, [&aggr, m = modes[i].second] { aggr = m; }, helps[i]);
  }
  if (auto rc = CommandFront::parse(app, argc, argv)) return *rc;

  auto rec = read_stat_recording(input);
  if (!rec) return cmd.fail(rec.error().message());
  const bool task_data =
      std::all_of(rec->cpus.begin(), rec->cpus.end(), [](int c) { return c < 0; });
  if (aggr && task_data)
    fmt::print(stderr, "warning: processing task data, aggregation mode not set\n");
  std::vector<CpuPlace> places;  // a file without CPU_TOPOLOGY (a pipe): this machine's
  if (aggr && aggregates_cpus(*aggr) && rec->cpu_places.empty()) {
    auto online = online_cpus();
    if (!online) return cmd.fail(online.error().message());
    std::vector<int> numbers(static_cast<std::size_t>(online->back()) + 1);
    std::iota(numbers.begin(), numbers.end(), 0);
    places = cpu_places(numbers);
  }
  StatFormatOptions fopts;
  fopts.thousands_sep = locale_thousands_sep();
  // perf stat report prints to stderr, as the live stat.
  for (const auto& p : stat_recording_printouts(*rec, aggr, places)) {
    fmt::print(stderr, "{}",
               p.interval ? format_stat_interval(p.report, fopts, p.time_s, p.header)
                          : format_stat(p.report, fopts));
  }
  return 0;
}

}  // namespace perfx::cli
