// perfx annotate: perf annotate --stdio. Each symbol with samples (or the ones named),
// disassembled with every instruction's share of its samples and the source lines
// interleaved. See docs/annotate.md.

#include <fmt/format.h>

#include <string>
#include <vector>

#include "command_front.hpp"
#include "list_options.hpp"
#include "output_file.hpp"
#include "perfx/perf_text.hpp"
#include "perfx/recording.hpp"
#include "progress.hpp"
#include "sample_filters.hpp"

namespace perfx::cli {
namespace {

const CommandFront cmd{"annotate"};

int run_annotate(int argc, char** argv) {
  CLI::App app{"Show where in its code each hot symbol spent its samples (like perf annotate)",
               "perfx annotate"};
  ReaderArgs in;
  SampleFilters filters;
  std::vector<std::string> positional;
  std::string symbol, percent_type = "local-period", style;
  AnnotateOptions o;
  bool same_listing = false, quiet = false, dump_raw = false;
  bool skip_missing = false, no_source = false, source = false;
  std::string vmlinux, objdump, stdio_color, symfs;
  app.add_option("symbols", positional, "symbols to annotate (default: every one with samples)");
  add_reader_options(app, in, kReaderOptions | kStdioOption | kNoDemangleOption);
  app.add_option("-s,--symbol", symbol, "symbol to annotate");
  add_filter_options(app, filters,
                     {.comms = nullptr, .symbols = nullptr, .threads = false, .time = false});
  add_switches(
      app, {{"-n,--show-nr-samples", &o.show_nr_samples, "a column with the number of samples"},
            {"--show-total-period", &o.show_total_period, "a column with the sum of periods"},
            {"-P,--full-paths", &o.full_paths, "do not shorten the displayed pathnames"},
            {"--asm-raw", &o.asm_raw, "show the raw bytes of each instruction"},
            {"-l,--print-line", &o.print_line,
             "sorted summary of the hot source lines, and file:line after instructions"},
            {"--no-source", &no_source, "do not interleave source code with assembly"},
            {"--source", &source, "interleave source code with assembly (default)"},
            {"--skip-missing", &skip_missing, "say nothing about symbols that cannot be annotated"},
            {"-q,--quiet", &quiet, "no warnings"},
            {"-D,--dump-raw-trace", &dump_raw, "each record's raw dump, not the listing"},
            {"--stdio2,--tui", &same_listing, "accepted for perf's habit: the same text listing"}});
  app.add_option("--percent-type", percent_type,
                 "local-period (default), global-period, local-hits or global-hits");
  app.add_option("--percent-limit", o.percent_limit,
                 "skip symbols with less than this percentage of the event");
  app.add_option("-M,--disassembler-style", style, "att (default) or intel");
  app.add_option("--stdio-color", stdio_color, "accepted for perf's habit (no colours)");
  app.add_option("-k,--vmlinux", vmlinux, "not used: kernel symbols are not disassembled");
  app.add_option("--objdump", objdump, "not used: perfx disassembles with Capstone");
  app.add_option("--symfs", symfs, "not supported");
  if (auto rc = CommandFront::parse(app, argc, argv)) return *rc;
  (void)same_listing, (void)source;
  if (!symfs.empty()) return cmd.fail("--symfs is not supported");
  auto rec = Recording::open(in.input, {in.force});
  if (!rec) return cmd.fail(rec.error().message());
  if (dump_raw) {
    auto ok = write_raw_dump(*rec, std::cout, {.command = RawDumpOptions::Command::kAnnotate});
    return ok ? 0 : cmd.fail(ok.error().message());
  }
  auto pt = parse_percent_type(percent_type);
  if (!pt) return cmd.fail(pt.error().message());
  o.percent_type = *pt;
  if (style == "intel")
    o.syntax = AsmSyntax::kIntel;
  else if (!style.empty() && style != "att")
    return cmd.fail(fmt::format("bad -M '{}': expected att or intel", style));
  o.source = !no_source;
  o.symbols = positional;
  if (!symbol.empty()) o.symbols.push_back(symbol);
  o.demangle = !in.no_demangle;

  ProfileOptions lo;
  lo.callchains = false;  // the sampled instruction is all annotate looks at
  lo.aggregate = true;
  lo.demangle = !in.no_demangle;
  if (auto ok = filters.parse({.cpus = &lo.cpus, .dsos = &o.dsos}, false); !ok)
    return cmd.fail(ok.error().message());
  lo.progress = terminal_progress("Loading samples");
  auto prof = rec->load_profile(lo);
  if (!prof) return cmd.fail(prof.error().message());
  if (!quiet)
    for (const auto& w : prof->warnings) cmd.warn(w);

  auto file = OutputFile::open(in.output);
  if (!file) return cmd.fail(file.error().message());
  auto summary = write_annotations(*prof, file->stream(), o);
  if (auto closed = file->finish(); !closed) return cmd.fail(closed.error().message());
  if (!summary) return cmd.fail(summary.error().message());
  if (!quiet && !skip_missing)
    for (const auto& p : summary->problems) cmd.say(p);
  if (!prof->damage.empty()) return cmd.fail(prof->damage);
  if (summary->annotated == 0 && !summary->problems.empty()) {
    return cmd.fail(
        fmt::format("nothing annotated: {} symbol{} with samples could not be "
                    "annotated{}",
                    summary->problems.size(), summary->problems.size() == 1 ? "" : "s",
                    quiet || skip_missing ? "" : " (above)"));
  }
  if (summary->annotated == 0 && summary->problems.empty()) {
    if (o.symbols.empty()) return cmd.fail("no samples with symbols to annotate");
    return cmd.fail(fmt::format("no samples in {}", fmt::join(o.symbols, ", ")));
  }
  return 0;
}

const Registration kReg{
    {"annotate", "Show the hot instructions and source lines of symbols", &run_annotate, true}};

}  // namespace
}  // namespace perfx::cli
