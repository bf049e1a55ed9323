// perfx record: sample a command, processes/threads, CPUs or the whole system into a
// perf.data file (or a pipe) that Linux perf reads. Options follow perf record's.
#include <fcntl.h>
#include <linux/perf_event.h>
#include <poll.h>
#include <signal.h>
#include <sys/stat.h>
#include <sys/time.h>
#include <unistd.h>

// CLI11 2.1 inlined into -O2 code trips -Wnull-dereference inside libstdc++ (false positive).
#pragma GCC diagnostic ignored "-Wnull-dereference"
#include <fmt/core.h>
#include <CLI/CLI.hpp>

#include <algorithm>
#include <cctype>
#include <cerrno>
#include <chrono>
#include <cstring>
#include <ctime>
#include <optional>
#include <string>
#include <vector>

#include "command.hpp"
#include "core/build_id_note.hpp"
#include "core/error_format.hpp"
#include "event/event_spec.hpp"
#include "option_prefix.hpp"
#include "perf_options.hpp"
#include "perfx/off_cpu.hpp"
#include "perfx/sampler.hpp"
#include "record/features.hpp"
#include "record/perf_data_writer.hpp"
#include "record/regs.hpp"
#include "record/sample_layout.hpp"
#include "sampling_setup.hpp"
#include "sys/cgroup.hpp"
#include "sys/cpu_list.hpp"
#include "sys/process.hpp"
#include "sys/signals.hpp"
#include "sys/synthesize.hpp"
#include "sys/synthesize_tracing.hpp"
#include "sys/system_info.hpp"
#include "sys/system_info_features.hpp"
#include "sys/tracefs.hpp"
#include "sys/workload.hpp"

namespace perfx::cli {
namespace {

struct RecordOptions {
  std::vector<std::string> events;
  std::optional<std::uint64_t> freq;
  std::optional<std::uint64_t> period;
  bool callchain_fp = false;
  std::string call_graph;
  bool all_cpus = false;
  std::string cpu_list;
  std::string pids;
  std::string tids;
  std::string cgroup;
  bool switch_events = false;
  bool off_cpu = false;  // --off-cpu / --wall (perfx/off_cpu.hpp)
  std::string output = "perf.data";
  bool compress = false;
  int compression_level = 0;
  std::string mmap_pages;
  bool quiet = false;
  int verbose = 0;
  bool sample_cpu = false;
  bool timestamp = false;
  bool data = false;
  bool no_inherit = false;
  // perf record's sample-field and attr switches
  bool sample_period = false;        // -P
  bool weight = false;               // -W
  bool raw_samples = false;          // -R
  bool phys_data = false;            // --phys-data
  bool intr_regs_flag = false;       // -I
  std::string intr_regs;             // --intr-regs[=REGS]
  std::string user_regs;             // --user-regs[=REGS]
  std::uint64_t intr_regs_mask = 0;  // resolved from the two above
  std::uint64_t user_regs_mask = 0;
  bool data_page_size = false;      // --data-page-size
  bool code_page_size = false;      // --code-page-size
  bool sample_identifier = false;   // --sample-identifier
  bool all_kernel = false;          // --all-kernel
  bool all_user = false;            // --all-user
  bool namespaces = false;          // --namespaces
  bool all_cgroups = false;         // --all-cgroups
  std::string clockid;              // -k
  bool strict_freq = false;         // --strict-freq
  unsigned delay_ms = 0;            // -D
  std::string max_size;             // --max-size
  bool timestamp_filename = false;  // --timestamp-filename
  std::string switch_output;        // --switch-output[=signal|SIZE|TIME]
  unsigned switch_max_files = 0;    // --switch-max-files
  bool no_buildid = false;          // -B
  bool no_buildid_cache = false;    // -N
  std::vector<std::string> command;
};

// perf's parse_clockid(): a name (any case, "CLOCK_" prefix allowed; perf's short forms
// too) or a number.
Result<int> parse_clockid(std::string name) {
  for (auto& c : name) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  if (name.rfind("clock_", 0) == 0) name.erase(0, 6);
  static constexpr std::pair<std::string_view, int> kClocks[] = {
      {"monotonic", CLOCK_MONOTONIC},
      {"monotonic_raw", CLOCK_MONOTONIC_RAW},
      {"realtime", CLOCK_REALTIME},
      {"boottime", CLOCK_BOOTTIME},
      {"tai", CLOCK_TAI},
      {"mono", CLOCK_MONOTONIC},
      {"raw", CLOCK_MONOTONIC_RAW},
      {"real", CLOCK_REALTIME},
      {"boot", CLOCK_BOOTTIME},
  };
  for (const auto& [n, id] : kClocks)
    if (name == n) return id;
  char* end = nullptr;
  const long v = std::strtol(name.c_str(), &end, 10);
  if (!name.empty() && *end == '\0' && v >= 0 && v < 64) return static_cast<int>(v);
  return fail(Errc::kInvalidArgument,
              "-k '{}': unknown clock (monotonic, monotonic_raw, realtime, boottime, tai or "
              "a number)",
              name);
}

// perf's parse_tag_value(): a count > 0 and one of `tags` right after it, scaled by the
// tag's multiplier; nullopt otherwise.
using Tags = std::initializer_list<std::pair<std::string_view, std::uint64_t>>;
std::optional<std::uint64_t> tagged_count(const std::string& text, Tags tags) {
  char* end = nullptr;
  const unsigned long long n = std::strtoull(text.c_str(), &end, 10);
  if (end == text.c_str() || n == 0) return std::nullopt;
  for (const auto& [tag, mul] : tags)
    if (std::string_view(end) == tag) return n * mul;
  return std::nullopt;
}

// --max-size: bytes, with perf's B/K/M/G suffixes.
Result<std::uint64_t> parse_size(const std::string& text) {
  if (auto n = tagged_count(text, {{"", 1},
                                   {"B", 1},
                                   {"b", 1},
                                   {"K", 1024},
                                   {"k", 1024},
                                   {"M", 1024 * 1024},
                                   {"m", 1024 * 1024},
                                   {"G", 1024ULL << 20},
                                   {"g", 1024ULL << 20}}))
    return *n;
  return fail(Errc::kInvalidArgument, "--max-size '{}': expected a size like 100M", text);
}

// --switch-output: SIGUSR2 (signal), a size (B/K/M/G) or a time (s/m/h/d), perf's tags.
struct SwitchOutput {
  bool on = false;
  bool signal = false;
  std::uint64_t size = 0;     // bytes
  std::uint64_t seconds = 0;  // period
};

Result<SwitchOutput> parse_switch_output(const std::string& text) {
  SwitchOutput sw;
  sw.on = true;
  if (text == "signal") {
    sw.signal = true;
    return sw;
  }
  if (std::isdigit(static_cast<unsigned char>(text[0]))) {
    if (auto size =
            tagged_count(text, {{"B", 1}, {"K", 1024}, {"M", 1024 * 1024}, {"G", 1024ULL << 20}})) {
      sw.size = *size;
      return sw;
    }
    if (auto seconds = tagged_count(text, {{"s", 1}, {"m", 60}, {"h", 3600}, {"d", 86400}})) {
      sw.seconds = *seconds;
      return sw;
    }
  }
  return fail(Errc::kInvalidArgument,
              "--switch-output '{}': use signal, a size (100M: B, K, M, G) or a time (30s: s, m, "
              "h, d)",
              text);
}

// perf's fetch_current_timestamp(): local time and hundredths, "2026112609350191".
std::string current_timestamp() {
  timeval tv{};
  ::gettimeofday(&tv, nullptr);
  tm t{};
  ::localtime_r(&tv.tv_sec, &t);
  char dt[32];
  std::strftime(dt, sizeof(dt), "%Y%m%d%H%M%S", &t);
  return fmt::format("{}{:02}", dt, static_cast<unsigned>(tv.tv_usec) / 10000);
}

int run_record(int argc, char** argv) {
  RecordOptions o;
  CLI::App app{"Sample events into perf.data (like perf record)", "perfx record"};
  // One value per -e (CLI11 vectors are greedy): `perfx record -e cpu-clock sleep 1`.
  app.add_option("-e,--event", o.events,
                 "Event(s) to sample (perf syntax); default cycles, "
                 "falling back to cpu-clock without a PMU")
      ->allow_extra_args(false);
  // CLI11 reads "-1" into an unsigned as 2^64-1: only digits are a frequency or a period.
  const CLI::Validator whole_number(
      [](std::string& s) -> std::string {
        if (s.empty() || s.find_first_not_of("0123456789") != std::string::npos)
          return "expected a positive whole number, got '" + s + "'";
        return {};
      },
      "N");
  app.add_option("-F,--freq", o.freq, "Sampling frequency in Hz (default 4000)")
      ->check(whole_number);
  app.add_option("-c,--count", o.period, "Sample every N events (fixed period)")
      ->check(whole_number);
  app.add_flag("-g", o.callchain_fp, "Record call chains (frame pointers)");
  app.add_option("--call-graph", o.call_graph, "Call chain mode: fp or dwarf[,size]");
  app.add_flag("-a,--all-cpus", o.all_cpus, "System-wide collection from all CPUs");
  app.add_option("-C,--cpu", o.cpu_list, "Only these CPUs (list like 0,2-3)");
  app.add_option("-p,--pid", o.pids, "Existing process ids (comma-separated)");
  app.add_option("-t,--tid", o.tids, "Existing thread ids (comma-separated)");
  app.add_option("-G,--cgroup", o.cgroup, "Only tasks of this cgroup (v2; needs -a or -C)");
  app.add_flag("--switch-events", o.switch_events, "Record context switch events");
  app.add_flag("--off-cpu,--wall", o.off_cpu,
               "Also record where threads block and for how long (wall-clock profile)");
  app.add_option("-o,--output", o.output, "Output file ('-' for a pipe); default perf.data");
  app.add_flag("-z", o.compress, "Compress the data with zstd (level 1)");
  app.add_option("--compression-level", o.compression_level, "zstd level 1..22");
  app.add_option("-m,--mmap-pages", o.mmap_pages,
                 "Ring buffer data pages per CPU (power of two) or size (512K)");
  app.add_flag("-q,--quiet", o.quiet, "No summary line");
  app.add_flag("-v,--verbose", o.verbose, "Show the event attributes and fallbacks");
  app.add_flag("--sample-cpu", o.sample_cpu, "Record the sample CPU");
  app.add_flag("-T,--timestamp", o.timestamp, "Record sample timestamps (always on)");
  app.add_flag("-d,--data", o.data, "Record sample data addresses");
  app.add_flag("-i,--no-inherit", o.no_inherit, "Child tasks do not inherit counters");
  app.add_flag("-P,--period", o.sample_period, "Record the sample period");
  app.add_flag("-W,--weight", o.weight, "Record the sample weight");
  app.add_flag("-R,--raw-samples", o.raw_samples, "Record raw data, time and CPU of samples");
  app.add_flag("--phys-data", o.phys_data, "Record the physical address of data");
  app.add_flag("-I", o.intr_regs_flag, "Sample every register at the interrupt (--intr-regs)");
  auto* intr_regs = app.add_option("--intr-regs", o.intr_regs,
                                   "Sample these registers at the interrupt (=ax,bx,...; "
                                   "no value: all)")
                        ->expected(0, 1);
  auto* user_regs = app.add_option("--user-regs", o.user_regs,
                                   "Sample these user registers (=ip,sp,...; no value: all)")
                        ->expected(0, 1);
  app.add_flag("--data-page-size", o.data_page_size, "Record the data page size");
  app.add_flag("--code-page-size", o.code_page_size, "Record the code page size");
  app.add_flag("--sample-identifier", o.sample_identifier, "Record PERF_SAMPLE_IDENTIFIER");
  app.add_flag("--all-kernel", o.all_kernel, "Only kernel mode (exclude user) on every event");
  app.add_flag("--all-user", o.all_user, "Only user mode (exclude kernel) on every event");
  app.add_flag("--namespaces", o.namespaces, "Record namespace events");
  app.add_flag("--all-cgroups", o.all_cgroups, "Record cgroup events and sample cgroup ids");
  app.add_option("-k,--clockid", o.clockid,
                 "Clock for the timestamps: monotonic, monotonic_raw, realtime, boottime, tai");
  app.add_flag("--strict-freq", o.strict_freq, "Fail when -F is above the kernel's maximum");
  app.add_option("-D,--delay", o.delay_ms, "Enable the events N ms after the command starts");
  app.add_option("--max-size", o.max_size, "Stop when the data reaches this size (100M)");
  app.add_flag("--timestamp-filename", o.timestamp_filename,
               "Append a timestamp to the output file name");
  app.add_option("--switch-output", o.switch_output,
                 "Start a new output file on SIGUSR2 (signal, the default), every SIZE "
                 "(100M) or TIME (30s); each file is named with its timestamp");
  app.add_option("--switch-max-files", o.switch_max_files,
                 "With --switch-output: keep only the newest N files");
  app.add_flag("-B,--no-buildid", o.no_buildid, "Do not collect build-ids");
  app.add_flag("-N,--no-buildid-cache", o.no_buildid_cache,
               "Do not update the build-id cache (perfx never does)");
  app.prefix_command();

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

  auto die = [&](const Error& e) {
    fmt::print(stderr, "perfx record: {}\n", e.message());
    return 1;
  };

  // perf's habit: no command and no target records the whole system until Ctrl-C.
  if (o.command.empty() && !o.all_cpus && o.cpu_list.empty() && o.pids.empty() && o.tids.empty()) {
    o.all_cpus = true;
    if (!o.quiet) {
      fmt::print(stderr,
                 "perfx record: no command given: recording the whole system (all CPUs) "
                 "until Ctrl-C\n");
    }
  }
  const bool has_cpu_target = o.all_cpus || !o.cpu_list.empty();
  const bool has_task_target = !o.pids.empty() || !o.tids.empty();
  if (!o.cgroup.empty() && !has_cpu_target) {
    fmt::print(stderr, "perfx record: -G needs system-wide mode (-a or -C)\n");
    return 1;
  }
  if (o.freq && o.period) {
    fmt::print(stderr, "perfx record: -F and -c are exclusive\n");
    return 1;
  }
  if (o.freq && *o.freq == 0) {
    fmt::print(stderr, "perfx record: -F must be > 0\n");
    return 1;
  }
  if (o.period && *o.period == 0) {
    fmt::print(stderr, "perfx record: -c must be > 0\n");
    return 1;
  }
  if (o.off_cpu) {  // perfx/off_cpu.hpp: sched_switch + switch records, on cpu-clock's scale
    auto oc = off_cpu_recording();
    if (!oc) return die(oc.error());
    if (o.events.empty()) o.events.push_back(oc->on_cpu_event.name);
    o.events.push_back(oc->switch_event.name);
    o.switch_events = o.switch_events || oc->context_switch_records;
    o.callchain_fp = o.callchain_fp || (oc->needs_callchains && o.call_graph.empty());
  }
  auto cg = parse_call_graph(o.callchain_fp, o.call_graph);
  if (!cg) return die(cg.error());
  if (o.intr_regs_flag || intr_regs->count() > 0) {
    auto mask = record::parse_x86_64_regs(o.intr_regs);
    if (!mask) return die(mask.error());
    o.intr_regs_mask = *mask;
  }
  if (user_regs->count() > 0) {
    auto mask = record::parse_x86_64_regs(o.user_regs);
    if (!mask) return die(mask.error());
    o.user_regs_mask = *mask;
  }
  bool rounded = false;
  auto pages = parse_mmap_pages(o.mmap_pages, rounded);
  if (!pages) return die(pages.error());
  if (rounded && !o.quiet) {
    fmt::print(stderr, "rounding mmap pages size to {} pages\n", *pages);
  }
  const int comp_level = o.compression_level > 0 ? o.compression_level : (o.compress ? 1 : 0);
  if (comp_level > 22) {
    fmt::print(stderr, "perfx record: --compression-level must be 1..22\n");
    return 1;
  }

  // Frequency: default 4000 Hz like perf, capped at perf_event_max_sample_rate.
  std::uint64_t freq = o.freq.value_or(4000);
  if (!o.period) {
    if (auto max = max_sample_rate(); max && *max > 0 && freq > static_cast<std::uint64_t>(*max)) {
      if (o.strict_freq) {
        fmt::print(stderr,
                   "error: Maximum frequency rate ({} Hz) exceeded.\n"
                   "       Please use -F freq option with a lower value or consider\n"
                   "       tweaking /proc/sys/kernel/perf_event_max_sample_rate.\n",
                   *max);
        return 1;
      }
      fmt::print(stderr,
                 "warning: Maximum frequency rate ({} Hz) exceeded, throttling from {} Hz to "
                 "{} Hz.\n"
                 "         The limit can be raised via "
                 "/proc/sys/kernel/perf_event_max_sample_rate.\n"
                 "         The kernel will lower it when perf's interrupts take too long.\n"
                 "         Use --strict-freq to disable this throttling, refusing to record.\n",
                 *max, freq, *max);
      freq = static_cast<std::uint64_t>(*max);
    }
  }
  std::optional<int> clockid;
  if (!o.clockid.empty()) {
    auto id = parse_clockid(o.clockid);
    if (!id) return die(id.error());
    clockid = *id;
  }
  std::uint64_t max_size = 0;
  if (!o.max_size.empty()) {
    auto sz = parse_size(o.max_size);
    if (!sz) return die(sz.error());
    max_size = *sz;
  }
  SwitchOutput switch_output;
  if (!o.switch_output.empty()) {
    auto sw = parse_switch_output(o.switch_output);
    if (!sw) return die(sw.error());
    switch_output = *sw;
    o.timestamp_filename = true;  // perf: every file gets its timestamp
  }
  if (o.all_kernel && o.all_user) {
    fmt::print(stderr, "perfx record: --all-kernel and --all-user cannot be used together\n");
    return 1;
  }

  // ---- events
  auto choices = parse_event_choices(o.events);
  if (!choices) return die(choices.error());
  std::vector<EventChoice>& events = choices->events;
  if (o.off_cpu) {  // --off-cpu: sched_switch at every switch, whatever -F/-c say
    events.back().period_from_term = true;
    events.back().attr.freq = 0;
    events.back().attr.sample_period = 1;
  }

  // Pipe mode: the data goes to the original stdout; perfx and the workload get stderr as
  // their stdout (as perf does), so nothing else lands in the stream.
  const bool to_stdout = o.output == "-";
  if (switch_output.on && to_stdout) {
    fmt::print(stderr, "perfx record: --switch-output needs an output file, not -o -\n");
    return 1;
  }
  int out_fd = -1;
  if (to_stdout) {
    out_fd = ::fcntl(STDOUT_FILENO, F_DUPFD_CLOEXEC, 3);
    if (out_fd < 0 || ::dup2(STDERR_FILENO, STDOUT_FILENO) < 0) {
      return die(fail_errno(errno, "redirecting stdout for pipe mode").value());
    }
  }

  // ---- target
  std::vector<pid_t> pids{-1};
  std::vector<int> cpus;
  std::optional<sys::Workload> workload;
  sys::UniqueFd cgroup_fd;
  std::vector<pid_t> synth_pids;
  if (has_cpu_target) {
    if (!o.cpu_list.empty()) {
      auto c = sys::parse_cpus(o.cpu_list);
      if (!c) return die(c.error());
      auto online = sys::read_online_cpus();
      if (online) {
        if (auto ok = sys::check_cpus_online(*c, *online); !ok) return die(ok.error());
      }
      cpus = *c;
    }
    if (!o.cgroup.empty()) {
      auto fd = sys::open_cgroup(o.cgroup);
      if (!fd) return die(fd.error());
      cgroup_fd = std::move(*fd);
    }
  } else if (has_task_target) {
    auto target = resolve_task_target(o.pids, o.tids);
    if (!target) return die(target.error());
    pids = std::move(target->tasks);
    synth_pids = std::move(target->synth_pids);
  }
  if (!o.command.empty() && !has_cpu_target && !has_task_target) {
    auto w = sys::Workload::prepare(o.command);
    if (!w) return die(w.error());
    workload = std::move(*w);
    pids = {workload->pid()};
  } else if (!o.command.empty()) {
    auto w = sys::Workload::prepare(o.command);
    if (!w) return die(w.error());
    workload = std::move(*w);
  }
  const bool follows_workload_only = workload && !has_cpu_target && !has_task_target;

  // ---- attrs, like perf record for the same options
  // perf adds a dummy tracking event for -a/-C, and for -D: the workload's COMM and MMAP
  // records must be captured from its exec on, while the sampled events wait for the delay.
  const bool delayed_workload = o.delay_ms > 0 && follows_workload_only;
  const bool tracking_dummy = has_cpu_target || delayed_workload;
  const std::size_t nr_attrs = events.size() + (tracking_dummy ? 1 : 0);
  std::uint64_t base_type = PERF_SAMPLE_IP | PERF_SAMPLE_TID | PERF_SAMPLE_TIME;
  base_type |= cg->sample_type();
  if (has_cpu_target || o.sample_cpu) base_type |= PERF_SAMPLE_CPU;
  if (o.data) base_type |= PERF_SAMPLE_ADDR | PERF_SAMPLE_DATA_SRC;
  if (nr_attrs > 1)
    base_type |= tracking_dummy || o.sample_identifier ? PERF_SAMPLE_IDENTIFIER : PERF_SAMPLE_ID;
  if (o.sample_identifier) base_type |= PERF_SAMPLE_IDENTIFIER;
  if (o.sample_period) base_type |= PERF_SAMPLE_PERIOD;
  if (o.weight) base_type |= PERF_SAMPLE_WEIGHT;
  if (o.raw_samples) base_type |= PERF_SAMPLE_RAW | PERF_SAMPLE_TIME | PERF_SAMPLE_CPU;
  if (o.phys_data) base_type |= PERF_SAMPLE_PHYS_ADDR;
  if (o.intr_regs_mask != 0) base_type |= PERF_SAMPLE_REGS_INTR;
  if (o.user_regs_mask != 0) base_type |= PERF_SAMPLE_REGS_USER;
  if (o.data_page_size) base_type |= PERF_SAMPLE_DATA_PAGE_SIZE;
  if (o.code_page_size) base_type |= PERF_SAMPLE_CODE_PAGE_SIZE;
  if (o.all_cgroups) base_type |= PERF_SAMPLE_CGROUP;

  auto make_attr = [&](EventChoice& c, bool tracking) {
    raw::EventAttr& a = c.attr;
    a.size = raw::kAttrSizeVer8;
    a.sample_type = base_type;
    a.read_format = PERF_FORMAT_ID | PERF_FORMAT_LOST;
    a.disabled = 1;
    a.inherit = o.no_inherit ? 0 : 1;
    a.sample_id_all = 1;
    if (!c.is_default) a.exclude_guest = 1;
    if (c.period_from_term) {
      // period=/freq= terms win over -c/-F
    } else if (o.period) {
      a.freq = 0;
      a.sample_period = *o.period;
    } else if (c.default_period != 0 && !o.freq) {
      a.freq = 0;
      a.sample_period = c.default_period;
    } else {
      a.freq = 1;
      a.sample_freq = freq;
    }
    const bool tp = c.kind == event::EventKind::kTracepoint;
    if (a.freq || (tp && !o.period) || (c.kind == event::EventKind::kUprobe && !o.period)) {
      a.sample_type |= PERF_SAMPLE_PERIOD;
    }
    if (tp) a.sample_type |= PERF_SAMPLE_RAW;
    cg->configure(a);
    if (o.data) a.mmap_data = 1;
    a.sample_regs_intr = o.intr_regs_mask;
    a.sample_regs_user |= o.user_regs_mask;
    if (workload && follows_workload_only && o.delay_ms == 0) a.enable_on_exec = 1;
    if (o.all_kernel) {
      a.exclude_kernel = 0;
      a.exclude_user = 1;
    }
    if (o.all_user) {
      a.exclude_kernel = 1;
      a.exclude_user = 0;
    }
    if (clockid) {
      a.use_clockid = 1;
      a.clockid = *clockid;
    }
    if (tracking) {
      a.mmap = 1;
      a.comm = 1;
      a.task = 1;
      a.mmap2 = 1;
      a.comm_exec = 1;
      a.ksymbol = 1;
      a.bpf_event = 1;
      if (o.switch_events) a.context_switch = 1;
      if (o.namespaces) a.namespaces = 1;
      if (o.all_cgroups) a.cgroup = 1;
    }
  };
  for (std::size_t i = 0; i < events.size(); ++i) make_attr(events[i], !tracking_dummy && i == 0);
  if (tracking_dummy) {
    EventChoice d;
    d.name = "dummy:HG";
    d.is_default = true;
    d.attr.type = PERF_TYPE_SOFTWARE;
    d.attr.config = PERF_COUNT_SW_DUMMY;
    make_attr(d, true);
    d.attr.sample_type &= ~static_cast<std::uint64_t>(PERF_SAMPLE_PERIOD | PERF_SAMPLE_RAW);
    d.attr.freq = 0;
    d.attr.sample_period = 1;
    // System-wide: at once; a delayed workload: at its exec, as perf (enable_on_exec).
    d.attr.disabled = delayed_workload ? 1 : 0;
    d.attr.enable_on_exec = delayed_workload ? 1 : 0;
    d.attr.exclude_guest = 0;
    d.attr.mmap_data = o.data ? 1 : 0;
    events.push_back(std::move(d));
  }

  // ---- open (with perf's cycles -> cpu-clock fallback)
  auto build_options = [&]() {
    SamplerOptions so;
    for (const auto& e : events) so.events.push_back({e.name, e.attr, e.group_leader});
    so.pids = pids;
    so.cpus = cpus;
    so.cgroup_fd = cgroup_fd ? cgroup_fd.get() : -1;
    so.data_pages = *pages;
    return so;
  };
  if (o.verbose > 0) {
    for (const auto& e : events) {
      fmt::print(stderr, "perf_event_attr for '{}': {} sample_type={:#x}\n", e.name,
                 event::describe_attr(e.attr), e.attr.sample_type);
    }
  }
  sys::raise_fd_limit();  // one fd per event, CPU and thread: use the hard limit, as perf
  auto sampler = open_with_fallback(*choices, build_options, o.verbose > 0, o.quiet);
  if (!sampler) return die(sampler.error());

  // Signals are caught from here on: a Ctrl-C or SIGTERM while the output is created and
  // running tasks are synthesized waits in the pipe, and the loop below then finalizes
  // the file instead of the process dying with a header that says "no data".
  auto sigpipe = sys::SignalPipe::install({SIGINT, SIGTERM, SIGCHLD, SIGHUP, SIGUSR2});
  if (!sigpipe) return die(sigpipe.error());

  // ---- output (PerfDataWriter::create() keeps an existing file as <name>.old)
  std::vector<record::WriterAttr> wattrs;
  for (std::size_t i = 0; i < events.size(); ++i) {
    wattrs.push_back({events[i].attr, events[i].name, sampler->ids(i)});
  }
  record::WriterOptions wo;
  wo.pipe = to_stdout;
  wo.compress_level = comp_level;
  wo.compress_mmap_len = static_cast<std::uint32_t>(
      (sampler->options().data_pages + 1) * static_cast<std::size_t>(::sysconf(_SC_PAGESIZE)));
  auto writer = to_stdout ? record::PerfDataWriter::create_fd(out_fd, true, "-", wattrs, wo)
                          : record::PerfDataWriter::create(o.output, wattrs, wo);
  if (!writer) return die(writer.error());

  record::Features features;
  sys::gather_system_features(features, "perfx " PERFX_VERSION);
  if (clockid) {
    // perf's record__init_clock(): the clock's resolution and a reference point of it
    // against the time of day.
    timespec res{}, now_clock{};
    timeval tod{};
    if (::clock_getres(*clockid, &res) == 0 && res.tv_sec == 0)
      features.clockid_res_ns = static_cast<std::uint64_t>(res.tv_nsec);
    ::gettimeofday(&tod, nullptr);
    if (::clock_gettime(*clockid, &now_clock) == 0) {
      record::ClockData cd;
      cd.clockid = static_cast<std::uint32_t>(*clockid);
      cd.wall_clock_ns = static_cast<std::uint64_t>(tod.tv_sec) * 1000000000ULL +
                         static_cast<std::uint64_t>(tod.tv_usec) * 1000ULL;
      cd.clockid_time_ns = static_cast<std::uint64_t>(now_clock.tv_sec) * 1000000000ULL +
                           static_cast<std::uint64_t>(now_clock.tv_nsec);
      features.clock_data = cd;
    }
  }
  {
    std::vector<std::string> cmdline;
    for (int i = 0; i < argc; ++i) cmdline.emplace_back(argv[i]);
    if (!cmdline.empty()) cmdline[0] = "perfx record";
    char self[4096];
    const ssize_t n = ::readlink("/proc/self/exe", self, sizeof(self) - 1);
    if (n > 0) cmdline[0] = std::string(self, static_cast<std::size_t>(n)) + " record";
    features.cmdline = cmdline;
  }
  // HEADER_GROUP_DESC: each group of -e '{a,b}' by its leader, as perf writes it ("{anon_group}"
  // for a group without a name); perf report then shows the group as one section.
  {
    std::vector<std::uint32_t> members(events.size(), 0);  // by leader
    for (std::size_t i = 0; i < events.size(); ++i)
      ++members[events[i].group_leader >= 0 ? static_cast<std::size_t>(events[i].group_leader) : i];
    for (std::size_t i = 0; i < events.size(); ++i)
      if (members[i] > 1)
        features.group_desc.push_back({"{anon_group}", static_cast<std::uint32_t>(i), members[i]});
  }
  {
    std::vector<std::pair<std::string, std::string>> tps;
    for (const auto& e : events) {
      if (e.kind != event::EventKind::kTracepoint) continue;
      const auto colon = e.canonical.find(':');
      if (colon == std::string::npos) continue;
      tps.emplace_back(e.canonical.substr(0, colon), e.canonical.substr(colon + 1));
    }
    if (!tps.empty()) {
      auto root = sys::find_tracefs();
      if (!root) return die(root.error());
      auto td = sys::build_tracing_data(*root, tps);
      if (!td) return die(td.error());
      features.tracing_data = std::move(*td);
    }
  }
  if (writer->is_pipe()) {
    // Pipe mode sends the features (and the tracepoint formats) before any record.
    if (auto r = writer->set_features(features); !r) return die(r.error());
  }

  // ---- synthesize what already exists (again in each new file of --switch-output, where
  // the workload has exec'd: its own maps then, not perf's "perfx-exec" placeholder)
  const record::SampleLayout layout = record::SampleLayout::from_attr(events[0].attr);
  std::optional<sys::HitTracker> tracker(std::in_place, layout);
  auto synthesize_existing = [&](bool first) -> Result<std::vector<std::byte>> {
    std::vector<std::byte> synth;
    if (auto r = sys::synthesize_kernel_mmap(layout, synth); !r && o.verbose > 0) {
      fmt::print(stderr, "perfx record: no kernel map: {}\n", r.error().message());
    }
    sys::SynthOptions so;
    so.mmap_data = o.data || cg->mode == CallGraph::kDwarf;
    so.namespaces = o.namespaces;
    if (o.all_cgroups) {
      // The perf_event controller's hierarchy: cgroup v2 (perf's fallback when no v1
      // hierarchy has perf_event, as on every systemd machine now).
      if (auto mount = sys::cgroup2_mount())
        PERFX_CHECK(sys::synthesize_cgroups(layout, synth, *mount));
    }
    if (has_cpu_target) {
      PERFX_CHECK(sys::synthesize_all_processes(layout, so, synth));
    } else {
      for (pid_t p : synth_pids) PERFX_CHECK(sys::synthesize_process(p, layout, so, synth));
      if (follows_workload_only && first) {
        PERFX_CHECK(sys::synthesize_comm(workload->pid(), "perfx-exec", layout, synth));
        if (o.namespaces)
          PERFX_CHECK(sys::synthesize_namespaces(workload->pid(), workload->pid(), layout, synth));
      } else if (follows_workload_only) {
        // The workload may have ended meanwhile: then there is nothing to describe.
        (void)sys::synthesize_process(workload->pid(), layout, so, synth);
      }
    }
    return synth;
  };
  auto write_existing = [&](const std::vector<std::byte>& synth) -> Result<void> {
    for_each_record(synth, [&](std::span<const std::byte> rec) { tracker->feed(rec); });
    if (!synth.empty()) PERFX_CHECK(writer->write_bytes(synth));
    return {};
  };
  if (auto r = synthesize_existing(true).and_then(write_existing); !r) return die(r.error());

  // The features of the file written so far (build-ids of the DSOs its samples hit, its
  // sample times), then its header: the end of a recording or of a --switch-output file.
  auto finish_file = [&]() -> Result<void> {
    if (!writer->is_pipe()) {
      record::Features file_features = features;
      if (tracker->kernel_hit() && !o.no_buildid) {
        if (auto id = sys::read_kernel_build_id()) {
          record::BuildIdEntry e;
          e.pid = -1;
          e.misc = PERF_RECORD_MISC_KERNEL;
          e.build_id = *id;
          e.filename = "[kernel.kallsyms]";
          file_features.build_ids.push_back(std::move(e));
        }
      }
      for (const auto& f : o.no_buildid ? std::vector<std::string>{} : tracker->hit_files()) {
        if (auto id = sys::read_elf_build_id(f)) {
          record::BuildIdEntry e;
          e.pid = -1;
          e.misc = PERF_RECORD_MISC_USER;
          e.build_id = *id;
          e.filename = f;
          if (o.verbose > 0)
            fmt::print(stderr, "build-id {} {}\n", core::build_id_hex(id->data(), id->size()), f);
          file_features.build_ids.push_back(std::move(e));
        }
      }
      if (tracker->first_time() != 0) {
        file_features.sample_time = record::SampleTime{tracker->first_time(), tracker->last_time()};
      }
      PERFX_CHECK(writer->set_features(file_features));
    }
    return writer->finalize();
  };
  // --switch-output: the file so far is finished and renamed with its timestamp (perf's
  // "Dump" line), the oldest beyond --switch-max-files removed, and a new file started
  // with the attrs and what already exists.
  std::vector<std::string> dumped_files;
  auto dump = [&](const std::string& dumped) -> Result<void> {
    if (::rename(o.output.c_str(), dumped.c_str()) != 0)
      return fail(Errc::kIo, "renaming {} to {}: {}", o.output, dumped, std::strerror(errno));
    if (!o.quiet) fmt::print(stderr, "[ perfx record: Dump {} ]\n", dumped);
    dumped_files.push_back(dumped);
    if (o.switch_max_files > 0 && dumped_files.size() > o.switch_max_files) {
      (void)::unlink(dumped_files.front().c_str());
      dumped_files.erase(dumped_files.begin());
    }
    return {};
  };
  // A workload that is exiting has no maps left to describe: a new file would hold its
  // last samples without them, so the current file goes on instead (false).
  auto switch_file = [&]() -> Result<bool> {
    PERFX_TRY(synth, synthesize_existing(false));
    if (follows_workload_only) {
      bool maps = false;
      for_each_record(synth, [&](std::span<const std::byte> rec) {
        std::uint32_t type = 0, pid = 0;
        std::memcpy(&type, rec.data(), 4);
        if (rec.size() >= 12) std::memcpy(&pid, rec.data() + 8, 4);
        maps |= (type == PERF_RECORD_MMAP || type == PERF_RECORD_MMAP2) &&
                pid == static_cast<std::uint32_t>(workload->pid());
      });
      if (!maps) return false;
    }
    PERFX_CHECK(finish_file());
    PERFX_CHECK(dump(o.output + "." + current_timestamp()));
    PERFX_TRY(next, record::PerfDataWriter::create(o.output, wattrs, wo));
    *writer = std::move(next);
    tracker.emplace(layout);
    PERFX_CHECK(write_existing(synth));
    return true;
  };

  // ---- run
  // Ctrl-C reaches the workload through the terminal; perfx itself keeps going until the
  // buffers are drained. A broken output pipe must not kill us silently either.
  ::signal(SIGPIPE, SIG_IGN);
  if (auto r = sampler->add_wait_fd(sigpipe->fd()); !r) return die(r.error());

  if (o.delay_ms == 0 && !follows_workload_only) {
    if (auto r = sampler->enable(); !r) return die(r.error());
  }
  if (workload) {
    if (auto r = workload->start(); !r) {
      fmt::print(stderr, "perfx record: {}\n", r.error().message());
      return 127;
    }
  }
  if (o.delay_ms > 0) {
    // -D: perf sleeps the delay after starting the workload, then enables the events
    // (whether the workload still runs or not). A signal cuts the sleep short.
    if (!o.quiet) fmt::print(stderr, "Events disabled\n");
    pollfd p{sigpipe->fd(), POLLIN, 0};
    (void)::poll(&p, 1, static_cast<int>(std::min<unsigned>(o.delay_ms, 86400000U)));
    if (auto r = sampler->enable(); !r) return die(r.error());
    if (!o.quiet) fmt::print(stderr, "Events enabled\n");
  }

  std::vector<std::byte> scratch;
  const bool many_buffers = sampler->buffer_count() > 1;
  std::optional<Error> write_error;
  auto sink = [&](std::span<const std::byte> first, std::span<const std::byte> second,
                  int) -> Result<void> {
    const auto bytes = contiguous(first, second, scratch);
    for_each_record(bytes, [&](std::span<const std::byte> rec) { tracker->feed(rec); });
    return writer->write_bytes(bytes);
  };
  auto drain_round = [&]() -> Result<void> {
    PERFX_TRY(n, sampler->drain(sink));
    if (n > 0 && many_buffers) PERFX_CHECK(writer->finish_round());
    return {};
  };

  bool stop = false;
  bool interrupted = false;
  std::optional<sys::ExitStatus> exit_status;
  bool size_limit = false;
  using Clock = std::chrono::steady_clock;
  auto next_switch = Clock::now() + std::chrono::seconds(switch_output.seconds);
  // Write-through: the buffers are drained and the file flushed (its header's data size
  // updated) every quarter second, so a recorder killed with SIGKILL or by the OOM killer
  // leaves all but the last half second or so on disk.
  constexpr int kDrainMs = 250;
  auto next_flush = Clock::now() + std::chrono::milliseconds(kDrainMs);
  while (!stop) {
    auto w = sampler->wait(kDrainMs);
    if (!w) {
      write_error = w.error();
      break;
    }
    if (auto r = drain_round(); !r) {
      write_error = r.error();
      break;
    }
    if (Clock::now() >= next_flush) {
      if (auto r = writer->flush(); !r) {
        write_error = r.error();
        break;
      }
      next_flush = Clock::now() + std::chrono::milliseconds(kDrainMs);
    }
    bool switch_now = false;
    for (int s : sigpipe->take()) {
      if (s == SIGINT || s == SIGTERM || s == SIGHUP) {
        interrupted = true;
        stop = true;
        if (workload && s != SIGINT) (void)workload->kill(s);
      }
      if (s == SIGUSR2 && switch_output.signal) switch_now = true;
    }

    if (workload && !exit_status) {
      sys::ExitStatus st;
      auto done = workload->try_wait(st);
      if (done && *done) {
        exit_status = st;
        if (follows_workload_only || !has_cpu_target) stop = true;
        if (has_cpu_target) stop = true;
      }
    }
    if (w->all_hung_up && !has_cpu_target) stop = true;
    if (max_size > 0 && !stop) {
      const auto& ws = writer->stats();
      const std::uint64_t written = ws.compressed_bytes > 0 ? ws.compressed_bytes : ws.data_bytes;
      if (written >= max_size) {
        size_limit = true;
        stop = true;
        if (!o.quiet)
          fmt::print(stderr,
                     "[ perfx record: perf size limit reached ({} KB), stopping session ]\n",
                     written / 1024);
        if (workload) (void)workload->kill(SIGTERM);
      }
    }
    // --switch-output, while the session goes on (a new file after the workload ended
    // could not describe its maps: /proc has forgotten them).
    if (switch_output.size > 0) {
      const auto& ws = writer->stats();
      switch_now |=
          (ws.compressed_bytes > 0 ? ws.compressed_bytes : ws.data_bytes) >= switch_output.size;
    }
    if (switch_output.seconds > 0 && Clock::now() >= next_switch) {
      switch_now = true;
      next_switch = Clock::now() + std::chrono::seconds(switch_output.seconds);
    }
    if (switch_now && !stop && !exit_status) {
      if (auto r = switch_file(); !r) {
        write_error = r.error();
        break;
      }
    }
  }
  (void)sampler->disable();
  if (!write_error) {
    if (auto r = drain_round(); !r) write_error = r.error();
  }
  if (workload && !exit_status) {
    if (interrupted) {
      // SIGINT from a terminal already reached the workload; make sure it ends.
      sys::ExitStatus st;
      auto done = workload->try_wait(st);
      if (done && *done) {
        exit_status = st;
      } else {
        (void)workload->kill(SIGTERM);
        if (auto ws = workload->wait(); ws) exit_status = *ws;
      }
    } else if (auto ws = workload->wait(); ws) {
      exit_status = *ws;
    }
  }
  (void)sampler->update_lost_from_read();
  const SamplerStats stats = sampler->stats();
  // perf writes one PERF_RECORD_LOST_SAMPLES per fd that dropped samples (its "Total Lost
  // Samples" line counts these), identified by the fd's sample id.
  if (!write_error) {
    for (const auto& l : sampler->lost_by_fd()) {
      if (l.lost == 0) continue;
      record::Record r;
      r.header.type = PERF_RECORD_LOST_SAMPLES;
      r.attr_index = static_cast<int>(l.event);
      r.sample_id.pid = static_cast<std::uint32_t>(l.pid);
      r.sample_id.tid = static_cast<std::uint32_t>(l.pid);
      r.sample_id.time = tracker->last_time();
      r.sample_id.id = l.id;
      r.sample_id.cpu = static_cast<std::uint32_t>(l.cpu < 0 ? 0 : l.cpu);
      r.body = record::LostSamples{l.lost};
      if (auto w = writer->write(r); !w) write_error = w.error();
    }
  }

  // ---- features and build-ids of the DSOs that samples hit
  if (auto r = finish_file(); !r && !write_error) write_error = r.error();

  if (write_error) {
    fmt::print(stderr, "perfx record: {}\n", write_error->message());
    return 1;
  }
  if (stats.corrupt_events > 0) {
    fmt::print(stderr,
               "perfx record: warning: {} corrupt ring-buffer record(s); dropped {} bytes\n",
               stats.corrupt_events, stats.dropped_bytes);
  }
  if (stats.throttle > 0 && !o.quiet) {
    fmt::print(stderr, "perfx record: {} throttle / {} unthrottle events\n", stats.throttle,
               stats.unthrottle);
  }
  std::string written_name = to_stdout ? std::string("(pipe)") : o.output;
  if (switch_output.on && !dumped_files.empty() && tracker->first_time() == 0) {
    // The session ended right after a switch: a last file without samples is not kept.
    (void)::unlink(o.output.c_str());
    written_name = o.output + ".<timestamp>";
  } else if (o.timestamp_filename && !to_stdout) {
    // perf writes the file, then renames it: "[ perf record: Dump perf.data.<ts> ]".
    if (auto r = dump(o.output + "." + current_timestamp()); !r) {
      fmt::print(stderr, "perfx record: {}\n", r.error().message());
      return 1;
    }
    written_name = o.output + ".<timestamp>";
  }
  if (!o.quiet) {
    const auto& ws = writer->stats();
    const double mb =
        static_cast<double>(ws.compressed_bytes > 0 ? ws.compressed_bytes : ws.data_bytes) /
        (1024.0 * 1024.0);
    std::string lost;
    if (stats.lost() > 0) lost = fmt::format(", {} lost", stats.lost());
    fmt::print(stderr, "[ perfx record: Captured and wrote {:.3f} MB {} ({} samples{}) ]\n", mb,
               written_name, stats.samples, lost);
  }
  // A workload stopped for --max-size is not a failure (perf exits 0 then).
  if (exit_status && exit_status->signaled && size_limit) return 0;
  if (exit_status) return exit_status->code;
  return 0;
}

const Registration kReg{{"record", "Sample events into perf.data", &run_record}};

}  // namespace
}  // namespace perfx::cli
