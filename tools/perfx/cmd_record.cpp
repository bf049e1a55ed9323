// perfx record: sample a command, processes/threads, CPUs or the whole system into a
// perf.data file (or a pipe) that Linux perf reads. Options follow perf record's; the
// plan and the session are the library's (perfx/record.hpp): this file turns argv into
// RecordOptions and prints what the session reports.

#include <algorithm>
#include <cstring>
#include <string>
#include <vector>

#include "command_front.hpp"
#include "perfx/off_cpu.hpp"
#include "perfx/record.hpp"
#include "perfx/system.hpp"

namespace perfx::cli {
namespace {

// The options that only change what this command prints, or that perf spells apart.
struct CliFlags {
  bool quiet = false;
  int verbose = 0;
  bool compress = false;
  int compression_level = 0;
  bool callchain_fp = false;
  bool off_cpu = false;  // --off-cpu / --wall (perfx/off_cpu.hpp)
  bool no_inherit = false;
  bool no_buildid = false;
  bool unused = false;  // -N (perfx never updates the cache)
  bool intr_regs_flag = false;
  std::string intr_regs;
  std::string user_regs;
  CLI::Option* intr_regs_opt = nullptr;
  CLI::Option* user_regs_opt = nullptr;
  std::string freq;                  // -F N|max
  long long delay = 0;               // -D ms; -1: start disabled
  bool timestamp = false;            // -T
  bool branch_any = false;           // -b
  std::vector<std::string> filters;  // --filter, each after its -e
  bool exclude_perf = false;
};

// perf record's options for how it reads, counts and filters (issue #25).
void add_habit_options(CLI::App& app, RecordOptions& o, CliFlags& f) {
  app.add_option("-j,--branch-filter", o.branch_filter, "Branch stack modes: any,u,k,call,...");
  app.add_option("--filter", f.filters, "Tracepoint filter for the -e before it")
      ->allow_extra_args(false);
  app.add_option("--control", o.control, "Commands from fd:ctl[,ack] or fifo:ctl[,ack]");
  app.add_option("--aio", o.aio, "perf's aio blocks 1..4 (perfx writes synchronously)")
      ->expected(0, 1);
  app.add_option("--mmap-flush", o.mmap_flush, "Least bytes to read from a ring buffer");
  app.add_option("--affinity", o.affinity, "Reader's CPUs while reading a buffer: node or cpu");
}

// --filter / --exclude-perf apply to the -e they follow (CLI11 keeps the order).
void add_filters(const CLI::App& app, const CliFlags& f, RecordOptions& o) {
  std::size_t events = 0;
  std::size_t filters = 0;
  for (const CLI::Option* opt : app.parse_order()) {
    const std::string& name = opt->get_name();
    const std::size_t after = events == 0 ? o.events.size() : events - 1;
    if (name == "--event") ++events;
    if (name == "--filter") o.filters.push_back({after, f.filters.at(filters++), false});
    if (name == "--exclude-perf") o.filters.push_back({after, "", true});
  }
}

void add_options(CLI::App& app, RecordOptions& o, CliFlags& f) {
  add_event_option(app, o.events,
                   "Event(s) to sample (perf syntax); default cycles, "
                   "falling back to cpu-clock without a PMU");
  // CLI11 reads "-1" into an unsigned as 2^64-1: only digits are a frequency or a period.
  const CLI::Validator whole_number(
      [](std::string& s) -> std::string {
        if (s.empty() || s.find_first_not_of("0123456789") != std::string::npos)
          return "expected a positive whole number, got '" + s + "'";
        return {};
      },
      "N");
  app.add_option("-F,--freq", f.freq, "Sampling frequency in Hz (default 4000), or max")
      ->check(CLI::Validator(
          [whole_number](std::string& s) { return s == "max" ? std::string() : whole_number(s); },
          "N|max"));
  app.add_option("-c,--count", o.period, "Sample every N events (fixed period)")
      ->check(whole_number);
  app.add_option("--call-graph", o.call_graph, "Call chain mode: fp or dwarf[,size]");
  add_target_options(app, o.system_wide, o.cpus, o.pids, o.tids);
  app.add_option("-G,--cgroup", o.cgroup, "Only tasks of this cgroup (v2; needs -a or -C)");
  app.add_option("-o,--output", o.output, "Output file ('-' for a pipe); default perf.data");
  app.add_option("--compression-level", f.compression_level, "zstd level 1..22");
  app.add_option("-m,--mmap-pages", o.mmap_pages,
                 "Ring buffer data pages per CPU (power of two) or size (512K)");
  app.add_flag("-v,--verbose", f.verbose, "Show the event attributes and fallbacks");
  f.intr_regs_opt = app.add_option("--intr-regs", f.intr_regs,
                                   "Sample these registers at the interrupt (=ax,bx,...; "
                                   "no value: all)")
                        ->expected(0, 1);
  f.user_regs_opt = app.add_option("--user-regs", f.user_regs,
                                   "Sample these user registers (=ip,sp,...; no value: all)")
                        ->expected(0, 1);
  app.add_option("-k,--clockid", o.clockid,
                 "Clock for the timestamps: monotonic, monotonic_raw, realtime, boottime, tai");
  app.add_option("-D,--delay", f.delay, "Enable the events N ms after the start (-1: disabled)")
      ->check(CLI::Range(-1LL, 86400000LL));
  add_habit_options(app, o, f);
  app.add_option("--max-size", o.max_size, "Stop when the data reaches this size (100M)");
  app.add_option("--switch-output", o.switch_output,
                 "Start a new output file on SIGUSR2 (signal, the default), every SIZE "
                 "(100M) or TIME (30s); each file is named with its timestamp");
  app.add_option("--switch-max-files", o.switch_max_files,
                 "With --switch-output: keep only the newest N files");
  add_switches(app,
               {{"--switch-events", &o.switch_events, "Record context switch events"},
                {"--sample-cpu", &o.sample_cpu, "Record the sample CPU"},
                {"-d,--data", &o.data, "Record sample data addresses"},
                {"-P,--period", &o.sample_period, "Record the sample period"},
                {"-W,--weight", &o.weight, "Record the sample weight"},
                {"-R,--raw-samples", &o.raw_samples, "Record raw data, time and CPU of samples"},
                {"--phys-data", &o.phys_data, "Record the physical address of data"},
                {"--data-page-size", &o.data_page_size, "Record the data page size"},
                {"--code-page-size", &o.code_page_size, "Record the code page size"},
                {"--sample-identifier", &o.sample_identifier, "Record PERF_SAMPLE_IDENTIFIER"},
                {"--all-kernel", &o.all_kernel, "Only kernel mode (exclude user) on every event"},
                {"--all-user", &o.all_user, "Only user mode (exclude kernel) on every event"},
                {"--namespaces", &o.namespaces, "Record namespace events"},
                {"--all-cgroups", &o.all_cgroups, "Record cgroup events and sample cgroup ids"},
                {"--strict-freq", &o.strict_freq, "Fail when -F is above the kernel's maximum"},
                {"--timestamp-filename", &o.timestamp_filename, "Timestamp the output file's name"},
                {"-g", &f.callchain_fp, "Record call chains (frame pointers)"},
                {"--off-cpu,--wall", &f.off_cpu, "Also record off-CPU time: a wall-clock profile"},
                {"-z", &f.compress, "Compress the data with zstd (level 1)"},
                {"-q,--quiet", &f.quiet, "No summary line"},
                {"-T,--timestamp", &f.timestamp, "Record sample timestamps (also --per-thread)"},
                {"-i,--no-inherit", &f.no_inherit, "Child tasks do not inherit counters"},
                {"-I", &f.intr_regs_flag, "Sample every register at the interrupt (--intr-regs)"},
                {"-B,--no-buildid", &f.no_buildid, "Do not collect build-ids"},
                {"-N,--no-buildid-cache", &f.unused, "No build-id cache update (perfx never does)"},
                {"--overwrite", &o.overwrite, "Flight recorder: the newest data, read at the end"},
                {"-s,--stat", &o.inherit_stat, "Per-thread counts (perf report -T)"},
                {"-n,--no-samples", &o.no_samples, "Count only, do not sample"},
                {"--per-thread", &o.per_thread, "One buffer per thread, not inherited"},
                {"--user-callchains", &o.user_callchains, "Only the user part of callchains"},
                {"-b,--branch-any", &f.branch_any, "Sample any taken branch (needs a PMU)"},
                {"--exclude-perf", &f.exclude_perf, "Filter perfx out (after a tracepoint -e)"}});
  app.prefix_command();
}

// The options perf spells apart, folded into RecordOptions.
void apply_flags(const CliFlags& f, RecordOptions& o) {
  if (f.callchain_fp && o.call_graph.empty()) o.call_graph = "fp";
  if (f.intr_regs_flag || f.intr_regs_opt->count() > 0) o.intr_regs = f.intr_regs;
  if (f.user_regs_opt->count() > 0) o.user_regs = f.user_regs;
  o.compression_level = f.compression_level > 0 ? f.compression_level : (f.compress ? 1 : 0);
  o.inherit = !f.no_inherit;
  o.build_ids = !f.no_buildid;
  o.version = "perfx " PERFX_VERSION;
  if (f.freq == "max") o.max_freq = true;
  if (!f.freq.empty() && f.freq != "max") o.freq = std::stoull(f.freq);
  o.start_disabled = f.delay < 0;
  o.delay_ms = f.delay > 0 ? static_cast<unsigned>(f.delay) : 0;
  o.sample_time = f.timestamp;
  if (f.branch_any && o.branch_filter.empty()) o.branch_filter = "any";
}

// What the session tells, in perf's words; -q and -v as perf record.
class Printer : public RecordObserver {
 public:
  explicit Printer(const CliFlags& f) : f_(f) {}
  void on_cycles_fallback() override {
    if (f_.verbose > 0) {
      fmt::print(stderr,
                 "Warning:\nThe cycles event is not supported, trying to fall back to "
                 "cpu-clock-ticks\n");
    }
  }
  void on_user_space_only(long long paranoid, const std::string& events) override {
    // perf says so only with -v; perfx always does (unless -q), since the profile then
    // lacks the kernel.
    if (f_.quiet) return;
    fmt::print(stderr,
               "perfx: perf_event_paranoid is {}, which does not let this user sample the "
               "kernel: recording user space only ({}), as perf does. For kernel samples "
               "too, run as root or lower kernel.perf_event_paranoid to 1.\n",
               paranoid, events);
  }
  void on_no_kernel_map(const Error& why) override {
    if (f_.verbose > 0) fmt::print(stderr, "perfx record: no kernel map: {}\n", why.message());
  }
  void on_build_id(const std::string& hex, const std::string& path) override {
    if (f_.verbose > 0) fmt::print(stderr, "build-id {} {}\n", hex, path);
  }
  void on_events_enabled(bool enabled) override {
    if (!f_.quiet) fmt::print(stderr, "{}\n", enabled ? "Events enabled" : "Events disabled");
  }
  void on_control_message(const std::string& line) override {
    if (!f_.quiet) fmt::print(stderr, "{}\n", line);
  }
  void on_size_limit(std::uint64_t bytes) override {
    if (!f_.quiet) {
      fmt::print(stderr, "[ perfx record: perf size limit reached ({} KB), stopping session ]\n",
                 bytes / 1024);
    }
  }
  void on_file_dumped(const std::string& path) override {
    if (!f_.quiet) fmt::print(stderr, "[ perfx record: Dump {} ]\n", path);
  }

 private:
  const CliFlags& f_;
};

// What perf prints about the plan before it opens anything; false: refused.
bool print_plan(const RecordPlan& plan, const CliFlags& f) {
  if (plan.implicit_system_wide && !f.quiet) {
    fmt::print(stderr,
               "perfx record: no command given: recording the whole system (all CPUs) "
               "until Ctrl-C\n");
  }
  if (plan.max_freq_used && !f.quiet)
    fmt::print(stderr, "info: Using a maximum frequency rate of {} Hz\n", *plan.max_freq_used);
  if (plan.data_pages_rounded && !f.quiet)
    fmt::print(stderr, "rounding mmap pages size to {} pages\n", plan.data_pages);
  if (const auto& cap = plan.freq_capped) {
    if (plan.options.strict_freq) {
      fmt::print(stderr,
                 "error: Maximum frequency rate ({} Hz) exceeded.\n"
                 "       Please use -F freq option with a lower value or consider\n"
                 "       tweaking /proc/sys/kernel/perf_event_max_sample_rate.\n",
                 cap->second);
      return false;
    }
    fmt::print(stderr,
               "warning: Maximum frequency rate ({} Hz) exceeded, throttling from {} Hz to "
               "{} Hz.\n"
               "         The limit can be raised via "
               "/proc/sys/kernel/perf_event_max_sample_rate.\n"
               "         The kernel will lower it when perf's interrupts take too long.\n"
               "         Use --strict-freq to disable this throttling, refusing to record.\n",
               cap->second, cap->first, cap->second);
  }
  if (f.verbose > 0) {
    for (const auto& e : plan.events) {
      fmt::print(stderr, "perf_event_attr for '{}': {} sample_type={:#x}\n", e.name,
                 attr_summary(e.attr_for_open()), e.attr.sample_type);
    }
  }
  return true;
}

void print_summary(const RecordResult& r, const CliFlags& f) {
  if (r.corrupt_events > 0) {
    fmt::print(stderr,
               "perfx record: warning: {} corrupt ring-buffer record(s); dropped {} bytes\n",
               r.corrupt_events, r.dropped_bytes);
  }
  if (r.throttle > 0 && !f.quiet) {
    fmt::print(stderr, "perfx record: {} throttle / {} unthrottle events\n", r.throttle,
               r.unthrottle);
  }
  if (f.quiet) return;
  const double mb = static_cast<double>(r.bytes) / (1024.0 * 1024.0);
  std::string counts;  // perf leaves "(N samples)" out when there are none (-n)
  if (r.samples > 0 || r.lost > 0) counts = fmt::format(" ({} samples)", r.samples);
  if (r.lost > 0) counts.insert(counts.size() - 1, fmt::format(", {} lost", r.lost));
  fmt::print(stderr, "[ perfx record: Captured and wrote {:.3f} MB {}{} ]\n", mb, r.written_name,
             counts);
}

int run_record(int argc, char** argv) {
  RecordOptions o;
  CliFlags f;
  CLI::App app{"Sample events into perf.data (like perf record)", "perfx record"};
  add_options(app, o, f);

  // Everything after "--" (or the first positional) is the command.
  std::vector<std::string> args;
  bool after_dashdash = false;
  for (int i = 1; i < argc; ++i) {
    if (!after_dashdash && std::strcmp(argv[i], "--") == 0) {
      after_dashdash = true;
      continue;
    }
    (after_dashdash ? o.command : args).push_back(argv[i]);
  }
  try {
    expand_option_prefixes(app, args);
    // perf's --switch-output takes its value after '=' only: bare, it means signal (and a
    // next word is the workload).
    for (auto& a : args)
      if (a == "--switch-output") a = "--switch-output=signal";
    std::vector<std::string> rev(args.rbegin(), args.rend());
    app.parse(rev);
    reject_unknown_option(app.remaining());
  } catch (const CLI::ParseError& e) {
    return usage_exit(app, e);
  }
  if (parse_only) return 0;  // CLI fuzz target: options only (command.hpp)
  if (!after_dashdash) {
    o.command = app.remaining();
  } else if (auto first = app.remaining(); !first.empty()) {
    // perf: the workload starts at the first non-option; a later "--" is its own
    // (`perfx record ls -- -l` runs `ls -- -l`).
    first.push_back("--");
    o.command.insert(o.command.begin(), first.begin(), first.end());
  }
  apply_flags(f, o);
  add_filters(app, f, o);
  if (app.count("--aio") > 0 && o.aio == 0) o.aio = 1;  // perf: --aio alone is one block
  o.cmdline.assign(argv + std::min(argc, 1), argv + argc);

  const CommandFront cmd{"record"};
  std::string off_cpu_event;
  if (f.off_cpu) {  // sched_switch + switch records, on cpu-clock's scale (perfx/off_cpu.hpp)
    auto oc = off_cpu_recording();
    if (!oc) return cmd.fail(oc.error().message());
    if (o.events.empty()) o.events.push_back(oc->on_cpu_event.name);
    // Every switch, whatever -F/-c say: a period term, the event keeping its name.
    off_cpu_event = oc->switch_event.name;
    o.events.push_back(off_cpu_event + "/period=1,name=" + off_cpu_event + "/");
    o.switch_events = o.switch_events || oc->context_switch_records;
    if (oc->needs_callchains && o.call_graph.empty()) o.call_graph = "fp";
  }
  if (f.branch_any && app.count("--branch-filter") > 0)  // perf's parse_branch_stack()
    return cmd.fail("Error: Can't use --branch-any (-b) with --branch-filter (-j).");
  auto plan = plan_record(o);
  if (!plan) return cmd.fail(plan.error().message());
  if (!print_plan(*plan, f)) return 1;
  Printer printer(f);
  latch_stop_signals();  // a second SIGINT (timeout's) must not cut the summary short
  auto result = run_record_session(std::move(*plan), printer);
  if (!result) return cmd.fail(result.error().message());
  if (result->exec_error) {
    cmd.say(result->exec_error->message());
    return result->exit_code;
  }
  print_summary(*result, f);
  return result->exit_code;
}

const Registration kReg{{"record", "Sample events into perf.data", &run_record}};

}  // namespace
}  // namespace perfx::cli
