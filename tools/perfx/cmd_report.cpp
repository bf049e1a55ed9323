// perfx report: read a perf.data (perf's or perfx's) and print perf report's text
// layout, or an export format (--format, via perfx::export_profile).

#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <iostream>
#include <regex>
#include <string>
#include <vector>

#include "command_front.hpp"
#include "list_options.hpp"
#include "output_file.hpp"
#include "pager.hpp"
#include "perfx/exporters.hpp"
#include "perfx/perf_text.hpp"
#include "perfx/recording.hpp"
#include "perfx/report.hpp"
#include "progress.hpp"
#include "sample_filters.hpp"

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

const CommandFront cmd{"report"};

// A damaged file: the report above shows what was read; this line says what stopped it.
int damage_exit(const Profile& prof) {
  if (prof.damage.empty()) return 0;
  std::uint64_t samples = 0;
  for (const auto& s : prof.samples) samples += s.count;
  return cmd.fail(fmt::format("{}; showing the {} samples read before it", prof.damage, samples));
}

int run_report(int argc, char** argv) {
  CLI::App app{"Read a perf.data and show where the time went (like perf report)", "perfx report"};
  ReaderArgs in;
  SampleFilters filters;
  ReportOptions ro;
  ProfileOptions lo;
  std::string sort, fields, call_graph, percentage = "absolute", format;
  std::string parent_regex, time_quantum;
  bool children = false, no_children = false, threads = false, inverted = false, json = false;
  bool stats = false, tasks = false, mmaps = false, skip_empty = true, no_inline = false;
  bool dump_raw = false;
  int max_stack = -1;
  add_reader_options(app, in, kReaderOptions | kStdioOption | kListingOptions);
  app.add_option("-s,--sort", sort, "sort keys: comm,pid,tid,dso,sym,srcline,srcfile,cpu,overhead")
      ->multi_option_policy(CLI::MultiOptionPolicy::TakeLast);  // perf: the last -s wins
  app.add_option("-F,--fields", fields,
                 "output columns: overhead,overhead_children,sample,period and sort keys")
      ->multi_option_policy(CLI::MultiOptionPolicy::TakeLast);
  app.add_option("--max-stack", max_stack, "only the N callchain frames nearest the leaf");
  app.add_option("--percentage", percentage,
                 "absolute (of all samples) or relative (of the filtered ones)")
      ->check(CLI::IsMember({"absolute", "relative"}));
  auto* graph_opt = app.add_option("-g,--call-graph", call_graph,
                                   "print_type,threshold[,print_limit],order,sort_key[,branch],"
                                   "value (perf's; alone: graph,0.5,caller,function,percent)")
                        ->expected(0, 1);
  auto* limit_opt = app.add_option("--percent-limit", ro.percent_limit,
                                   "hide entries (and graph branches) below this percentage");
  app.add_option("--socket-filter", ro.socket_filter, "only entries of this processor socket");
  app.add_option("--symbol-filter", ro.symbol_filter,
                 "only entries whose symbol contains this text (as perf: with comm/tid keys)");
  int res_samples = 0;  // perf: samples kept per entry for its TUI browser; no text effect
  app.add_option("--samples", res_samples, "samples kept per entry for browsing (TUI only)");
  add_filter_options(app, filters);
  app.add_option("-p,--parent", parent_regex,
                 "regex naming the parent function of a sample (adds the parent sort key; "
                 "default ^sys_|^do_page_fault)");
  app.add_option("--ignore-callees", ro.ignore_callees, "regex: forget the callees of matches");
  app.add_option("--time-quantum", time_quantum,
                 "time buckets of the time sort key: N[s|ms|us|ns], ns without a unit "
                 "(default 100ms)");
  app.add_option("-t,--field-separator", ro.field_separator,
                 "separate columns with this string (no padding of values, no dot rule)");
  app.add_option("--format", format,
                 "export instead: json, folded, html, svg, pprof, speedscope, firefox");
  add_switches(app,
               {{"-q,--quiet", &ro.quiet, "only the entries, no header lines"},
                {"-T,--threads", &threads, "per-thread counts of PERF_SAMPLE_READ (not supported)"},
                {"-G,--inverted", &inverted, "callchains in caller order (= -g caller)"},
                {"-U,--hide-unresolved", &ro.hide_unresolved, "leave out samples without a symbol"},
                {"--children", &children, "accumulate callers' overhead (default with callchains)"},
                {"--no-children", &no_children, "only self overhead"},
                {"-n,--show-nr-samples", &ro.show_nr_samples, "show the number of samples"},
                {"--inline", &lo.inline_frames, "inline frames (the default; exports: only so)"},
                {"--no-inline", &no_inline, "no inline frames in callchains and rows"},
                {"--group,!--no-group", &ro.group,
                 "an event group is one section, a value per member (the default when the "
                 "recording has groups, as perf)"},
                {"-x,--exclude-other", &ro.exclude_other, "only samples with a parent (-p)"},
                {"--show-total-period", &ro.show_total_period, "a Period column"},
                {"--stats", &stats, "counts of the recording's records by type, not the report"},
                {"--tasks", &tasks, "the recording's threads as a tree, not the report"},
                {"--mmaps", &mmaps, "--tasks with each thread's memory maps"},
                {"--skip-empty,!--no-skip-empty", &skip_empty,
                 "--stats: leave out types and events with nothing counted (default)"},
                {"--json", &json, "same as --format json"},
                {"--ns", &ro.nanoseconds, "times of the time sort key in nanoseconds"},
                {"--hierarchy", &ro.hierarchy, "entries nested by sort key (no Children)"},
                {"--raw-trace", &ro.raw_trace, "tracepoint fields raw (trace sort key)"},
                {"-D,--dump-raw-trace", &dump_raw, "each record's raw dump, not the report"}});
  app.add_option("-j,--jobs", lo.threads, "symbolization threads (0 = all cores)");
  if (auto rc = CommandFront::parse(app, argc, argv)) return *rc;
  // perf checks these before it opens the recording.
  if (auto rc = check_symbol_files(cmd, in)) return *rc;
  lo.symfs = in.symfs;
  lo.kallsyms = in.kallsyms;
  lo.vmlinux = in.vmlinux;
  if (ro.hierarchy && !fields.empty())
    return cmd.usage_error("--hierarchy and --fields options cannot be used together");
  // perf's owner rule (-f) and the header: the one door to the recording.
  auto rec = Recording::open(in.input, {in.force});
  if (!rec) return cmd.fail(rec.error().message());
  // -v: warnings are always printed; perf's -v extras are not mirrored.
  if (threads)
    return cmd.fail("-T/--threads is not supported (perfx does not read PERF_SAMPLE_READ values)");
  if (json) {
    if (!format.empty() && format != "json") return cmd.fail("--json conflicts with --format");
    format = "json";
  }
  if (!format.empty() && !is_export_format(format))
    return cmd.fail(fmt::format("unknown --format '{}'", format));

  if (stats || tasks || mmaps || dump_raw) {
    auto file = OutputFile::open(in.output);
    if (!file) return cmd.fail(file.error().message());
    auto ok = dump_raw ? write_raw_dump(*rec, file->stream(), {.quiet = ro.quiet})
              : stats  ? write_record_stats(*rec, file->stream(), skip_empty)
                       : write_task_tree(*rec, file->stream(), mmaps);
    if (auto closed = file->finish(); !closed) return cmd.fail(closed.error().message());
    if (!ok) return cmd.fail(ok.error().message());
    return 0;
  }
  if (in.header || in.header_only) {
    if (in.header_only || in.input != "-") {
      // For a pipe, this reads its attr and feature records first, as perf does.
      auto text = rec->header_text();
      if (!text) return cmd.fail(text.error().message());
      std::cout << *text;
      if (in.header_only) return 0;
    }
  }

  ro.fields = split_list(fields);
  if (auto ok = validate_fields(ro.fields); !ok) return cmd.fail(ok.error().message());
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
      return cmd.fail(fmt::format("--parent '{}': not a regex: {}", parent_regex, e.what()));
    }
    ro.parent_regex = parent_regex;
    if (std::find(ro.sort.begin(), ro.sort.end(), "parent") == ro.sort.end())
      ro.sort.emplace_back("parent");
  }
  if (auto ok = validate_sort_keys(ro.sort); !ok) return cmd.fail(ok.error().message());
  if (auto ok = check_ignore_callees(ro.ignore_callees); !ok)
    return cmd.usage_error(ok.error().message());
  if (!time_quantum.empty()) {
    auto q = parse_time_quantum(time_quantum);
    if (!q) return cmd.fail(q.error().message());
    ro.time_quantum_ns = *q;
  }
  if (max_stack >= 0) ro.max_stack = static_cast<std::size_t>(max_stack);
  ro.relative_percentage = percentage == "relative";
  ro.children = !no_children;
  ro.header_hint = !in.header;
  ro.full_source_path = in.full_source_path;
  ro.sort_given = !sort.empty();
  bool graph_threshold_set = false;
  if (graph_opt->count() > 0) {
    auto th = parse_call_graph(call_graph.empty() ? kDefaultCallGraph : call_graph, ro);
    if (!th) return cmd.usage_error(th.error().message());
    graph_threshold_set = *th;
  }
  // perf's --percent-limit is also the callchain threshold, unless a later -g gave one.
  if (limit_opt->count() > 0) {
    const auto order = app.parse_order();
    const auto last = [&](const CLI::Option* opt) {
      return std::find(order.rbegin(), order.rend(), opt) - order.rbegin();
    };
    if (!graph_threshold_set || last(limit_opt) < last(graph_opt))
      ro.graph_threshold = ro.percent_limit;
  }
  if (inverted) ro.caller_order = true;  // perf's -G: alias for the inverted callchain

  // Checked here for a clear error before loading; percent forms of --time need the
  // file's first/last sample time and are checked by load_profile().
  const FilterTargets targets{&ro.thread_filter, &lo.cpus, &ro.dsos, &ro.symbols, &lo.time};
  if (auto ok = filters.parse(targets); !ok) return cmd.fail(ok.error().message());
  ro.time_slices = lo.time;
  // The exports filter threads while loading; the text report filters them itself, so
  // that --hide-unresolved can take their unresolved samples out of the totals (perf).
  if (!format.empty()) {
    lo.thread_filter = ro.thread_filter;
  }
  report_profile_options(ro, lo);  // source lines, each tracepoint sample's text
  if (export_wants_source_lines(format)) lo.source_lines = true;
  if (ro.graph_key != CallGraphKey::kFunction) lo.source_lines = true;  // graph frames' lines
  // perf 6.1 expands the inline scopes of DWARF-unwound frames by default; exports: --inline.
  lo.inline_unwound_only = format.empty();
  lo.inline_frames = !no_inline && (format.empty() || lo.inline_frames);
  lo.demangle = !in.no_demangle;
  lo.demangle_params = in.demangle_params;
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
  if (!prof) return cmd.fail(prof.error().message());
  for (const auto& w : prof->warnings) cmd.warn(w);

  if (!format.empty() && is_binary_format(format) && in.output.empty() && stdout_is_terminal())
    return cmd.fail(fmt::format("--format {} is binary: use -o FILE", format));
  auto file = OutputFile::open(in.output);
  if (!file) return cmd.fail(file.error().message());
  std::ostream& out = file->stream();
  Result<void> ok;
  if (!format.empty()) {
    ExportOptions eo;
    eo.inline_frames = lo.inline_frames;
    ok = export_profile(format, *prof, out, eo);
  } else {
    ok = write_report(out, *prof, ro);
  }
  // A failed write (disk full) is told with the file's name and errno, before the
  // writer's own view of it.
  if (auto closed = file->finish(); !closed) return cmd.fail(closed.error().message());
  if (!ok) return cmd.fail(ok.error().message());
  return damage_exit(*prof);
}

const Registration kReg{
    {"report", "Read a perf.data and show where the time went", &run_report, true}};

}  // namespace
}  // namespace perfx::cli
