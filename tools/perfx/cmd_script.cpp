// perfx script: perf script's text for every sample of a perf.data, in time order.

#include <fmt/core.h>
// CLI11's inlined std::string code trips GCC 12's -Wnull-dereference at -O2 (a false
// positive inside libstdc++).
#pragma GCC diagnostic ignored "-Wnull-dereference"

#include <CLI/CLI.hpp>
#include <iostream>
#include <sstream>
#include <string>
#include <vector>

#include "command.hpp"
#include "option_prefix.hpp"
#include "output_file.hpp"
#include "record/ownership_check.hpp"
#include "report/script_text.hpp"

namespace perfx::cli {
namespace {

int run_script(int argc, char** argv) {
  CLI::App app{"Print the samples of a perf.data as text (like perf script)", "perfx script"};
  std::string input = "perf.data";
  std::string fields;
  std::string output;
  report::ScriptOptions so;
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
  app.add_option("-o,--output", output, "write to this file instead of stdout");
  try {
    parse_args(app, argc, argv);
  } catch (const CLI::ParseError& e) {
    return app.exit(e);
  }
  if (parse_only) return 0;  // CLI fuzz target: options only (command.hpp)
  // perf's rule: another user's perf.data could be crafted against the reader.
  if (auto owner = record::check_input_owner(input, force); !owner) {
    fmt::print(stderr, "perfx script: {}\n", owner.error().message());
    return 1;
  }
  std::istringstream in(fields);
  for (std::string f; std::getline(in, f, ',');)
    if (!f.empty()) so.fields.push_back(f);
  std::ios::sync_with_stdio(false);
  auto file = OutputFile::open(output);
  if (!file) {
    fmt::print(stderr, "perfx script: {}\n", file.error().message());
    return 1;
  }
  auto ok = report::write_script(file->stream(), input, so);
  // A failed write (disk full) is told with the file's name and errno first.
  if (auto closed = file->finish(); !closed) ok = std::move(closed);
  if (!ok) {
    fmt::print(stderr, "perfx script: {}\n", ok.error().message());
    return 1;
  }
  return 0;
}

const Registration kReg{{"script", "Print the samples of a perf.data as text", &run_script}};

}  // namespace
}  // namespace perfx::cli
