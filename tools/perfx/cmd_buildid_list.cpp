// perfx buildid-list: perf buildid-list, the build-ids a recording holds (-H only those
// of DSOs with samples), or the running kernel's (-k).
// CLI11's inlined std::string code trips GCC 12's -Wnull-dereference at -O2 (a false
// positive inside libstdc++).
#pragma GCC diagnostic ignored "-Wnull-dereference"

#include <fmt/core.h>
#include <CLI/CLI.hpp>

#include <iostream>
#include <string>

#include "command.hpp"
#include "option_prefix.hpp"
#include "perf_options.hpp"
#include "perfx/perf_text.hpp"
#include "perfx/recording.hpp"

namespace perfx::cli {
namespace {

int run_buildid_list(int argc, char** argv) {
  CLI::App app{"List the build-ids of a perf.data (like perf buildid-list)", "perfx buildid-list"};
  std::string input = "perf.data";
  bool force = false, with_hits = false, kernel = false, kernel_maps = false;
  int verbose = 0;
  app.add_option("-i,--input", input, "input file name (default perf.data)");
  app.add_flag("-H,--with-hits", with_hits, "only DSOs with samples");
  app.add_flag("-k,--kernel", kernel, "the running kernel's build-id");
  app.add_flag("-m,--kernel-maps", kernel_maps, "not supported");
  app.add_flag("-f,--force", force, "read a perf.data not owned by the current user or root");
  app.add_flag("-v,--verbose", verbose, "accepted for perf's habit");
  try {
    parse_args(app, argc, argv);
  } catch (const CLI::ParseError& e) {
    return usage_exit(app, e);
  }
  if (parse_only) return 0;  // CLI fuzz target: options only (command.hpp)
  (void)verbose;
  auto fail = [](const std::string& msg) {
    fmt::print(stderr, "perfx buildid-list: {}\n", msg);
    return 1;
  };
  if (kernel_maps) return fail("-m/--kernel-maps is not supported");
  if (kernel) {
    const std::string id = running_kernel_build_id();
    if (id.empty()) return fail("the running kernel's build-id is unknown (no /sys/kernel/notes)");
    fmt::print("{}\n", id);
    return 0;
  }
  auto rec = Recording::open(input, {force});
  if (!rec) return fail(rec.error().message());
  auto ok = write_buildid_list(*rec, std::cout, with_hits);
  std::cout.flush();
  if (!ok) return fail(ok.error().message());
  return 0;
}

const Registration kReg{
    {"buildid-list", "List the build-ids of a perf.data", &run_buildid_list, true}};

}  // namespace
}  // namespace perfx::cli
