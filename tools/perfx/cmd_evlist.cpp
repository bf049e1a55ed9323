// perfx evlist: perf evlist, the events of a recording (-v their attrs, -F their
// frequency, -g their groups).

#include <string>

#include "command_front.hpp"
#include "perfx/perf_text.hpp"
#include "perfx/recording.hpp"

namespace perfx::cli {
namespace {

int run_evlist(int argc, char** argv) {
  CLI::App app{"List the events of a perf.data (like perf evlist)", "perfx evlist"};
  ReaderArgs in;
  EvlistOptions o;
  add_reader_options(app, in, kInputOption | kForceOption);
  add_switches(app, {{"-v,--verbose", &o.verbose, "show all event attr details"},
                     {"-F,--freq", &o.freq, "show the sample frequency"},
                     {"-g,--group", &o.group, "show event group information"},
                     {"--trace-fields", &o.trace_fields, "show the fields of tracepoint events"}});
  if (auto rc = CommandFront::parse(app, argc, argv)) return *rc;
  const CommandFront cmd{"evlist"};
  auto rec = Recording::open(in.input, {in.force});
  if (!rec) return cmd.fail(rec.error().message());
  auto text = evlist_text(*rec, o);
  if (!text) return cmd.fail(text.error().message());
  fmt::print("{}", *text);
  return 0;
}

const Registration kReg{{"evlist", "List the events of a perf.data", &run_evlist, true}};

}  // namespace
}  // namespace perfx::cli
