// perfx trace: argv -> perfx::TraceOptions -> perfx::run_trace, printing each event with
// perfx::format_trace_event and the -s table with perfx::TraceSummary (perfx/trace.hpp).

#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstdio>
#include <cstring>
#include <memory>
#include <sstream>
#include <string>
#include <vector>

#include "command_front.hpp"
#include "perfx/output_file.hpp"
#include "perfx/system.hpp"
#include "perfx/trace.hpp"

namespace perfx::cli {
namespace {

const CommandFront cmd{"trace"};

std::vector<std::string> split_commas(const std::vector<std::string>& items) {
  std::vector<std::string> out;
  for (const auto& item : items) {
    std::stringstream ss(item);
    std::string part;
    while (std::getline(ss, part, ','))
      if (!part.empty()) out.push_back(part);
  }
  return out;
}

std::vector<pid_t> parse_ids(const std::string& text, std::string& bad) {
  std::vector<pid_t> out;
  for (const auto& part : split_commas({text})) {
    char* end = nullptr;
    errno = 0;
    const long v = std::strtol(part.c_str(), &end, 10);
    if (errno != 0 || end == part.c_str() || *end != '\0' || v <= 0) {
      bad = part;
      return {};
    }
    out.push_back(static_cast<pid_t>(v));
  }
  return out;
}

// -e/--expr: syscall names or globs (a leading '!' on the list or an item negates it,
// as perf trace's --expr) and tracepoints (anything with a ':').
std::string apply_expr(const std::vector<std::string>& exprs, TraceOptions& opt,
                       bool& any_syscall) {
  bool negate_all = false;
  for (std::string item : split_commas(exprs)) {
    bool negate = negate_all;
    if (item.front() == '!') {
      negate = true;
      if (!any_syscall && opt.only_syscalls.empty() && opt.skip_syscalls.empty()) negate_all = true;
      item.erase(0, 1);
    }
    if (item.empty()) return "empty name after '!'";
    if (item.find(':') != std::string::npos) {
      opt.tracepoints.push_back(item);
      continue;
    }
    const std::vector<long> nrs = match_syscalls(item);
    if (nrs.empty()) return "'" + item + "' is not a system call (or tracepoint sys:name)";
    auto& list = negate ? opt.skip_syscalls : opt.only_syscalls;
    list.insert(list.end(), nrs.begin(), nrs.end());
    any_syscall = true;
  }
  if (!opt.only_syscalls.empty() && !opt.skip_syscalls.empty())
    return "-e: give either syscalls to trace or '!' syscalls to skip, not both";
  return {};
}

int run_trace_cmd(int argc, char** argv) {
  CLI::App app{"Trace system calls, page faults and tracepoints (like perf trace)", "perfx trace"};
  std::vector<std::string> exprs;
  bool summary_only = false, with_summary = false, system_wide = false, failure = false;
  bool sched = false, no_syscalls = false, no_inherit = false, absolute = false;
  bool no_strings = false, comm = false, errno_summary = false;
  double duration_ms = 0;
  std::string output, pid_list, tid_list, cpu_list, faults;
  std::uint64_t max_events = 0;
  std::size_t mmap_pages = 0;
  app.add_option("-e,--event,--expr", exprs,
                 "syscalls (names or globs, '!' to exclude) and tracepoints (sys:name)")
      ->allow_extra_args(false);
  add_switches(
      app, {{"-s,--summary", &summary_only, "show only a per-thread syscall summary"},
            {"-S,--with-summary", &with_summary, "show every event, then the summary"},
            {"--failure", &failure, "show only syscalls that failed"},
            {"--errno-summary", &errno_summary, "with -s/-S: failures per errno under each row"},
            {"--sched", &sched, "interleave sched:sched_switch and sched:sched_wakeup"},
            {"--no-syscalls", &no_syscalls, "do not trace system calls"},
            {"--no-inherit", &no_inherit, "child tasks are not traced"},
            {"-T,--time", &absolute, "show CLOCK_MONOTONIC times, not relative to the start"},
            {"--comm", &comm, "show the thread name next to its id (always on)"},
            {"--no-strings", &no_strings, "do not read string arguments from the process"}});
  app.add_option("--duration", duration_ms, "show only syscalls that took longer than N.M ms")
      ->check(CLI::NonNegativeNumber);
  app.add_option("-o,--output", output, "write the trace to this file (default: stderr)");
  add_target_options(app, system_wide, cpu_list, pid_list, tid_list);
  app.add_option("-F,--pf", faults, "trace page faults: all, maj or min");
  app.add_option("--max-events", max_events, "stop after N events");
  app.add_option("-m,--mmap-pages", mmap_pages, "data pages per ring buffer (power of two)");
  std::vector<std::string> command;
  if (auto rc = CommandFront::parse_workload(app, argc, argv, command)) return *rc;

  TraceOptions opt;
  opt.command = command;
  opt.system_wide = system_wide;
  opt.syscalls = !no_syscalls;
  opt.inherit = !no_inherit;
  opt.read_strings = !no_strings && !summary_only;  // -s prints no arguments
  opt.max_events = max_events;
  opt.mmap_pages = mmap_pages;
  if (mmap_pages != 0 && (mmap_pages & (mmap_pages - 1)) != 0)
    return cmd.fail(fmt::format("-m {}: the page count must be a power of two", mmap_pages));
  std::string bad;
  if (!pid_list.empty() && (opt.pids = parse_ids(pid_list, bad)).empty())
    return cmd.fail(fmt::format("-p: '{}' is not a pid", bad));
  if (!tid_list.empty() && (opt.tids = parse_ids(tid_list, bad)).empty())
    return cmd.fail(fmt::format("-t: '{}' is not a tid", bad));
  if (!cpu_list.empty()) {
    for (const auto& part : split_commas({cpu_list})) {
      int lo = -1, hi = -1;
      char tail = 0;
      const int n = std::sscanf(part.c_str(), "%d-%d%c", &lo, &hi, &tail);
      if (n == 1) hi = lo;
      if ((n != 1 && n != 2) || lo < 0 || hi < lo || hi > 4095)
        return cmd.fail(fmt::format("-C: '{}' is not a CPU or range", part));
      for (int c = lo; c <= hi; ++c) opt.cpus.push_back(c);
    }
  }
  if (!faults.empty()) {
    static constexpr std::pair<std::string_view, TracePageFaults> kFaults[] = {
        {"all", TracePageFaults::kAll},
        {"maj", TracePageFaults::kMajor},
        {"min", TracePageFaults::kMinor}};
    const auto* f = std::find_if(std::begin(kFaults), std::end(kFaults),
                                 [&](const auto& k) { return k.first == faults; });
    if (f == std::end(kFaults))
      return cmd.fail(fmt::format("-F '{}': give all, maj or min", faults));
    opt.page_faults = f->second;
  }
  bool any_syscall = false;
  if (const std::string err = apply_expr(exprs, opt, any_syscall); !err.empty())
    return cmd.fail(err);
  // perf trace -e with only tracepoints traces no syscalls.
  if (!exprs.empty() && !any_syscall) opt.syscalls = false;
  if (no_syscalls && any_syscall) return cmd.fail("--no-syscalls with syscalls in -e");
  if (sched) {
    opt.tracepoints.push_back("sched:sched_switch");
    opt.tracepoints.push_back("sched:sched_wakeup");
  }
  if (summary_only && with_summary) return cmd.fail("-s and -S: pick one");
  const bool target = !command.empty() || !opt.pids.empty() || !opt.tids.empty() || system_wide ||
                      !opt.cpus.empty();
  if (!target) {
    fmt::print(stderr, "{}", app.help());
    return cmd.fail("give a command to trace, or -p, -t, -a or -C");
  }

  // Ctrl-C from here on stops the trace, never cuts its output short (perf's handler).
  latch_stop_signals();
  auto catalog = SyscallCatalog::load();
  if (!catalog) return cmd.fail(catalog.error().message());
  opt.catalog = &*catalog;

  std::FILE* out = stderr;
  std::unique_ptr<std::FILE, int (*)(std::FILE*)> file(nullptr, &std::fclose);
  if (!output.empty()) {
    auto created = OutputFile::create(output, CreateMode::kNew);
    if (!created) return cmd.fail(created.error().message());
    const int fd = created->release();
    file.reset(::fdopen(fd, "w"));
    if (!file) {
      ::close(fd);
      return cmd.fail(fmt::format("cannot write {}: {}", output, std::strerror(errno)));
    }
    out = file.get();
  }
  // One write per line costs the traced system a syscall each: buffer, flushing each line
  // only on a terminal.
  static char buffer[1 << 16];
  std::setvbuf(out, buffer, ::isatty(::fileno(out)) ? _IOLBF : _IOFBF, sizeof buffer);

  TraceFormatOptions fopt;
  fopt.catalog = opt.catalog;
  TracePrintFilter filter;
  filter.min_duration_ns = static_cast<std::uint64_t>(duration_ms * 1e6);
  filter.failure_only = failure;
  TraceSummary summary;
  bool have_base = absolute;
  auto result = run_trace(opt, [&](const TraceEvent& ev) {
    if (summary_only || with_summary) summary.add(ev);
    if (summary_only) return;
    if (!have_base) {
      fopt.base_time = ev.time;
      have_base = true;
    }
    if (filter.passes(ev)) std::fputs(format_trace_event(ev, fopt).c_str(), out);
  });
  if (!result) {
    std::fflush(out);
    return cmd.fail(result.error().message());
  }
  if (!result->exec_error.empty()) {
    std::fflush(out);
    fmt::print(stderr, "perfx: {}\n", result->exec_error);
    return result->exit_code;
  }
  if (summary_only || with_summary) std::fputs(summary.format(errno_summary).c_str(), out);
  std::fflush(out);
  if (result->lost > 0)
    fmt::print(stderr, "perfx trace: {} records lost (ring buffer full; try -m)\n", result->lost);
  if (file && std::fclose(file.release()) != 0)
    return cmd.fail(fmt::format("writing {}: {}", output, std::strerror(errno)));
  return 0;
}

const Registration kReg{
    {"trace", "Trace system calls, page faults and tracepoints (like perf trace)", &run_trace_cmd}};

}  // namespace
}  // namespace perfx::cli
