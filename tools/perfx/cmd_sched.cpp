// perfx sched: perf sched's record, latency, timehist and map (include/perfx/sched.hpp;
// docs/sched.md says where the numbers differ from perf 6.1's and why).
#pragma GCC diagnostic ignored "-Wnull-dereference"  // CLI11 under GCC 12, see option_prefix.hpp

#include <fmt/core.h>
#include <CLI/CLI.hpp>

#include <string>
#include <string_view>
#include <vector>

#include "command.hpp"
#include "option_prefix.hpp"
#include "perf_options.hpp"
#include "perfx/sched.hpp"
#include "subcommand_args.hpp"

namespace perfx::cli {
namespace {

constexpr std::string_view kUsage =
    "usage: perfx sched [-i FILE] {record|latency|timehist|map} [<options>]\n\n"
    "   record     record scheduler events (perfx record -a with the sched tracepoints)\n"
    "   latency    per-task runtime, switches and wakeup-to-run delays\n"
    "   timehist   one line per context switch: wait time, scheduling delay, run time\n"
    "   map        the task running on each cpu at every switch\n";

// The events perf sched record takes (plus sched_wakeup and sched_process_exec/exit, so
// that a kernel without sched_waking still gives wakeups; the models prefer sched_waking).
constexpr const char* kSchedEvents[] = {
    "sched:sched_switch",       "sched:sched_stat_runtime", "sched:sched_process_fork",
    "sched:sched_process_exec", "sched:sched_process_exit", "sched:sched_wakeup",
    "sched:sched_wakeup_new",   "sched:sched_waking",       "sched:sched_migrate_task"};

int error(std::string_view msg) {
  fmt::print(stderr, "perfx sched: {}\n", msg);
  return 1;
}

// Runs `perfx record` with perf sched record's options in front of the user's.
int run_record_with(const std::vector<std::string>& front, int argc, char** argv, int first) {
  std::vector<std::string> args = front;
  for (int i = first; i < argc; ++i) args.emplace_back(argv[i]);
  std::vector<char*> cargs;
  for (auto& a : args) cargs.push_back(a.data());
  cargs.push_back(nullptr);
  for (const auto& c : commands()) {
    if (c.name == "record") return c.run(static_cast<int>(args.size()), cargs.data());
  }
  return error("the record command is missing from this build");
}

int sched_record(int argc, char** argv, int first) {
  // -P: with the period in the samples the kernel writes one sample per sched_stat_runtime
  // (its count is the runtime in ns), not one per nanosecond up to the throttle.
  std::vector<std::string> front = {"perfx record", "-a", "-R", "-P", "-m", "1024", "-c", "1"};
  for (const char* ev : kSchedEvents) {
    front.emplace_back("-e");
    front.emplace_back(ev);
  }
  return run_record_with(front, argc, argv, first);
}

Result<SchedTrace> load(const std::string& input) {
  auto trace = load_sched_trace(input);
  if (trace && !trace->damage.empty()) {
    fmt::print(stderr, "perfx sched: warning: {}; analysing the events that could be read\n",
               trace->damage);
  }
  if (trace && trace->malformed != 0) {
    fmt::print(stderr, "perfx sched: {} records of {} did not decode and were skipped\n",
               trace->malformed, input);
  }
  return trace;
}

int sched_latency_cmd(std::string input, int argc, char** argv) {
  CLI::App app{"Per-task scheduling latency (like perf sched latency)", "perfx sched latency"};
  std::string sort = "avg, max, switch, runtime";
  SchedLatencyOptions o;
  app.add_option("-i,--input", input, "input file name (default perf.data)");
  app.add_option("-s,--sort", sort, "sort by keys: pid, avg, max, switch, runtime");
  app.add_flag("-p,--pids", o.per_pid, "latency stats per pid instead of per command name");
  try {
    parse_args(app, argc, argv);
  } catch (const CLI::ParseError& e) {
    return usage_exit(app, e);
  }
  o.sort.clear();
  for (std::size_t pos = 0; pos <= sort.size();) {
    const std::size_t comma = std::min(sort.find(',', pos), sort.size());
    std::string key = sort.substr(pos, comma - pos);
    key.erase(0, key.find_first_not_of(" \t"));
    key.erase(key.find_last_not_of(" \t") + 1);
    if (!key.empty()) o.sort.push_back(key);
    pos = comma + 1;
  }
  if (auto ok = check_sched_latency_sort(o.sort); !ok) {
    fmt::print(stderr, "perfx sched latency: {}\n", ok.error().message());
    return kUsageExit;
  }
  if (parse_only) return 0;
  auto trace = load(input);
  if (!trace) return error(trace.error().message());
  fmt::print("{}", format_sched_latency(sched_latency(*trace, o)));
  return 0;
}

int sched_timehist_cmd(std::string input, int argc, char** argv) {
  CLI::App app{"Per-switch scheduling times (like perf sched timehist)", "perfx sched timehist"};
  SchedTimehistOptions o;
  bool summary = false, with_summary = false;
  app.add_option("-i,--input", input, "input file name (default perf.data)");
  app.add_flag("-s,--summary", summary, "show only the summary with statistics");
  app.add_flag("-S,--with-summary", with_summary, "show the summary after the lines");
  app.add_flag("-w,--wakeups", o.wakeups, "show wakeup events");
  app.add_flag("-M,--migrations", o.migrations, "show migration events");
  try {
    parse_args(app, argc, argv);
  } catch (const CLI::ParseError& e) {
    return usage_exit(app, e);
  }
  if (parse_only) return 0;
  auto trace = load(input);
  if (!trace) return error(trace.error().message());
  fmt::print("{}", format_sched_timehist(sched_timehist(*trace, o), with_summary, summary));
  return 0;
}

int sched_map_cmd(std::string input, int argc, char** argv) {
  CLI::App app{"The task on each cpu at every switch (like perf sched map)", "perfx sched map"};
  app.add_option("-i,--input", input, "input file name (default perf.data)");
  try {
    parse_args(app, argc, argv);
  } catch (const CLI::ParseError& e) {
    return usage_exit(app, e);
  }
  if (parse_only) return 0;
  auto trace = load(input);
  if (!trace) return error(trace.error().message());
  fmt::print("{}", format_sched_map(*trace));
  return 0;
}

int run_sched(int argc, char** argv) {
  const LeadingArgs lead = parse_leading_args(argc, argv, "sched", kUsage);
  if (lead.exit) return *lead.exit;
  const std::string& input = lead.input;
  const int i = lead.sub;
  const std::string_view sub = argv[i];
  std::string prog = "perfx sched " + std::string(sub);
  argv[i] = prog.data();
  const int sub_argc = argc - i;
  char** sub_argv = argv + i;
  if (sub == "record" || sub == "rec") {
    if (parse_only) return 0;
    return sched_record(argc, argv, i + 1);
  }
  if (sub == "latency" || sub == "lat") return sched_latency_cmd(input, sub_argc, sub_argv);
  if (sub == "timehist") return sched_timehist_cmd(input, sub_argc, sub_argv);
  if (sub == "map") return sched_map_cmd(input, sub_argc, sub_argv);
  return unknown_subcommand("sched", sub, {"record", "latency", "timehist", "map"}, kUsage);
}

const Registration kReg{
    {"sched", "Scheduler latency, per-switch times and cpu map", &run_sched, true}};

}  // namespace
}  // namespace perfx::cli
