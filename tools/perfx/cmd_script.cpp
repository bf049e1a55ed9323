// perfx script: perf script's text for every sample of a perf.data, in time order.

#include <fmt/core.h>
// CLI11's inlined std::string code trips GCC 12's -Wnull-dereference at -O2 (a false
// positive inside libstdc++).
#pragma GCC diagnostic ignored "-Wnull-dereference"

#include <CLI/CLI.hpp>
#include <iostream>
#include <string>
#include <vector>

#include "command.hpp"
#include "list_options.hpp"
#include "option_prefix.hpp"
#include "output_file.hpp"
#include "perf_options.hpp"
#include "perfx/perf_text.hpp"
#include "perfx/recording.hpp"
#include "progress.hpp"

namespace perfx::cli {
namespace {

int error_exit(const std::string& msg) {
  fmt::print(stderr, "perfx script: {}\n", msg);
  return 1;
}

int run_script(int argc, char** argv) {
  CLI::App app{"Print the samples of a perf.data as text (like perf script)", "perfx script"};
  std::string input = "perf.data";
  std::string fields;
  std::string output;
  ScriptOptions so;
  app.add_option("-i,--input", input, "input file ('-' = stdin pipe)")->capture_default_str();
  bool force = false;
  app.add_flag("-f,--force", force, "read a perf.data not owned by the current user or root");
  app.add_option("-F,--fields", fields,
                 "comma separated: comm,tid,pid,time,cpu,event,ip,sym,symoff,dso,addr,period,"
                 "srcline,trace");
  app.add_flag("--ns", so.ns, "nanosecond timestamps");
  app.add_flag("--inline,!--no-inline", so.inline_frames,
               "show inline scopes of callchain frames (default on, as perf)");
  app.add_flag("--show-task-events", so.show_task_events, "also COMM/FORK/EXIT records");
  app.add_flag("--show-mmap-events", so.show_mmap_events, "also MMAP/MMAP2 records");
  app.add_flag("--demangle-params", so.demangle_params,
               "C++ names with parameter lists (what perf script -v shows)");
  bool no_demangle = false;
  app.add_flag("--no-demangle", no_demangle, "symbol names as the binaries have them");
  app.add_flag("--full-source-path", so.full_source_path, "srcline with the file's whole path");
  std::string comms, pids, tids, cpus, dsos, symbols;
  app.add_option("-c,--comms", comms, "only samples of these commands (comma separated)");
  app.add_option("--pid", pids, "only samples of these process ids");
  app.add_option("--tid", tids, "only samples of these thread ids");
  app.add_option("-C,--cpu", cpus, "only samples on these CPUs (0,2 or 0-3)");
  app.add_option("--dsos", dsos, "only samples in these shared objects");
  app.add_option("-S,--symbols", symbols, "only samples in these symbols (name or 0x start)");
  app.add_option("--time", so.time,
                 "time windows (perf syntax): START,STOP [START,STOP..] in seconds, 10%/2, 0%-10%");
  app.add_flag("-G,--hide-call-graph", so.hide_call_graph, "one line per sample, no callchain");
  int max_stack = -1;
  app.add_option("--max-stack", max_stack, "show at most N callchain entries");
  bool reltime = false, deltatime = false;
  app.add_flag("--reltime", reltime, "times since the first event shown");
  app.add_flag("--deltatime", deltatime, "times since the previous event shown");
  app.add_flag("--show-lost-events", so.show_lost_events, "also LOST records");
  app.add_flag("--show-switch-events", so.show_switch_events, "also SWITCH records");
  bool header = false, header_only = false;
  app.add_flag("--header", header, "show the recording's header before the samples");
  app.add_flag("--header-only", header_only, "show only the recording's header");
  int verbose = 0;
  app.add_flag("-v,--verbose", verbose, "more warnings (accepted for perf's habit)");
  app.add_option("-o,--output", output, "write to this file instead of stdout");
  try {
    parse_args(app, argc, argv);
  } catch (const CLI::ParseError& e) {
    return usage_exit(app, e);
  }
  if (parse_only) return 0;  // CLI fuzz target: options only (command.hpp)
  // Owner check (perf's -f) and header, before the options that need the recording.
  auto rec = Recording::open(input, {force});
  if (!rec) return error_exit(rec.error().message());
  (void)verbose;
  so.fields = split_list(fields);
  so.demangle = !no_demangle;
  so.thread_filter.comms = split_list(comms);
  so.dsos = split_list(dsos);
  so.symbols = split_list(symbols);
  if (!parse_int_list(pids, so.thread_filter.pids))
    return error_exit(fmt::format("bad --pid '{}'", pids));
  if (!parse_int_list(tids, so.thread_filter.tids))
    return error_exit(fmt::format("bad --tid '{}'", tids));
  if (!parse_cpu_list(cpus, so.cpus)) return error_exit(fmt::format("bad --cpu '{}'", cpus));
  // Checked before reading for a clear error; percent forms need the recording.
  if (auto ok = check_time_windows(so.time); !ok) return error_exit(ok.error().message());
  if (max_stack >= 0) so.max_stack = static_cast<std::size_t>(max_stack);
  if (reltime && deltatime) return error_exit("--reltime and --deltatime cannot be used together");
  if (reltime) so.time_base = ScriptOptions::TimeBase::kRelative;
  if (deltatime) so.time_base = ScriptOptions::TimeBase::kDelta;
  std::ios::sync_with_stdio(false);
  auto file = OutputFile::open(output);
  if (!file) return error_exit(file.error().message());
  // A pipe's header is read only for --header-only (it would consume the stream).
  if (header_only || (header && input != "-")) {
    auto text = rec->header_text();
    if (!text) return error_exit(text.error().message());
    file->stream() << *text;
    if (header_only) {
      if (auto closed = file->finish(); !closed) return error_exit(closed.error().message());
      return 0;
    }
  }
  std::vector<std::string> warnings;
  so.progress = terminal_progress("Reading samples", output.empty() || output == "-");
  auto ok = write_script(*rec, file->stream(), so, &warnings);
  // A failed write (disk full) is told with the file's name and errno first.
  if (auto closed = file->finish(); !closed) ok = std::move(closed);
  for (const auto& w : warnings) fmt::print(stderr, "perfx script: warning: {}\n", w);
  if (!ok) return error_exit(ok.error().message());
  return 0;
}

const Registration kReg{{"script", "Print the samples of a perf.data as text", &run_script, true}};

}  // namespace
}  // namespace perfx::cli
