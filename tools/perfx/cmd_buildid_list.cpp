// perfx buildid-list: perf buildid-list, the build-ids a recording holds (-H only those
// of DSOs with samples), or the running kernel's (-k).

#include <iostream>
#include <string>

#include "command_front.hpp"
#include "perfx/perf_text.hpp"
#include "perfx/recording.hpp"

namespace perfx::cli {
namespace {

int run_buildid_list(int argc, char** argv) {
  CLI::App app{"List the build-ids of a perf.data (like perf buildid-list)", "perfx buildid-list"};
  ReaderArgs in;
  bool with_hits = false, kernel = false, kernel_maps = false;
  add_reader_options(app, in, kInputOption | kForceOption | kVerboseOption);
  add_switches(app, {{"-H,--with-hits", &with_hits, "only DSOs with samples"},
                     {"-k,--kernel", &kernel, "the running kernel's build-id"},
                     {"-m,--kernel-maps", &kernel_maps, "not supported"}});
  if (auto rc = CommandFront::parse(app, argc, argv)) return *rc;
  const CommandFront cmd{"buildid-list"};
  if (kernel_maps) return cmd.fail("-m/--kernel-maps is not supported");
  if (kernel) {
    const std::string id = running_kernel_build_id();
    if (id.empty())
      return cmd.fail("the running kernel's build-id is unknown (no /sys/kernel/notes)");
    fmt::print("{}\n", id);
    return 0;
  }
  auto rec = Recording::open(in.input, {in.force});
  if (!rec) return cmd.fail(rec.error().message());
  auto ok = write_buildid_list(*rec, std::cout, with_hits);
  std::cout.flush();
  if (!ok) return cmd.fail(ok.error().message());
  return 0;
}

const Registration kReg{
    {"buildid-list", "List the build-ids of a perf.data", &run_buildid_list, true}};

}  // namespace
}  // namespace perfx::cli
