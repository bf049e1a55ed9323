// perfx diff: compare two recordings like `perf diff` (Baseline / Delta Abs per shared
// object and symbol), or draw a differential flame graph with --format html.
// CLI11's inlined std::string code trips GCC 12's -Wnull-dereference at -O2 (a false
// positive inside libstdc++).
#pragma GCC diagnostic ignored "-Wnull-dereference"

#include <fmt/core.h>
#include <CLI/CLI.hpp>

#include <iostream>
#include <optional>
#include <string>
#include <vector>

#include "command.hpp"
#include "list_options.hpp"
#include "option_prefix.hpp"
#include "output_file.hpp"
#include "perf_options.hpp"
#include "perfx/recording.hpp"
#include "perfx/report.hpp"
#include "progress.hpp"

namespace perfx::cli {
namespace {

int run_diff(int argc, char** argv) {
  CLI::App app{"Compare two perf.data files (baseline first), like perf diff", "perfx diff"};
  std::vector<std::string> files;
  std::string format = "stdio";
  std::string output;
  std::string title;
  bool icicle = false;
  bool stdio = false;
  bool force = false;
  app.add_option("files", files, "OLD NEW (default: perf.data.old perf.data)")->expected(0, 2);
  app.add_option("--format", format,
                 "stdio (the perf diff table) or html (differential flame graph)")
      ->check(CLI::IsMember({"stdio", "html"}));
  app.add_flag("--stdio", stdio, "print the table (the default)");
  app.add_option("-o,--output", output, "write to this file instead of stdout");
  app.add_option("--title", title, "title of the flame graph");
  app.add_flag("--icicle", icicle, "html: draw roots at the top");
  app.add_flag("-f,--force", force, "read perf.data files not owned by the current user or root");
  DiffOptions dopts;
  std::string comms, dsos, symbols, pids, tids, cpus, time_range;
  int verbose = 0;
  app.add_flag("-q,--quiet", dopts.quiet, "only the rows, no header lines");
  std::string compute;
  app.add_option("-c,--compute", compute,
                 "delta, delta-abs (default), ratio or wdiff:W1,W2: the second column");
  app.add_flag("-p,--period", dopts.periods, "show the periods (Base period, Period)");
  app.add_flag("-b,--baseline-only", dopts.baseline_only, "only rows found in both files");
  app.add_option("-t,--field-separator", dopts.field_separator,
                 "separate columns with this string (values unaligned, no dot rule)");
  app.add_flag("-v,--verbose", verbose, "more warnings (accepted for perf's habit)");
  app.add_option("-C,--comms", comms, "only rows made by samples of these commands");
  app.add_option("-d,--dsos", dsos, "only rows of these shared objects");
  app.add_option("-S,--symbols", symbols, "only rows of these symbols");
  app.add_option("--pid", pids, "only rows made by samples of these process ids");
  app.add_option("--tid", tids, "only rows made by samples of these thread ids");
  app.add_option("--cpu", cpus, "only samples on these CPUs (0,2-3)");
  app.add_option("--time", time_range, "time windows (perf syntax), in both files");
  try {
    parse_args(app, argc, argv);
  } catch (const CLI::ParseError& e) {
    return usage_exit(app, e);
  }
  if (parse_only) return 0;  // CLI fuzz target: options only (command.hpp)
  if (files.empty()) files = {"perf.data.old", "perf.data"};
  if (files.size() == 1) files.insert(files.begin(), "perf.data.old");  // perf: NEW is the arg
  (void)verbose;
  if (!compute.empty()) {
    if (auto ok = parse_diff_compute(compute, dopts); !ok) {
      fmt::print(stderr, "perfx diff: {}\n", ok.error().message());
      return 1;
    }
  }
  ProfileOptions lo;
  dopts.thread_filter.comms = split_list(comms);
  dopts.dsos = split_list(dsos);
  dopts.symbols = split_list(symbols);
  lo.time = time_range;
  if (!parse_int_list(pids, dopts.thread_filter.pids) ||
      !parse_int_list(tids, dopts.thread_filter.tids) || !parse_cpu_list(cpus, lo.cpus)) {
    fmt::print(stderr, "perfx diff: bad --pid, --tid or --cpu list\n");
    return 1;
  }

  // perf's rule (as report and script): another user's perf.data could be crafted
  // against the reader; a damaged file is not silently compared.
  std::optional<Profile> profiles[2];
  // The reader's messages name the file already; others get it in front.
  auto say = [](const std::string& file, const std::string& msg) {
    if (msg.rfind(file, 0) == 0)
      fmt::print(stderr, "perfx diff: {}\n", msg);
    else
      fmt::print(stderr, "perfx diff: {}: {}\n", file, msg);
  };
  for (std::size_t i = 0; i < 2; ++i) {
    auto rec = Recording::open(files[i], {force});
    if (!rec) {  // the owner check's and the reader's messages name the file
      fmt::print(stderr, "perfx diff: {}\n", rec.error().message());
      return 1;
    }
    const std::string label = "Loading " + files[i];
    lo.progress = terminal_progress(label);
    auto p = rec->load_profile(lo);
    if (!p) {
      say(files[i], p.error().message());
      return 1;
    }
    if (!p->damage.empty()) {
      say(files[i], p->damage);
      return 1;
    }
    profiles[i] = std::move(*p);
  }
  const Profile* old_profile = &*profiles[0];
  const Profile* new_profile = &*profiles[1];

  auto file = OutputFile::open(output);
  if (!file) {
    fmt::print(stderr, "perfx diff: {}\n", file.error().message());
    return 1;
  }
  std::ostream& out = file->stream();
  Result<void> r;
  if (format == "html") {
    DiffGraphOptions options;
    options.title = title.empty() ? fmt::format("perfx diff {} {}", files[0], files[1]) : title;
    options.inverted = icicle;
    r = write_diff_flamegraph(*old_profile, *new_profile, out, options);
  } else {
    auto sections = diff_profiles(*old_profile, *new_profile, dopts);
    if (!sections) {
      r = tl::unexpected(sections.error());
    } else {
      r = write_diff_table(*sections, out, dopts);
    }
  }
  // A failed write (disk full) is told with the file's name and errno first.
  if (auto closed = file->finish(); !closed) r = std::move(closed);
  if (!r) {
    fmt::print(stderr, "perfx diff: {}\n", r.error().message());
    return 1;
  }
  return 0;
}

const Registration kReg{{"diff",
                         "Compare two recordings (perf diff table or differential flame graph)",
                         &run_diff, true}};

}  // namespace
}  // namespace perfx::cli
