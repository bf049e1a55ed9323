// perfx stat: argv -> library calls (perfx/stat.hpp: run_stat_session, build_stat_entries,
// format_stat); `stat record` adds a StatRecorder (perfx/stat_record.hpp), `stat report`
// is cmd_stat_report.cpp.

#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstdio>
#include <cstring>
#include <ctime>
#include <memory>
#include <numeric>
#include <string>
#include <vector>

#include "command_front.hpp"
#include "perfx/events.hpp"
#include "perfx/output_file.hpp"
#include "perfx/stat.hpp"
#include "perfx/stat_record.hpp"
#include "perfx/system.hpp"
#include "perfx/workload.hpp"
#include "stat_cli.hpp"

namespace perfx::cli {
namespace {

struct FileCloser {
  void operator()(std::FILE* f) const {
    if (f != nullptr) std::fclose(f);
  }
};

const CommandFront cmd{"stat"};

int run_stat(int argc, char** argv) {
  if (argc > 1 && is_stat_subcommand(argv[1], "report")) return run_stat_report(argc - 1, argv + 1);
  // perf stat record: the same options, -o names the perf.data (the counts go to stderr).
  bool recording = argc > 1 && is_stat_subcommand(argv[1], "record");
  const std::vector<std::string> record_args(argv + std::min(argc, 1), argv + argc);
  if (recording) {
    argv[1] = argv[0];
    ++argv;
    --argc;
  }
  CLI::App app{"Run a command and count events (like perf stat); also: stat record, stat report",
               "perfx stat"};
  app.footer(
      "perfx stat record [-o FILE] [options] -- CMD: count as above and write a perf.data\n"
      "perfx stat report [-i FILE] [-A|--per-socket|--per-die|--per-core|--per-node]: print it");
  std::vector<std::string> events;
  bool system_wide = false;
  std::string cpu_list;
  std::string pid_list;
  std::string tid_list;
  std::string cgroup;
  bool no_inherit = false;
  int repeat = 1;
  unsigned interval_ms = 0;
  bool per_thread = false;
  bool no_aggr = false;
  std::string csv_sep;
  bool json = false;
  std::string output;
  int verbose = 0;
  bool null_run = false, quiet = false, append = false, big_num = true;
  bool all_user = false, all_kernel = false;
  int detailed = 0;
  int interval_count = 0;
  unsigned timeout_ms = 0;
  unsigned delay_ms = 0;
  std::string pre, post;
  bool table = false, summary = false, no_csv_summary = false, interval_clear = false;
  bool sync_run = false;
  std::string metrics;
  bool metric_only = false, topdown = false;
  int td_level = -1;
  add_event_option(app, events, "event selector (repeatable; see 'perfx list')");
  add_target_options(app, system_wide, cpu_list, pid_list, tid_list);
  app.add_option("-G,--cgroup", cgroup,
                 "count a cgroup (path relative to the cgroup2 mount); a,b: one per event");
  std::string for_each_cgroup;
  app.add_option("--for-each-cgroup", for_each_cgroup,
                 "count every event in each of these cgroups");
  add_switches(app,
               {{"-i,--no-inherit", &no_inherit, "child tasks do not inherit counters"},
                {"--per-thread", &per_thread, "one line per thread (with -p, -t or -a)"},
                {"-j,--json-output,--json", &json, "JSON lines output"},
                {"--all-user", &all_user, "every event counts user space only"},
                {"--all-kernel", &all_kernel, "every event counts the kernel only"},
                {"-n,--null", &null_run, "no counters: only the elapsed time"},
                {"--table", &table, "with -r: a table of each run's wall time"},
                {"--summary", &summary, "with -I: the whole run's counts after the intervals"},
                {"--no-csv-summary", &no_csv_summary,
                 "with --summary -x: no 'summary' in the interval column"},
                {"--interval-clear", &interval_clear, "with -I: clear the screen every interval"},
                {"-S,--sync", &sync_run, "call sync() before each run"},
                {"--quiet", &quiet, "print no counts (the workload still runs)"},
                {"--append", &append, "with -o: append to the file"},
                {"-B,--big-num,!--no-big-num", &big_num,
                 "group digits with the locale's thousands separator (default)"}});
  app.add_option("-r,--repeat", repeat, "repeat the command and print mean and stddev")
      ->check(CLI::Range(1, 100000));
  app.add_option("-I,--interval-print", interval_ms, "print counts every N milliseconds")
      ->check(CLI::Range(10U, 3600000U));
  bool per_socket = false, per_die = false, per_core = false, per_node = false;
  const CLI::Option* const cpu_mode_options[] = {
      app.add_flag("-A,--no-aggr", no_aggr, "one line per CPU (with -a/-C)"),
      app.add_flag("--per-socket", per_socket, "counts summed per processor socket (with -a/-C)"),
      app.add_flag("--per-die", per_die, "counts summed per processor die (with -a/-C)"),
      app.add_flag("--per-core", per_core, "counts summed per physical core (with -a/-C)"),
      app.add_flag("--per-node", per_node, "counts summed per NUMA node (with -a/-C)")};
  app.add_option("-x,--field-separator", csv_sep, "CSV output with this separator");
  app.add_option("-o,--output", output,
                 "write the counts to this file (stat record: the perf.data, default perf.data)");
  app.add_flag("-v,--verbose", verbose, "say why an event is <not supported>");
  app.add_flag("-d,--detailed", detailed,
               "more events: -d L1 and LLC data cache, -dd also L1i and TLBs, -ddd prefetches");
  app.add_option("--interval-count", interval_count, "with -I: stop after N intervals")
      ->check(CLI::Range(1, 1000000000));
  app.add_option("--timeout", timeout_ms, "stop counting (and the workload) after N ms")
      ->check(CLI::Range(10U, 86400000U));
  app.add_option("-D,--delay", delay_ms, "enable the counters N ms after the workload starts");
  app.add_option("--pre", pre, "shell command to run before each run");
  app.add_option("--post", post, "shell command to run after each run");
  app.add_option("-M,--metrics", metrics, "metrics or metric groups (perfx has no metric tables)");
  app.add_option("--td-level", td_level, "top-down level (with --topdown)");
  app.add_flag("--metric-only", metric_only, "print only the metrics, no counts");
  app.add_flag("--topdown", topdown, "top-down statistics (needs topdown PMU events)");
  std::vector<std::string> command;
  if (auto rc = CommandFront::parse_workload(app, argc, argv, command)) return *rc;
  if (!recording && !command.empty() && is_stat_subcommand(command.front(), "record")) {
    // perf stat -a -A record ...: the options before `record` hold, then the rest is parsed.
    recording = true;
    std::vector<std::string> words(command.begin() + 1, command.end());
    std::vector<char*> rest{argv[0]};
    for (auto& w : words) rest.push_back(w.data());
    if (auto rc =
            CommandFront::parse_workload(app, static_cast<int>(rest.size()), rest.data(), command))
      return *rc;
  }

  if (json && !csv_sep.empty()) return cmd.fail("-x and -j cannot be used together");
  if (all_user && all_kernel)
    return cmd.fail("--all-kernel and --all-user cannot be used together");
  if (interval_count > 0 && interval_ms == 0) return cmd.fail("--interval-count needs -I");
  if (append && output.empty()) return cmd.fail("--append needs -o");
  if (recording && repeat != 1) return cmd.fail("Cannot use -r option with perf stat record.");
  std::optional<StatRecorder> recorder;
  const std::string data_path = output.empty() ? "perf.data" : output;
  if (recording) output.clear();

  StatSessionConfig cfg;
  cfg.command = command;
  cfg.runs = repeat;
  cfg.interval = std::chrono::milliseconds(interval_ms);
  cfg.interval_count = interval_count;
  cfg.timeout = std::chrono::milliseconds(timeout_ms);
  cfg.delay = std::chrono::milliseconds(delay_ms);
  cfg.pre_command = pre;
  cfg.post_command = post;
  cfg.sync_before_run = sync_run;
  if (delay_ms > 0 && !quiet) {
    // perf's EVLIST_DISABLED_MSG / EVLIST_ENABLED_MSG
    fmt::print(stderr, "Events disabled\n");
    cfg.on_enabled = [] { fmt::print(stderr, "Events enabled\n"); };
  }
  cfg.target.inherit = !no_inherit;
  if (!cpu_list.empty()) {
    auto cpus = parse_cpu_list(cpu_list);
    if (!cpus) return cmd.fail(cpus.error().message());
    cfg.target.cpus = *cpus;
  }
  if (!pid_list.empty()) {
    auto pids = parse_pid_list(pid_list);
    if (!pids) return cmd.fail(pids.error().message());
    cfg.target.pids = *pids;
  }
  if (!tid_list.empty()) {
    auto tids = parse_pid_list(tid_list);
    if (!tids) return cmd.fail(tids.error().message());
    cfg.target.tids = *tids;
  }
  const bool task_target = !pid_list.empty() || !tid_list.empty();
  // perf: no command and no target counts the whole system until Ctrl-C.
  if (command.empty() && cpu_list.empty() && !task_target && cgroup.empty()) system_wide = true;
  cfg.target.system_wide = system_wide;
  if (auto ok = topdown ? check_stat_topdown(system_wide) : Result<void>{}; !ok) {
    fmt::print(stderr, "{}\n", ok.error().message());  // perf's words, its -EINVAL status
    return 234;
  }
  if (per_thread && !task_target && !system_wide)
    return cmd.fail("--per-thread needs -p, -t or -a");
  if (no_aggr && !system_wide && cpu_list.empty() && cgroup.empty()) {
    return cmd.fail("-A/--no-aggr needs -a, -C or -G");
  }
  // -A and the --per-socket/die/core/node modes set one aggregation, the last given
  // wins (perf's OPT_SET_UINT).
  bool* const cpu_modes[] = {&no_aggr, &per_socket, &per_die, &per_core, &per_node};
  std::string mode_name;
  for (const CLI::Option* opt : app.parse_order()) {
    for (std::size_t i = 0; i < std::size(cpu_mode_options); ++i) {
      if (opt != cpu_mode_options[i]) continue;
      for (bool* m : cpu_modes) *m = false;
      *cpu_modes[i] = true;
      mode_name = i == 0 ? "-A/--no-aggr" : opt->get_name();
    }
  }
  const bool per_place = per_socket || per_die || per_core || per_node;
  if (per_thread && (no_aggr || per_place))
    return cmd.fail(
        fmt::format("--per-thread and {} split the counts differently: pick one", mode_name));
  if (per_place && !system_wide && cpu_list.empty() && cgroup.empty())
    return cmd.fail(fmt::format("{} needs -a, -C or -G (it sums the counts of CPUs)", mode_name));

  if (!metrics.empty()) fmt::print(stderr, "{}\n", stat_metric_notice(metrics));
  std::string spec;
  for (const auto& e : events) spec += (spec.empty() ? "" : ",") + e;
  // Only no -e at all means perf's defaults: an empty -e reaches the parser, which
  // rejects it ("empty event list"/"empty event") as perf does.
  const bool cpu_target = system_wide || !cpu_list.empty() || !cgroup.empty();
  if (events.empty()) spec = default_stat_events(cpu_target && !per_thread);
  if (detailed > 0) spec += "," + detailed_stat_events(detailed);
  if (null_run && !events.empty()) return cmd.fail("-n/--null counts nothing: drop -e");
  // The probes' config1 points into `plan.groups`: it lives until the session is over.
  auto plan = plan_stat_events(null_run ? std::string("task-clock") : spec);
  if (!plan) return cmd.fail(plan.error().message());
  if (null_run) plan->groups.clear();  // perf's null run: no counters at all
  restrict_privilege(plan->groups, all_user     ? PrivilegeScope::kUserOnly
                                   : all_kernel ? PrivilegeScope::kKernelOnly
                                                : PrivilegeScope::kAsWritten);
  cfg.groups = counter_groups(plan->groups);
  std::size_t kernel_events = 0;
  for (const auto& g : plan->groups) kernel_events += g.events.size();
  if (auto ok = assign_cgroups(cfg, cgroup, for_each_cgroup); !ok)
    return cmd.fail(ok.error().message());
  const bool event_cgroups = !cfg.target.event_cgroups.empty();
  if (event_cgroups && !system_wide && cpu_list.empty())
    return cmd.fail(
        fmt::format("{} counts each event in a cgroup: it needs -a or -C",
                    for_each_cgroup.empty() ? "-G with several cgroups" : "--for-each-cgroup"));

  StatFormatOptions fopts;
  fopts.metric_only = metric_only;
  if (json) fopts.layout = StatLayout::kJson;
  if (!csv_sep.empty()) {
    fopts.layout = StatLayout::kCsv;
    fopts.csv_sep = csv_sep;
  }
  if (big_num) fopts.thousands_sep = locale_thousands_sep();
  std::unique_ptr<std::FILE, FileCloser> file;
  std::FILE* out = stderr;
  if (!output.empty()) {
    // Written as the counts come (-I), so created in place, never through a symlink
    // (perfx::OutputFile, docs/reliability.md).
    auto created =
        perfx::OutputFile::create(output, append ? CreateMode::kAppend : CreateMode::kNew);
    if (!created) return cmd.fail(created.error().message());
    const int fd = created->release();
    file.reset(::fdopen(fd, append ? "a" : "w"));
    if (!file) {
      ::close(fd);
      return cmd.fail(fmt::format("cannot write {}: {}", output, std::strerror(errno)));
    }
    out = file.get();
    fmt::print(out, "{}", format_stat_started_on(std::time(nullptr)));
  }

  StatModelOptions mopts;
  mopts.event_cgroups = cfg.target.event_cgroups;
  mopts.aggr = per_thread   ? StatAggr::kPerThread
               : no_aggr    ? StatAggr::kPerCpu
               : per_socket ? StatAggr::kPerSocket
               : per_die    ? StatAggr::kPerDie
               : per_core   ? StatAggr::kPerCore
               : per_node   ? StatAggr::kPerNode
                            : StatAggr::kGlobal;
  if (per_place) {
    auto online = online_cpus();
    if (!online) return cmd.fail(online.error().message());
    std::vector<int> numbers(static_cast<std::size_t>(online->back()) + 1);
    std::iota(numbers.begin(), numbers.end(), 0);
    mopts.cpu_places = cpu_places(numbers);
  }
  if (per_thread && !task_target) {  // -a: one counter per thread of the system, as perf
    cfg.target.every_thread = true;
    cfg.target.system_wide = false;
    mopts.skip_zero_threads = true;
  }
  if (per_thread) {
    auto threads = resolve_stat_threads(cfg.target);
    if (!threads) return cmd.fail(threads.error().message());
    mopts.thread_comms = threads->comms;
    if (!task_target) mopts.thread_tids = threads->tids;
  }
  std::string target = describe_stat_target(
      command, system_wide, system_wide ? std::string() : cpu_list, pid_list, tid_list);

  int intervals = 0;
  if (interval_ms > 0) {
    cfg.on_interval = [&](const CounterSnapshot& d, double t, double len_ns) {
      StatReport r;
      r.target = target;
      r.aggr = mopts.aggr;
      r.cgroup = cfg.target.cgroup;
      r.entries = build_stat_entries({d}, mopts);
      r.elapsed_ns = len_ns;
      add_stat_tool_entries(r, plan->tools, kernel_events, len_ns, 0, 0);
      if (interval_clear) {
        // perf's puts(CONSOLE_CLEAR): on stdout, the counts' header again after it.
        std::fputs("\033[H\033[2J\n", stdout);
        std::fflush(stdout);
      }
      if (!quiet)
        fmt::print(out, "{}",
                   format_stat_interval(r, fopts, t, interval_clear || intervals % 25 == 0));
      std::fflush(out);
      ++intervals;
    };
  }

  if (recording) {
    StatRecordOptions ropts{
        mopts.aggr, interval_ms, {"stat"}, mopts.thread_comms, "perfx " PERFX_VERSION};
    ropts.cmdline.insert(ropts.cmdline.end(), record_args.begin(), record_args.end());
    recorder.emplace(data_path, std::move(ropts));
    recorder->attach(cfg);
  }
  auto runs = run_stat_session(cfg);
  if (!runs) return cmd.fail(runs.error().message());
  if (recorder && !runs->empty() && runs->back().exec_errno == 0) {
    if (auto ok = recorder->finish(*runs); !ok) return cmd.fail(ok.error().message());
  }
  if (!runs->empty() && runs->back().exec_errno != 0) {
    const int err = runs->back().exec_errno;
    fmt::print(stderr, "perfx: {}\n", explain_exec_errno(err, command.front()));
    return exec_failure_exit_code(err);
  }

  if (!runs->empty() && runs->back().exit && runs->back().exit->signaled && !quiet) {
    // perf's psignal() of the workload's signal, before the counts: "sleep: Terminated".
    fmt::print(stderr, "{}: {}\n", command.front(), ::strsignal(runs->back().exit->signal));
  }
  if (verbose > 0 && !runs->empty()) {
    // perf stat -v: "<event> event is not supported by the kernel", here with the reason.
    for (const auto& ev : runs->back().counts.events) {
      if (!ev.supported) fmt::print(stderr, "perfx stat: <not supported> {}\n", ev.error);
    }
  }
  if (!runs->empty()) {
    // A 0 from a breakpoint that cannot fire here must not pass for an untouched address.
    for (const auto& note : silent_breakpoint_notes(runs->back().counts)) cmd.say(note);
  }
  if ((interval_ms == 0 || summary) && !quiet) {
    StatReport r;
    r.target = target;
    r.runs = static_cast<int>(runs->size());
    r.aggr = mopts.aggr;
    r.cgroup = cfg.target.cgroup;
    std::vector<CounterSnapshot> snaps;
    std::vector<double> elapsed;
    for (const auto& run : *runs) {
      snaps.push_back(run.counts);
      elapsed.push_back(static_cast<double>(run.elapsed.count()));
    }
    r.entries = build_stat_entries(snaps, mopts);
    r.table = table;
    r.run_elapsed_ns = elapsed;
    const auto es = run_stats(elapsed);
    r.elapsed_ns = es.mean;
    r.elapsed_stddev_ns = es.stddev_of_mean;
    if (runs->size() == 1 && runs->front().exit && !cpu_target) {
      const auto& ru = runs->front().exit->usage;
      r.show_rusage = true;
      r.user_s =
          static_cast<double>(ru.ru_utime.tv_sec) + static_cast<double>(ru.ru_utime.tv_usec) / 1e6;
      r.sys_s =
          static_cast<double>(ru.ru_stime.tv_sec) + static_cast<double>(ru.ru_stime.tv_usec) / 1e6;
    }
    add_stat_tool_entries(r, plan->tools, kernel_events, r.elapsed_ns, r.user_s * 1e9,
                          r.sys_s * 1e9);
    fmt::print(out, "{}", format_stat_summary(r, fopts, interval_ms > 0 && !no_csv_summary));
  }
  return stat_exit_code(*runs);
}

const Registration kReg{{"stat", "Run a command and count events (like perf stat)", &run_stat}};

}  // namespace
}  // namespace perfx::cli
