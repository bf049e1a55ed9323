// perfx trace: argv -> perfx::TraceOptions -> perfx::run_trace, printing each event with
// perfx::format_trace_event and the -s table with perfx::TraceSummary (perfx/trace.hpp).

// g++ 12 -O2 reports a false "potential null pointer dereference" inside CLI11's
// detail::split (vector<string> relocation); the code is CLI11's, not ours.
#pragma GCC diagnostic ignored "-Wnull-dereference"

#include <fmt/core.h>
#include <unistd.h>
#include <CLI/CLI.hpp>

#include <cerrno>
#include <cstdio>
#include <cstring>
#include <memory>
#include <sstream>
#include <string>
#include <vector>

#include "command.hpp"
#include "option_prefix.hpp"
#include "perf_options.hpp"
#include "perfx/output_file.hpp"
#include "perfx/trace.hpp"

namespace perfx::cli {
namespace {

int error_exit(const std::string& msg) {
  fmt::print(stderr, "perfx trace: {}\n", msg);
  return 1;
}

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
  app.add_flag("-s,--summary", summary_only, "show only a per-thread syscall summary");
  app.add_flag("-S,--with-summary", with_summary, "show every event, then the summary");
  app.add_option("--duration", duration_ms, "show only syscalls that took longer than N.M ms")
      ->check(CLI::NonNegativeNumber);
  app.add_flag("--failure", failure, "show only syscalls that failed");
  app.add_flag("--errno-summary", errno_summary, "with -s/-S: failures per errno under each row");
  app.add_option("-o,--output", output, "write the trace to this file (default: stderr)");
  app.add_option("-p,--pid", pid_list, "trace existing processes (comma separated pids)");
  app.add_option("-t,--tid", tid_list, "trace existing threads (comma separated tids)");
  app.add_flag("-a,--all-cpus", system_wide, "trace every task on every CPU");
  app.add_option("-C,--cpu", cpu_list, "trace every task on these CPUs (0,2-3)");
  app.add_option("-F,--pf", faults, "trace page faults: all, maj or min");
  app.add_flag("--sched", sched, "interleave sched:sched_switch and sched:sched_wakeup");
  app.add_flag("--no-syscalls", no_syscalls, "do not trace system calls");
  app.add_flag("--no-inherit", no_inherit, "child tasks are not traced");
  app.add_flag("-T,--time", absolute, "show CLOCK_MONOTONIC times, not relative to the start");
  app.add_flag("--comm", comm, "show the thread name next to its id (always on)");
  app.add_flag("--no-strings", no_strings, "do not read string arguments from the process");
  app.add_option("--max-events", max_events, "stop after N events");
  app.add_option("-m,--mmap-pages", mmap_pages, "data pages per ring buffer (power of two)");
  app.prefix_command();
  try {
    parse_args(app, argc, argv);
    reject_unknown_option(app.remaining());
  } catch (const CLI::ParseError& e) {
    return usage_exit(app, e);
  }
  if (parse_only) return 0;  // CLI fuzz target: options only (command.hpp)
  std::vector<std::string> command = app.remaining();
  if (!command.empty() && command.front() == "--") command.erase(command.begin());

  TraceOptions opt;
  opt.command = command;
  opt.system_wide = system_wide;
  opt.syscalls = !no_syscalls;
  opt.inherit = !no_inherit;
  opt.read_strings = !no_strings && !summary_only;  // -s prints no arguments
  opt.max_events = max_events;
  opt.mmap_pages = mmap_pages;
  if (mmap_pages != 0 && (mmap_pages & (mmap_pages - 1)) != 0)
    return error_exit(fmt::format("-m {}: the page count must be a power of two", mmap_pages));
  std::string bad;
  if (!pid_list.empty() && (opt.pids = parse_ids(pid_list, bad)).empty())
    return error_exit(fmt::format("-p: '{}' is not a pid", bad));
  if (!tid_list.empty() && (opt.tids = parse_ids(tid_list, bad)).empty())
    return error_exit(fmt::format("-t: '{}' is not a tid", bad));
  if (!cpu_list.empty()) {
    for (const auto& part : split_commas({cpu_list})) {
      int lo = -1, hi = -1;
      char tail = 0;
      const int n = std::sscanf(part.c_str(), "%d-%d%c", &lo, &hi, &tail);
      if (n == 1) hi = lo;
      if ((n != 1 && n != 2) || lo < 0 || hi < lo || hi > 4095)
        return error_exit(fmt::format("-C: '{}' is not a CPU or range", part));
      for (int c = lo; c <= hi; ++c) opt.cpus.push_back(c);
    }
  }
  if (faults == "all")
    opt.page_faults = TracePageFaults::kAll;
  else if (faults == "maj")
    opt.page_faults = TracePageFaults::kMajor;
  else if (faults == "min")
    opt.page_faults = TracePageFaults::kMinor;
  else if (!faults.empty())
    return error_exit(fmt::format("-F '{}': give all, maj or min", faults));
  bool any_syscall = false;
  if (const std::string err = apply_expr(exprs, opt, any_syscall); !err.empty())
    return error_exit(err);
  // perf trace -e with only tracepoints traces no syscalls.
  if (!exprs.empty() && !any_syscall) opt.syscalls = false;
  if (no_syscalls && any_syscall) return error_exit("--no-syscalls with syscalls in -e");
  if (sched) {
    opt.tracepoints.push_back("sched:sched_switch");
    opt.tracepoints.push_back("sched:sched_wakeup");
  }
  if (summary_only && with_summary) return error_exit("-s and -S: pick one");
  const bool target = !command.empty() || !opt.pids.empty() || !opt.tids.empty() || system_wide ||
                      !opt.cpus.empty();
  if (!target) {
    fmt::print(stderr, "{}", app.help());
    return error_exit("give a command to trace, or -p, -t, -a or -C");
  }

  auto catalog = SyscallCatalog::load();
  if (!catalog) return error_exit(catalog.error().message());
  opt.catalog = &*catalog;

  std::FILE* out = stderr;
  std::unique_ptr<std::FILE, int (*)(std::FILE*)> file(nullptr, &std::fclose);
  if (!output.empty()) {
    auto created = OutputFile::create(output, CreateMode::kNew);
    if (!created) return error_exit(created.error().message());
    const int fd = created->release();
    file.reset(::fdopen(fd, "w"));
    if (!file) {
      ::close(fd);
      return error_exit(fmt::format("cannot write {}: {}", output, std::strerror(errno)));
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
    return error_exit(result.error().message());
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
    return error_exit(fmt::format("writing {}: {}", output, std::strerror(errno)));
  return 0;
}

const Registration kReg{
    {"trace", "Trace system calls, page faults and tracepoints (like perf trace)", &run_trace_cmd}};

}  // namespace
}  // namespace perfx::cli
