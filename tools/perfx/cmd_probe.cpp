// perfx probe: perf probe's add (-a / PROBEDEF), list (-l), delete (-d) and
// definition (-D) of dynamic uprobes and kprobes, through perfx/probe.hpp.

#include <string>
#include <vector>

#include "command_front.hpp"
#include "perfx/probe.hpp"

namespace perfx::cli {
namespace {

const CommandFront cmd{"probe"};

// perf's "(on f in /tmp/pp)" / "(on 0x1139 in /tmp/pp with x)".
std::string describe(const ProbeDefinition& d) {
  std::string place = d.place;
  if (place.empty()) {
    place = d.type == ProbeType::kUprobe ? fmt::format("{:#x}", d.offset)
            : d.target.empty()           ? fmt::format("{:#x}", d.offset)
            : d.offset != 0              ? fmt::format("{}+{}", d.target, d.offset)
                                         : d.target;
    if (d.retprobe) place += "%return";
  }
  std::string out = fmt::format("  {:<20} (on {}", d.name(), place);
  if (d.type == ProbeType::kUprobe) out += " in " + d.target;
  if (!d.args.empty()) {
    out += " with";
    for (const auto& a : d.args) out += " " + a.substr(0, a.find('='));
  }
  return out + ")";
}

int run_probe(int argc, char** argv) {
  CLI::App app{"Define, list and delete dynamic probes (like perf probe)", "perfx probe"};
  std::string exec;
  std::vector<std::string> adds;
  std::vector<std::string> dels;
  std::vector<std::string> definitions;
  std::vector<std::string> words;
  bool list = false;
  std::vector<std::string> list_filter;
  bool force = false;
  bool dry_run = false;
  bool quiet = false;
  std::string tracefs;
  app.add_option("-x,--exec", exec, "target executable or library (uprobes)");
  app.add_option("-a,--add", adds,
                 "probe point: [[GROUP:]EVENT=]FUNC[+OFF|%return]|SRC:LINE [[NAME=]ARG ...]")
      ->allow_extra_args(false);
  app.add_option("-d,--del", dels, "delete probes: [GROUP:]EVENT (globs allowed)")
      ->allow_extra_args(false);
  app.add_option("-D,--definition", definitions,
                 "show the tracefs definition of a probe point, define nothing")
      ->allow_extra_args(false);
  auto* list_opt =
      app.add_flag("-l,--list", list, "list the defined probes ([GROUP:]EVENT filters)");
  add_switches(app, {{"-f,--force", &force, "add an event whose name exists, as <name>_N"},
                     {"-n,--dry-run", &dry_run, "resolve and show, define nothing"},
                     {"-q,--quiet", &quiet, "no messages but errors"}});
  app.add_option("--tracefs", tracefs, "tracefs root (default: found in /proc/mounts)");
  app.add_option("probedef", words, "a probe point, as -a (its words may be split)");
  if (auto rc = CommandFront::parse(app, argc, argv)) return *rc;
  SystemPaths paths;
  paths.tracefs = tracefs;
  // perf probe joins the bare words into one PROBEDEF: `perf probe -x prog f x`.
  if (!words.empty()) {
    if (list_opt->count() > 0) {
      list_filter = words;
    } else {
      std::string def;
      for (const auto& w : words) def += (def.empty() ? "" : " ") + w;
      adds.push_back(def);
    }
  }
  const int modes = (adds.empty() ? 0 : 1) + (dels.empty() ? 0 : 1) + (list ? 1 : 0) +
                    (definitions.empty() ? 0 : 1);
  if (modes != 1) {
    return cmd.usage_error("give one of PROBEDEF/-a, -d, -l or -D (see 'perfx probe -h')");
  }
  int rc = 0;
  if (list) {
    auto all = list_probes(paths);
    if (!all) return cmd.fail(all.error().message());
    for (const auto& d : *all) {
      bool keep = list_filter.empty();
      for (const auto& f : list_filter) keep = keep || d.matches(f);
      if (keep) fmt::print("{}\n", describe(d));
    }
    return 0;
  }
  for (const auto& pattern : dels) {
    auto removed = delete_probes(pattern, paths);
    if (!removed) {
      rc = cmd.fail(removed.error().message());
      continue;
    }
    if (!quiet)
      for (const auto& n : *removed) fmt::print(stderr, "Removed event: {}\n", n);
  }
  for (const auto& def : definitions) {
    auto d = resolve_probe(ProbeRequest{exec, def, {}, force});
    if (!d) {
      rc = cmd.fail(d.error().message());
      continue;
    }
    fmt::print("{}\n", d->definition());
  }
  std::vector<ProbeDefinition> added;
  for (const auto& def : adds) {
    const ProbeRequest req{exec, def, {}, force};
    auto d = dry_run ? resolve_probe(req) : add_probe(req, paths);
    if (!d) {
      rc = cmd.fail(d.error().message());
      break;
    }
    added.push_back(std::move(*d));
  }
  if (!added.empty() && !quiet) {
    fmt::print(stderr, "{}:\n", added.size() == 1 ? "Added new event" : "Added new events");
    for (const auto& d : added) fmt::print(stderr, "{}\n", describe(d));
    fmt::print(stderr,
               "\nYou can now use it in all perfx tools, such as:\n\n"
               "\tperfx record -e {} -aR sleep 1\n\n",
               added.back().name());
  }
  return rc;
}

const Registration kReg{{"probe", "Define new dynamic tracepoints", &run_probe}};

}  // namespace
}  // namespace perfx::cli
