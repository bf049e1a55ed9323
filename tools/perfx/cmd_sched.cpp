// perfx sched: perf sched's record, latency, timehist and map (include/perfx/sched.hpp;
// docs/sched.md says where the numbers differ from perf 6.1's and why).

#include <charconv>
#include <functional>
#include <string>
#include <string_view>
#include <vector>

#include "command_front.hpp"
#include "perfx/sched.hpp"
#include "perfx/system.hpp"
#include "subcommand_args.hpp"

namespace perfx::cli {
namespace {

constexpr std::string_view kUsage =
    "usage: perfx sched [-i FILE] [-f] {record|latency|timehist|map|script} [<options>]\n\n"
    "   record     record scheduler events (perfx record -a with the sched tracepoints)\n"
    "   latency    per-task runtime, switches and wakeup-to-run delays\n"
    "   timehist   one line per context switch: wait time, scheduling delay, run time\n"
    "   map        the task running on each cpu at every switch\n"
    "   script     the recording's events (perfx script)\n";

// The events perf sched record takes (plus sched_wakeup and sched_process_exec/exit, so
// that a kernel without sched_waking still gives wakeups; the models prefer sched_waking).
constexpr const char* kSchedEvents[] = {
    "sched:sched_switch",       "sched:sched_stat_runtime", "sched:sched_process_fork",
    "sched:sched_process_exec", "sched:sched_process_exit", "sched:sched_wakeup",
    "sched:sched_wakeup_new",   "sched:sched_waking",       "sched:sched_migrate_task"};

const CommandFront cmd{"sched"};

// perf's intlist of -p/-t: comma-separated numbers, 0 (the idle task) included.
Result<std::vector<std::int32_t>> id_list(std::string_view text) {
  std::vector<std::int32_t> out;
  for (std::size_t pos = 0; pos <= text.size();) {
    const std::size_t comma = std::min(text.find(',', pos), text.size());
    const std::string_view word = text.substr(pos, comma - pos);
    pos = comma + 1;
    if (word.empty()) continue;  // "1,,2", as perf's strtok
    std::int32_t id = -1;
    const auto [end, ec] = std::from_chars(word.data(), word.data() + word.size(), id);
    if (ec != std::errc() || end != word.data() + word.size() || id < 0)
      return fail(Errc::kInvalidArgument, fmt::format("'{}' is not a number", word));
    out.push_back(id);
  }
  if (out.empty()) return fail(Errc::kInvalidArgument, "no number in it");
  return out;
}

// `perfx record` with perf sched record's options in front of the user's.
int sched_record(const LeadingArgs& /*lead*/, int argc, char** argv) {
  // -P: with the period in the samples the kernel writes one sample per sched_stat_runtime
  // (its count is the runtime in ns), not one per nanosecond up to the throttle.
  std::vector<std::string> front = {"perfx record", "-a", "-R", "-P", "-m", "1024", "-c", "1"};
  for (const char* ev : kSchedEvents) {
    front.emplace_back("-e");
    front.emplace_back(ev);
  }
  return run_record_with("sched", front, argc, argv);
}

Result<SchedTrace> load(const std::string& input, bool force) {
  auto trace = load_sched_trace(input, force);
  if (trace && !trace->damage.empty()) {
    cmd.warn(fmt::format("{}; analysing the events that could be read", trace->damage));
  }
  if (trace && trace->malformed != 0) {
    cmd.say(
        fmt::format("{} records of {} did not decode and were skipped", trace->malformed, input));
  }
  return trace;
}

// A report subcommand once its options are declared: parses them (`check` as
// CommandFront::parse), loads INPUT and prints what `show` makes of it.
int sched_report(CLI::App& app, int argc, char** argv, LeadingArgs lead,
                 const std::function<Result<std::string>(const SchedTrace&)>& show,
                 const std::function<std::string()>& check = {}) {
  app.add_option("-i,--input", lead.input, "input file name (default perf.data)");
  app.add_flag("-f,--force", lead.force, "read a file another user owns");
  if (auto rc = CommandFront::parse(app, argc, argv, check)) return *rc;
  auto trace = load(lead.input, lead.force);
  if (!trace) return cmd.fail(trace.error().message());
  auto text = show(*trace);
  if (!text) return cmd.fail(text.error().message());
  fmt::print("{}", *text);
  return 0;
}

int sched_latency_cmd(const LeadingArgs& lead, int argc, char** argv) {
  CLI::App app{"Per-task scheduling latency (like perf sched latency)", "perfx sched latency"};
  std::string sort = "avg, max, switch, runtime";
  SchedLatencyOptions o;
  app.add_option("-s,--sort", sort, "sort by keys: pid, avg, max, switch, runtime");
  app.add_flag("-p,--pids", o.per_pid, "latency stats per pid instead of per command name");
  auto check = [&]() -> std::string {
    o.sort.clear();
    for (std::size_t pos = 0; pos <= sort.size();) {
      const std::size_t comma = std::min(sort.find(',', pos), sort.size());
      std::string key = sort.substr(pos, comma - pos);
      key.erase(0, key.find_first_not_of(" \t"));
      key.erase(key.find_last_not_of(" \t") + 1);
      if (!key.empty()) o.sort.push_back(key);
      pos = comma + 1;
    }
    auto ok = check_sched_latency_sort(o.sort);
    return ok ? "" : ok.error().message();
  };
  auto show = [&](const SchedTrace& t) { return format_sched_latency(sched_latency(t, o)); };
  return sched_report(app, argc, argv, lead, show, check);
}

int sched_timehist_cmd(const LeadingArgs& lead, int argc, char** argv) {
  CLI::App app{"Per-switch scheduling times (like perf sched timehist)", "perfx sched timehist"};
  SchedTimehistOptions o;
  bool summary = false, with_summary = false;
  app.add_flag("-s,--summary", summary, "show only the summary with statistics");
  app.add_flag("-S,--with-summary", with_summary, "show the summary after the lines");
  app.add_flag("-w,--wakeups", o.wakeups, "show wakeup events");
  app.add_flag("-M,--migrations", o.migrations, "show migration events");
  std::string pids, tids;
  app.add_option("-p,--pid", pids, "only these processes (pid[,pid...])");
  app.add_option("-t,--tid", tids, "only these threads (tid[,tid...])");
  std::string cpus;
  app.add_option("-C,--cpu", cpus, "switch lines of these cpus only (0,2-3)");
  auto check = [&]() -> std::string {
    for (auto [text, list] : {std::pair{&pids, &o.pids}, {&tids, &o.tids}}) {
      if (text->empty()) continue;
      auto ids = id_list(*text);  // 0 is the idle task here
      if (!ids) return fmt::format("bad id list '{}': {}", *text, ids.error().message());
      *list = std::move(*ids);
    }
    if (cpus.empty()) return {};
    auto list = parse_cpu_list(cpus);
    if (!list) return list.error().message();
    o.cpus = std::move(*list);
    return {};
  };
  return sched_report(
      app, argc, argv, lead,
      [&](const SchedTrace& t) -> Result<std::string> {
        for (const int cpu : o.cpus)  // perf's perf_session__cpu_bitmap() check
          if (t.nr_cpus != 0 && static_cast<std::uint32_t>(cpu) >= t.nr_cpus)
            return fail(Errc::kInvalidArgument,
                        fmt::format("-C: the recording has cpus 0-{}, not {}", t.nr_cpus - 1, cpu));
        return format_sched_timehist(sched_timehist(t, o), with_summary, summary);
      },
      check);
}

int sched_map_cmd(const LeadingArgs& lead, int argc, char** argv) {
  CLI::App app{"The task on each cpu at every switch (like perf sched map)", "perfx sched map"};
  return sched_report(app, argc, argv, lead, [](const SchedTrace& t) -> Result<std::string> {
    return format_sched_map(t);
  });
}

int run_sched(int argc, char** argv) {
  return run_subcommand(argc, argv, "sched", kUsage,
                        {{{"record", "rec"}, &sched_record, true},
                         {{"latency", "lat"}, &sched_latency_cmd},
                         {{"timehist"}, &sched_timehist_cmd},
                         {{"map"}, &sched_map_cmd},
                         {{"script"}, &run_script_alias}});
}

const Registration kReg{
    {"sched", "Scheduler latency, per-switch times and cpu map", &run_sched, true}};

}  // namespace
}  // namespace perfx::cli
