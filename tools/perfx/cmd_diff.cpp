// perfx diff: compare two recordings like `perf diff` (Baseline / Delta Abs per shared
// object and symbol), or draw a differential flame graph with --format html.

#include <iostream>
#include <optional>
#include <string>
#include <vector>

#include "command_front.hpp"
#include "output_file.hpp"
#include "perfx/perf_text.hpp"
#include "perfx/recording.hpp"
#include "perfx/report.hpp"
#include "progress.hpp"
#include "sample_filters.hpp"

namespace perfx::cli {
namespace {

const CommandFront cmd{"diff"};

int run_diff(int argc, char** argv) {
  CLI::App app{"Compare two perf.data files (baseline first), like perf diff", "perfx diff"};
  std::vector<std::string> files;
  ReaderArgs in;
  SampleFilters filters;
  std::string format = "stdio";
  std::string title;
  bool icicle = false, dump_raw = false;
  app.add_option("files", files, "OLD NEW (default: perf.data.old perf.data)")->expected(0, 2);
  app.add_option("--format", format,
                 "stdio (the perf diff table) or html (differential flame graph)")
      ->check(CLI::IsMember({"stdio", "html"}));
  app.add_option("--title", title, "title of the flame graph");
  // perf diff's -o is --order: the output file is --output only.
  add_reader_options(app, in, kForceOption | kVerboseOption | kStdioOption);
  app.add_option("--output", in.output, "write to this file instead of stdout");
  DiffOptions dopts;
  std::string compute;
  app.add_option("-c,--compute", compute,
                 "delta, delta-abs (default), ratio or wdiff:W1,W2: the second column");
  add_switches(app, {{"--icicle", &icicle, "html: draw roots at the top"},
                     {"-q,--quiet", &dopts.quiet, "only the rows, no header lines"},
                     {"-p,--period", &dopts.periods, "show the periods (Base period, Period)"},
                     {"-b,--baseline-only", &dopts.baseline_only, "only rows found in both files"},
                     {"-F,--formula", &dopts.formula, "show how the -c column is computed"},
                     {"-D,--dump-raw-trace", &dump_raw, "each file's raw dump before the table"}});
  app.add_option("-o,--order", dopts.order, "sort by this file's column: 0 baseline, 1 -c's");
  std::string sort_keys, percentage = "absolute";
  app.add_option("-s,--sort", sort_keys, "pair rows by these keys: comm, pid, dso, symbol");
  app.add_option("--percentage", percentage, "absolute (of all samples) or relative (of the shown)")
      ->check(CLI::IsMember({"absolute", "relative"}));
  app.add_option("-t,--field-separator", dopts.field_separator,
                 "separate columns with this string (values unaligned, no dot rule)");
  // perf diff's -C is --comms; its filters hold in both files.
  add_filter_options(app, filters, {.comms = "-C,--comms", .cpu = "--cpu"});
  if (auto rc = CommandFront::parse(app, argc, argv)) return *rc;
  if (files.empty()) files = {"perf.data.old", "perf.data"};
  if (files.size() == 1) files.insert(files.begin(), "perf.data.old");  // perf: NEW is the arg
  if (!compute.empty()) {
    if (auto ok = parse_diff_compute(compute, dopts); !ok) return cmd.fail(ok.error().message());
  }
  if (!sort_keys.empty()) {
    if (auto ok = parse_diff_sort(sort_keys, dopts); !ok) return cmd.fail(ok.error().message());
  }
  dopts.relative = percentage == "relative";
  // --time is checked while loading, where its message names the file.
  ProfileOptions lo;
  const FilterTargets targets{&dopts.thread_filter, &lo.cpus, &dopts.dsos, &dopts.symbols,
                              &lo.time};
  if (!filters.parse(targets, false)) return cmd.fail("bad --pid, --tid or --cpu list");

  // perf's rule (as report and script): another user's perf.data could be crafted
  // against the reader; a damaged file is not silently compared.
  std::optional<Profile> profiles[2];
  // The reader's messages name the file already; others get it in front.
  auto say = [](const std::string& file, const std::string& msg) {
    return cmd.fail(msg.rfind(file, 0) == 0 ? msg : file + ": " + msg);
  };
  for (std::size_t i = 0; i < 2; ++i) {
    auto rec = Recording::open(files[i], {in.force});
    // The owner check's and the reader's messages name the file.
    if (!rec) return cmd.fail(rec.error().message());
    if (dump_raw) {
      auto ok = write_raw_dump(
          *rec, std::cout, {.command = RawDumpOptions::Command::kDiff, .warn_unordered = i == 0});
      if (!(std::cout << std::flush) || !ok)
        return say(files[i], ok ? "write error" : ok.error().message());
    }
    const std::string label = "Loading " + files[i];
    lo.progress = terminal_progress(label);
    auto p = rec->load_profile(lo);
    if (!p) return say(files[i], p.error().message());
    if (!p->damage.empty()) return say(files[i], p->damage);
    profiles[i] = std::move(*p);
  }
  const Profile* old_profile = &*profiles[0];
  const Profile* new_profile = &*profiles[1];

  auto file = OutputFile::open(in.output);
  if (!file) return cmd.fail(file.error().message());
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
  if (!r) return cmd.fail(r.error().message());
  return 0;
}

const Registration kReg{{"diff",
                         "Compare two recordings (perf diff table or differential flame graph)",
                         &run_diff, true}};

}  // namespace
}  // namespace perfx::cli
