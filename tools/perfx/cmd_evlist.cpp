// perfx evlist: perf evlist, the events of a recording (-v their attrs, -F their
// frequency, -g their groups).
// CLI11's inlined std::string code trips GCC 12's -Wnull-dereference at -O2 (a false
// positive inside libstdc++).
#pragma GCC diagnostic ignored "-Wnull-dereference"

#include <fmt/core.h>
#include <CLI/CLI.hpp>

#include <string>

#include "command.hpp"
#include "option_prefix.hpp"
#include "perf_options.hpp"
#include "perfx/perf_text.hpp"
#include "perfx/recording.hpp"

namespace perfx::cli {
namespace {

int run_evlist(int argc, char** argv) {
  CLI::App app{"List the events of a perf.data (like perf evlist)", "perfx evlist"};
  std::string input = "perf.data";
  EvlistOptions o;
  bool force = false;
  app.add_option("-i,--input", input, "input file name (default perf.data)");
  app.add_flag("-v,--verbose", o.verbose, "show all event attr details");
  app.add_flag("-F,--freq", o.freq, "show the sample frequency");
  app.add_flag("-g,--group", o.group, "show event group information");
  app.add_flag("-f,--force", force, "read a perf.data not owned by the current user or root");
  app.add_flag("--trace-fields", o.trace_fields, "show the fields of tracepoint events");
  try {
    parse_args(app, argc, argv);
  } catch (const CLI::ParseError& e) {
    return usage_exit(app, e);
  }
  if (parse_only) return 0;  // CLI fuzz target: options only (command.hpp)
  auto fail = [](const std::string& msg) {
    fmt::print(stderr, "perfx evlist: {}\n", msg);
    return 1;
  };
  auto rec = Recording::open(input, {force});
  if (!rec) return fail(rec.error().message());
  auto text = evlist_text(*rec, o);
  if (!text) return fail(text.error().message());
  fmt::print("{}", *text);
  return 0;
}

const Registration kReg{{"evlist", "List the events of a perf.data", &run_evlist, true}};

}  // namespace
}  // namespace perfx::cli
