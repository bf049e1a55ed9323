// perfx list: every event usable here, grouped like perf list, each probed with a quick
// perf_event_open to say whether it works on this machine (perfx::list_events).

#include <string>

#include "command_front.hpp"
#include "perfx/events.hpp"

namespace perfx::cli {
namespace {

int run_list(int argc, char** argv) {
  CLI::App app{"List the events usable here, and whether each one opens (like perf list)",
               "perfx list"};
  bool json = false;
  bool desc = false;
  bool no_probe = false;
  bool full_probe = false;
  std::string filter;
  add_switches(app,
               {{"--json", &json, "print a JSON array (documented in docs/events.md)"},
                {"-d,--desc", &desc, "print a description under each event"},
                {"--no-probe", &no_probe, "do not open each event to check it works"},
                {"--full-probe", &full_probe,
                 "really open every tracepoint and a real uprobe (slow: closing each waits for "
                 "an RCU grace period, tens of ms); see docs/events.md"}});
  app.add_option("filter", filter,
                 "glob ('sched:*'), substring, or class: hw, sw, cache, pmu, tracepoint, "
                 "breakpoint, raw, uprobe");
  if (auto rc = CommandFront::parse(app, argc, argv)) return *rc;

  ListEventsOptions options;
  options.filter = filter;
  options.probe = !no_probe;
  options.full_probe = full_probe;
  auto events = list_events(options);
  const CommandFront cmd{"list"};
  if (!events) return cmd.fail(events.error().message());
  if (events->empty() && !filter.empty()) {
    // perf list prints nothing and exits 0 here; a note on stderr says why it is empty.
    fmt::print(stderr, "perfx list: no event matches '{}'\n", filter);
  }
  if (json) {
    fmt::print("{}", format_event_list_json(*events));
  } else {
    fmt::print("{}",
               format_event_list_text(*events, {.descriptions = desc, .banner = filter.empty()}));
  }
  return 0;
}

const Registration kReg{{"list", "List the events usable on this machine", &run_list, true}};

}  // namespace
}  // namespace perfx::cli
