// perfx report: read a perf.data (perf's or perfx's) and print perf report's text
// layout, or an export format (--format, via perfx::export_profile).

#include <fmt/core.h>
// CLI11's inlined std::string code trips GCC 12's -Wnull-dereference at -O2 (a false
// positive inside libstdc++).
#pragma GCC diagnostic ignored "-Wnull-dereference"

#include <unistd.h>

#include <CLI/CLI.hpp>
#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <iostream>
#include <regex>
#include <string>
#include <vector>

#include "command.hpp"
#include "list_options.hpp"
#include "option_prefix.hpp"
#include "output_file.hpp"
#include "pager.hpp"
#include "perf_options.hpp"
#include "perfx/exporters.hpp"
#include "perfx/perf_text.hpp"
#include "perfx/recording.hpp"
#include "perfx/report.hpp"
#include "progress.hpp"

namespace perfx::cli {
namespace {

// perf's --time-quantum: a count with an optional unit s, ms, us or ns (none: ns).
Result<std::uint64_t> parse_time_quantum(const std::string& text) {
  char* end = nullptr;
  const unsigned long long n = std::strtoull(text.c_str(), &end, 0);
  if (end == text.c_str() || text[0] == '-')
    return fail(Errc::kInvalidArgument, fmt::format("Cannot parse time quantum `{}'", text));
  if (n == 0) return fail(Errc::kInvalidArgument, "time quantum cannot be 0");
  std::string_view unit(end);
  while (!unit.empty() && unit.front() == ' ') unit.remove_prefix(1);
  const std::uint64_t scale = unit.empty() || unit == "ns" ? 1
                              : unit == "us"               ? 1000
                              : unit == "ms"               ? 1000000
                              : unit == "s"                ? 1000000000
                                                           : 0;
  if (scale == 0 || n > UINT64_MAX / scale)
    return fail(Errc::kInvalidArgument, fmt::format("Cannot parse time quantum `{}'", text));
  return n * scale;
}

int error_exit(const std::string& msg, int code = 1) {
  fmt::print(stderr, "perfx report: {}\n", msg);
  return code;
}

// A damaged file: the report above shows what was read; this line says what stopped it.
int damage_exit(const Profile& prof) {
  if (prof.damage.empty()) return 0;
  std::uint64_t samples = 0;
  for (const auto& s : prof.samples) samples += s.count;
  return error_exit(fmt::format("{}; showing the {} samples read before it", prof.damage, samples));
}

int run_report(int argc, char** argv) {
  CLI::App app{"Read a perf.data and show where the time went (like perf report)", "perfx report"};
  ReportOptions ro;
  std::string input = "perf.data";
  std::string sort;
  bool stdio = false;
  bool children = false;
  bool no_children = false;
  std::string call_graph;
  double percent_limit = 0;
  bool nr_samples = false;
  std::string comms, dsos, symbols, pids, tids, cpus, time_range;
  bool inline_frames = false;
  bool header = false;
  bool header_only = false;
  std::string format;
  bool json = false;
  std::string output;
  unsigned jobs = 0;
  app.add_option("-i,--input", input, "input file ('-' = stdin pipe)")->capture_default_str();
  bool force = false;
  app.add_flag("-f,--force", force, "read a perf.data not owned by the current user or root");
  app.add_flag("--stdio", stdio, "text output (the default)");
  app.add_option("-s,--sort", sort, "sort keys: comm,pid,tid,dso,sym,srcline,srcfile,cpu,overhead")
      ->multi_option_policy(CLI::MultiOptionPolicy::TakeLast);  // perf: the last -s wins
  std::string fields;
  app.add_option("-F,--fields", fields,
                 "output columns: overhead,overhead_children,sample,period and sort keys")
      ->multi_option_policy(CLI::MultiOptionPolicy::TakeLast);
  bool quiet = false;
  app.add_flag("-q,--quiet", quiet, "only the entries, no header lines");
  int verbose = 0;
  app.add_flag("-v,--verbose", verbose, "more warnings (accepted for perf's habit)");
  bool threads = false;
  app.add_flag("-T,--threads", threads, "per-thread counts of PERF_SAMPLE_READ (not supported)");
  bool inverted = false;
  app.add_flag("-G,--inverted", inverted, "callchains in caller order (= -g caller)");
  int max_stack = -1;
  app.add_option("--max-stack", max_stack, "only the N callchain frames nearest the leaf");
  bool hide_unresolved = false;
  app.add_flag("-U,--hide-unresolved", hide_unresolved, "leave out samples without a symbol");
  std::string percentage = "absolute";
  app.add_option("--percentage", percentage,
                 "absolute (of all samples) or relative (of the filtered ones)")
      ->check(CLI::IsMember({"absolute", "relative"}));
  app.add_flag("--children", children, "accumulate callers' overhead (default with callchains)");
  app.add_flag("--no-children", no_children, "only self overhead");
  auto* graph_opt = app.add_option("-g,--call-graph", call_graph,
                                   "print_type,threshold[,print_limit],order,sort_key[,branch],"
                                   "value (perf's; alone: graph,0.5,caller,function,percent)")
                        ->expected(0, 1);
  auto* limit_opt =
      app.add_option("--percent-limit", percent_limit, "hide entries (and graph branches) below");
  app.add_flag("-n,--show-nr-samples", nr_samples, "show the number of samples");
  app.add_option("-c,--comms", comms, "only these commands (comma separated)");
  app.add_option("-d,--dsos", dsos, "only these shared objects (comma separated)");
  app.add_option("-S,--symbols", symbols, "only these symbols (comma separated)");
  app.add_option("--pid", pids, "only these process ids");
  app.add_option("--tid", tids, "only these thread ids");
  app.add_option("-C,--cpu", cpus, "only these CPUs (comma separated)");
  app.add_option("--time", time_range,
                 "time windows (perf syntax): START,STOP [START,STOP..] in seconds, 10%/2, 0%-10%");
  app.add_flag("--inline", inline_frames, "show inline frames in callchains");
  bool demangle_params = false;
  app.add_flag("--demangle-params", demangle_params,
               "C++ names with parameter lists (what perf report -v shows)");
  bool no_demangle = false;
  app.add_flag("--no-demangle", no_demangle, "symbol names as the binaries have them");
  bool full_source_path = false;
  app.add_flag("--full-source-path", full_source_path, "srcline with the file's whole path");
  bool group = true;
  app.add_flag("--group,!--no-group", group,
               "an event group is one section, a value per member (the default when the "
               "recording has groups, as perf)");
  std::string parent_regex;
  app.add_option("-p,--parent", parent_regex,
                 "regex naming the parent function of a sample (adds the parent sort key; "
                 "default ^sys_|^do_page_fault)");
  bool exclude_other = false;
  app.add_flag("-x,--exclude-other", exclude_other, "only samples with a parent (-p)");
  std::string time_quantum;
  app.add_option("--time-quantum", time_quantum,
                 "time buckets of the time sort key: N[s|ms|us|ns], ns without a unit "
                 "(default 100ms)");
  bool show_total_period = false;
  app.add_flag("--show-total-period", show_total_period, "a Period column");
  std::string field_separator;
  app.add_option("-t,--field-separator", field_separator,
                 "separate columns with this string (no padding of values, no dot rule)");
  bool stats = false;
  app.add_flag("--stats", stats, "counts of the recording's records by type, not the report");
  bool tasks = false, mmaps = false;
  app.add_flag("--tasks", tasks, "the recording's threads as a tree, not the report");
  app.add_flag("--mmaps", mmaps, "--tasks with each thread's memory maps");
  bool skip_empty = true;
  app.add_flag("--skip-empty,!--no-skip-empty", skip_empty,
               "--stats: leave out types and events with nothing counted (default)");
  app.add_flag("--header", header, "show the recording's header before the report");
  app.add_flag("--header-only", header_only, "show only the recording's header");
  std::string symfs, kallsyms, vmlinux;
  app.add_option("--symfs", symfs, "look for files with symbols under this directory");
  app.add_option("--kallsyms", kallsyms, "kernel symbols from this kallsyms file");
  app.add_option("-k,--vmlinux", vmlinux, "kernel symbols from this vmlinux file");
  app.add_flag("--ns", ro.nanoseconds, "times of the time sort key in nanoseconds");
  app.add_option("--socket-filter", ro.socket_filter, "only entries of this processor socket");
  app.add_flag("--hierarchy", ro.hierarchy, "entries nested by sort key (no Children)");
  app.add_flag("--raw-trace", ro.raw_trace, "tracepoint fields raw (trace sort key)");
  int res_samples = 0;  // perf: samples kept per entry for its TUI browser; no text effect
  app.add_option("--samples", res_samples, "samples kept per entry for browsing (TUI only)");
  app.add_option("--format", format,
                 "export instead: json, folded, html, svg, pprof, speedscope, firefox");
  app.add_flag("--json", json, "same as --format json");
  app.add_option("-o,--output", output, "write to this file instead of stdout");
  app.add_option("-j,--jobs", jobs, "symbolization threads (0 = all cores)");
  try {
    parse_args(app, argc, argv);
  } catch (const CLI::ParseError& e) {
    return usage_exit(app, e);
  }
  if (parse_only) return 0;  // CLI fuzz target: options only (command.hpp)
  // perf checks these before it opens the recording.
  for (const auto* file : {&vmlinux, &kallsyms})
    if (!file->empty() && ::access(file->c_str(), R_OK) != 0)
      return error_exit(fmt::format("Invalid file: {}", *file));
  if (ro.hierarchy && !fields.empty())
    return error_exit("--hierarchy and --fields options cannot be used together", kUsageExit);
  // perf's owner rule (-f) and the header: the one door to the recording.
  auto rec = Recording::open(input, {force});
  if (!rec) return error_exit(rec.error().message());
  (void)stdio;
  (void)verbose;  // warnings are always printed; perf's -v extras are not mirrored
  if (threads)
    return error_exit(
        "-T/--threads is not supported (perfx does not read PERF_SAMPLE_READ values)");
  if (json) {
    if (!format.empty() && format != "json") return error_exit("--json conflicts with --format");
    format = "json";
  }
  if (!format.empty() && !is_export_format(format))
    return error_exit(fmt::format("unknown --format '{}'", format));

  if (stats || tasks || mmaps) {
    auto file = OutputFile::open(output);
    if (!file) return error_exit(file.error().message());
    auto ok = stats ? write_record_stats(*rec, file->stream(), skip_empty)
                    : write_task_tree(*rec, file->stream(), mmaps);
    if (auto closed = file->finish(); !closed) return error_exit(closed.error().message());
    if (!ok) return error_exit(ok.error().message());
    return 0;
  }
  if (header || header_only) {
    if (header_only || input != "-") {
      // For a pipe, this reads its attr and feature records first, as perf does.
      auto text = rec->header_text();
      if (!text) return error_exit(text.error().message());
      std::cout << *text;
      if (header_only) return 0;
    }
  }

  ro.fields = split_list(fields);
  if (auto ok = validate_fields(ro.fields); !ok) return error_exit(ok.error().message());
  if (!sort.empty())
    ro.sort = split_list(sort);
  else if (!ro.fields.empty())
    ro.sort = sort_keys_of_fields(ro.fields);  // perf: -F alone also sorts by them
  ro.sort_keys_first = !sort.empty() && !ro.fields.empty();
  if (!parent_regex.empty()) {
    // perf: --parent sorts by the parent too (appended to the keys).
    try {
      (void)std::regex(parent_regex, std::regex::extended);
    } catch (const std::regex_error& e) {
      return error_exit(fmt::format("--parent '{}': not a regex: {}", parent_regex, e.what()));
    }
    ro.parent_regex = parent_regex;
    if (std::find(ro.sort.begin(), ro.sort.end(), "parent") == ro.sort.end())
      ro.sort.emplace_back("parent");
  }
  ro.exclude_other = exclude_other;
  ro.group = group;
  if (auto ok = validate_sort_keys(ro.sort); !ok) return error_exit(ok.error().message());
  ro.quiet = quiet;
  ro.show_total_period = show_total_period;
  ro.field_separator = field_separator;
  ro.full_source_path = full_source_path;
  if (!time_quantum.empty()) {
    auto q = parse_time_quantum(time_quantum);
    if (!q) return error_exit(q.error().message());
    ro.time_quantum_ns = *q;
  }
  if (max_stack >= 0) ro.max_stack = static_cast<std::size_t>(max_stack);
  ro.hide_unresolved = hide_unresolved;
  ro.relative_percentage = percentage == "relative";
  ro.thread_filter.comms = split_list(comms);
  ro.children = !no_children;
  ro.percent_limit = percent_limit;
  ro.show_nr_samples = nr_samples;
  ro.dsos = split_list(dsos);
  ro.symbols = split_list(symbols);
  ro.header_hint = !header;
  ro.sort_given = !sort.empty();
  bool graph_threshold_set = false;
  if (graph_opt->count() > 0) {
    auto th = parse_call_graph(call_graph.empty() ? kDefaultCallGraph : call_graph, ro);
    if (!th) return error_exit(th.error().message(), kUsageExit);
    graph_threshold_set = *th;
  }
  // perf's --percent-limit is also the callchain threshold, unless a later -g gave one.
  if (limit_opt->count() > 0) {
    const auto order = app.parse_order();
    const auto last = [&](const CLI::Option* opt) {
      return std::find(order.rbegin(), order.rend(), opt) - order.rbegin();
    };
    if (!graph_threshold_set || last(limit_opt) < last(graph_opt))
      ro.graph_threshold = percent_limit;
  }
  if (inverted) ro.caller_order = true;  // perf's -G: alias for the inverted callchain

  ProfileOptions lo;
  lo.threads = jobs;
  if (!parse_int_list(pids, ro.thread_filter.pids))
    return error_exit(fmt::format("bad --pid '{}'", pids));
  if (!parse_int_list(tids, ro.thread_filter.tids))
    return error_exit(fmt::format("bad --tid '{}'", tids));
  // The exports filter threads while loading; the text report filters them itself, so
  // that --hide-unresolved can take their unresolved samples out of the totals (perf).
  if (!format.empty()) {
    lo.thread_filter = ro.thread_filter;
  }
  if (!parse_cpu_list(cpus, lo.cpus)) return error_exit(fmt::format("bad --cpu '{}'", cpus));
  if (!time_range.empty()) {
    // Checked here for a clear error before loading; percent forms need the file's
    // first/last sample time and are checked by load_profile().
    if (auto ok = check_time_windows(time_range); !ok) return error_exit(ok.error().message());
    lo.time = time_range;
    ro.time_slices = time_range;
  }
  for (const auto& k : ro.sort) {
    if (k == "srcline" || k == "srcfile") lo.source_lines = true;
  }
  if (export_wants_source_lines(format)) lo.source_lines = true;
  if (ro.graph_key != CallGraphKey::kFunction) lo.source_lines = true;  // graph frames' lines
  lo.inline_frames = inline_frames;
  lo.demangle_params = demangle_params;
  lo.demangle = !no_demangle;
  lo.symfs = symfs;
  lo.kallsyms = kallsyms;
  lo.vmlinux = vmlinux;
  // The text report and the per-stack exports need no per-sample times: merge samples
  // per stack while loading, so time and memory follow unique stacks.
  lo.aggregate = format.empty() || !format_needs_each_sample(format);
  // The time key buckets each sample's own time.
  if (std::find(ro.sort.begin(), ro.sort.end(), "time") != ro.sort.end()) lo.aggregate = false;
  // speedscope writes one weighted entry per run of identical samples of a thread.
  lo.merge_runs = format_merges_runs(format);
  // (The parent key and -x look for the parent in the callchain.)
  const bool wants_parent =
      ro.exclude_other || std::find(ro.sort.begin(), ro.sort.end(), "parent") != ro.sort.end();
  if (format.empty() && ro.graph == CallGraphMode::kNone)
    lo.callchains = ro.children || wants_parent;
  lo.progress = terminal_progress("Loading samples");

  auto prof = rec->load_profile(lo);
  if (!prof) return error_exit(prof.error().message());
  for (const auto& w : prof->warnings) fmt::print(stderr, "perfx report: warning: {}\n", w);

  if (!format.empty() && is_binary_format(format) && output.empty() && stdout_is_terminal())
    return error_exit(fmt::format("--format {} is binary: use -o FILE", format));
  auto file = OutputFile::open(output);
  if (!file) return error_exit(file.error().message());
  std::ostream& out = file->stream();
  Result<void> ok;
  if (!format.empty()) {
    ExportOptions eo;
    eo.inline_frames = inline_frames;
    ok = export_profile(format, *prof, out, eo);
  } else {
    ok = write_report(out, *prof, ro);
  }
  // A failed write (disk full) is told with the file's name and errno, before the
  // writer's own view of it.
  if (auto closed = file->finish(); !closed) return error_exit(closed.error().message());
  if (!ok) return error_exit(ok.error().message());
  return damage_exit(*prof);
}

const Registration kReg{
    {"report", "Read a perf.data and show where the time went", &run_report, true}};

}  // namespace
}  // namespace perfx::cli
