// perfx buildid-list: perf buildid-list, the build-ids a recording holds (-H only those
// of DSOs with samples), or the running kernel's (-k).
// CLI11's inlined std::string code trips GCC 12's -Wnull-dereference at -O2 (a false
// positive inside libstdc++).
#pragma GCC diagnostic ignored "-Wnull-dereference"

#include <fmt/core.h>
#include <CLI/CLI.hpp>

#include <set>
#include <string>

#include "command.hpp"
#include "core/error_format.hpp"
#include "option_prefix.hpp"
#include "perf_options.hpp"
#include "profile/load.hpp"
#include "record/ownership_check.hpp"
#include "record/perf_data_reader.hpp"
#include "report/buildid_list.hpp"
#include "symbol/dso.hpp"

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
    const std::string id = symbol::running_kernel_build_id(symbol::SearchPaths{}.kernel_notes);
    if (id.empty()) return fail("the running kernel's build-id is unknown (no /sys/kernel/notes)");
    fmt::print("{}\n", id);
    return 0;
  }
  if (auto owner = record::check_input_owner(input, force); !owner)
    return fail(owner.error().message());
  auto reader = record::PerfDataReader::open(input);
  if (!reader) return fail(reader.error().message());
  if (reader->is_pipe()) {
    // A stream can be read once: its build-ids (HEADER_FEATURE / HEADER_BUILD_ID records)
    // and, as perf does in pipe mode, those of the DSOs its samples hit.
    profile::LoadOptions lo;
    lo.callchains = false;
    lo.aggregate = true;
    auto prof = profile::load_profile_from(*reader, lo);
    if (!prof) return fail(prof.error().message());
    fmt::print("{}", report::buildid_list_text(reader->features(), *prof, with_hits));
    if (!prof->damage.empty()) return fail(prof->damage);
    return 0;
  }
  if (!with_hits) {
    fmt::print("{}", report::buildid_list_text(reader->features(), nullptr));
    return 0;
  }
  // -H: the DSOs the samples' instruction pointers fell in (perf marks those only).
  profile::LoadOptions lo;
  lo.callchains = false;
  lo.aggregate = true;
  auto prof = profile::load_profile(input, lo);
  if (!prof) return fail(prof.error().message());
  const std::set<std::string> hit = report::sampled_dsos(*prof);
  fmt::print("{}", report::buildid_list_text(reader->features(), &hit));
  return 0;
}

const Registration kReg{
    {"buildid-list", "List the build-ids of a perf.data", &run_buildid_list, true}};

}  // namespace
}  // namespace perfx::cli
