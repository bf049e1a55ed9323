// perfx annotate: perf annotate --stdio. Each symbol with samples (or the ones named),
// disassembled with every instruction's share of its samples and the source lines
// interleaved. See docs/annotate.md.
// CLI11's inlined std::string code trips GCC 12's -Wnull-dereference at -O2 (a false
// positive inside libstdc++).
#pragma GCC diagnostic ignored "-Wnull-dereference"

#include <fmt/core.h>
#include <fmt/format.h>
#include <CLI/CLI.hpp>

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
  fmt::print(stderr, "perfx annotate: {}\n", msg);
  return 1;
}

int run_annotate(int argc, char** argv) {
  CLI::App app{"Show where in its code each hot symbol spent its samples (like perf annotate)",
               "perfx annotate"};
  std::string input = "perf.data";
  std::string output;
  std::vector<std::string> positional;
  std::string symbol, dsos, cpus, percent_type = "local-period", style;
  AnnotateOptions o;
  bool force = false, stdio = false, stdio2 = false, tui = false, quiet = false;
  bool skip_missing = false, no_source = false, source = false;
  int verbose = 0;
  std::string vmlinux, objdump, stdio_color, symfs;
  app.add_option("symbols", positional, "symbols to annotate (default: every one with samples)");
  app.add_option("-i,--input", input, "input file name (default perf.data)");
  app.add_option("-o,--output", output, "write to this file instead of stdout");
  app.add_option("-s,--symbol", symbol, "symbol to annotate");
  app.add_option("-d,--dsos", dsos, "only consider symbols in these dsos");
  app.add_option("-C,--cpu", cpus, "only samples on these CPUs (0,2-3)");
  app.add_flag("-n,--show-nr-samples", o.show_nr_samples, "a column with the number of samples");
  app.add_flag("--show-total-period", o.show_total_period, "a column with the sum of periods");
  app.add_option("--percent-type", percent_type,
                 "local-period (default), global-period, local-hits or global-hits");
  app.add_option("--percent-limit", o.percent_limit,
                 "skip symbols with less than this percentage of the event");
  app.add_flag("-P,--full-paths", o.full_paths, "do not shorten the displayed pathnames");
  app.add_flag("--asm-raw", o.asm_raw, "show the raw bytes of each instruction");
  app.add_option("-M,--disassembler-style", style, "att (default) or intel");
  app.add_flag("-l,--print-line", o.print_line,
               "sorted summary of the hot source lines, and file:line after instructions");
  app.add_flag("--no-source", no_source, "do not interleave source code with assembly");
  app.add_flag("--source", source, "interleave source code with assembly (default)");
  app.add_flag("--skip-missing", skip_missing,
               "say nothing about symbols that cannot be annotated");
  app.add_flag("-q,--quiet", quiet, "no warnings");
  app.add_flag("-f,--force", force, "read a perf.data not owned by the current user or root");
  app.add_flag("--stdio", stdio, "the text listing (the only interface; accepted)");
  app.add_flag("--stdio2", stdio2, "accepted for perf's habit: the same text listing");
  app.add_flag("--tui", tui, "accepted for perf's habit: the same text listing");
  app.add_option("--stdio-color", stdio_color, "accepted for perf's habit (no colours)");
  app.add_flag("-v,--verbose", verbose, "accepted for perf's habit");
  app.add_option("-k,--vmlinux", vmlinux, "not used: kernel symbols are not disassembled");
  app.add_option("--objdump", objdump, "not used: perfx disassembles with Capstone");
  app.add_option("--symfs", symfs, "not supported");
  bool no_demangle = false;
  app.add_flag("--no-demangle", no_demangle, "symbol names as the binaries have them");
  try {
    parse_args(app, argc, argv);
  } catch (const CLI::ParseError& e) {
    return usage_exit(app, e);
  }
  if (parse_only) return 0;  // CLI fuzz target: options only (command.hpp)
  (void)stdio, (void)stdio2, (void)tui, (void)verbose, (void)source;
  if (!symfs.empty()) return error_exit("--symfs is not supported");
  auto rec = Recording::open(input, {force});
  if (!rec) return error_exit(rec.error().message());
  auto pt = parse_percent_type(percent_type);
  if (!pt) return error_exit(pt.error().message());
  o.percent_type = *pt;
  if (style == "intel")
    o.syntax = AsmSyntax::kIntel;
  else if (!style.empty() && style != "att")
    return error_exit(fmt::format("bad -M '{}': expected att or intel", style));
  o.source = !no_source;
  o.symbols = positional;
  if (!symbol.empty()) o.symbols.push_back(symbol);
  o.dsos = split_list(dsos);
  o.demangle = !no_demangle;

  ProfileOptions lo;
  lo.callchains = false;  // the sampled instruction is all annotate looks at
  lo.aggregate = true;
  lo.demangle = !no_demangle;
  if (!parse_cpu_list(cpus, lo.cpus)) return error_exit(fmt::format("bad --cpu '{}'", cpus));
  lo.progress = terminal_progress("Loading samples");
  auto prof = rec->load_profile(lo);
  if (!prof) return error_exit(prof.error().message());
  if (!quiet)
    for (const auto& w : prof->warnings) fmt::print(stderr, "perfx annotate: warning: {}\n", w);

  auto file = OutputFile::open(output);
  if (!file) return error_exit(file.error().message());
  auto summary = write_annotations(*prof, file->stream(), o);
  if (auto closed = file->finish(); !closed) return error_exit(closed.error().message());
  if (!summary) return error_exit(summary.error().message());
  if (!quiet && !skip_missing)
    for (const auto& p : summary->problems) fmt::print(stderr, "perfx annotate: {}\n", p);
  if (!prof->damage.empty()) return error_exit(prof->damage);
  if (summary->annotated == 0 && !summary->problems.empty()) {
    return error_exit(
        fmt::format("nothing annotated: {} symbol{} with samples could not be "
                    "annotated{}",
                    summary->problems.size(), summary->problems.size() == 1 ? "" : "s",
                    quiet || skip_missing ? "" : " (above)"));
  }
  if (summary->annotated == 0 && summary->problems.empty()) {
    if (o.symbols.empty()) return error_exit("no samples with symbols to annotate");
    return error_exit(fmt::format("no samples in {}", fmt::join(o.symbols, ", ")));
  }
  return 0;
}

const Registration kReg{
    {"annotate", "Show the hot instructions and source lines of symbols", &run_annotate, true}};

}  // namespace
}  // namespace perfx::cli
