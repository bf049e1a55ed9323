// perfx script: perf script's text for every sample of a perf.data, in time order.

#include <iostream>
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

const CommandFront cmd{"script"};

int run_script(int argc, char** argv) {
  CLI::App app{"Print the samples of a perf.data as text (like perf script)", "perfx script"};
  ReaderArgs in;
  SampleFilters filters;
  std::string fields;
  ScriptOptions so;
  add_reader_options(app, in, kReaderOptions | kListingOptions);
  app.add_option("-F,--fields", fields,
                 "fields, comma separated (+F adds, -F removes): comm, tid, pid, time, cpu, "
                 "event, ip, sym, symoff, dso, addr, period, srcline, trace, iregs, uregs, insn, "
                 "insnlen, flags, callindent, srccode, misc, tod, weight, phys_addr");
  std::string stop_bt;
  app.add_option("--stop-bt", stop_bt, "end callchains after a frame in these symbols");
  app.add_option("--graph-function", so.graph_function,
                 "only branch-trace calls of these functions (none without BTS/PT samples)");
  add_filter_options(app, filters, {.dsos = "--dsos"});
  int max_stack = -1;
  app.add_option("--max-stack", max_stack, "show at most N callchain entries");
  bool reltime = false, deltatime = false, per_event_dump = false, dk = false;
  add_switches(app,
               {{"--ns", &so.ns, "nanosecond timestamps"},
                {"--inline,!--no-inline", &so.inline_frames,
                 "show inline scopes of callchain frames (default on, as perf)"},
                {"--show-task-events", &so.show_task_events, "also COMM/FORK/EXIT records"},
                {"--show-mmap-events", &so.show_mmap_events, "also MMAP/MMAP2 records"},
                {"-G,--hide-call-graph", &so.hide_call_graph, "one line per sample, no callchain"},
                {"--reltime", &reltime, "times since the first event shown"},
                {"--deltatime", &deltatime, "times since the previous event shown"},
                {"--show-lost-events", &so.show_lost_events, "also LOST records"},
                {"--show-switch-events", &so.show_switch_events, "also SWITCH records"},
                {"--show-namespace-events", &so.show_namespace_events, "also NAMESPACES records"},
                {"--show-cgroup-events", &so.show_cgroup_events, "also CGROUP records"},
                {"--show-bpf-events", &so.show_bpf_events, "also KSYMBOL/BPF_EVENT records"},
                {"--show-text-poke-events", &so.show_text_poke_events, "also TEXT_POKE records"},
                {"--per-event-dump", &per_event_dump, "each event's samples in INPUT.EVENT.dump"},
                {"--demangle-kernel", &dk, "kernel names demangled (C: nothing to do)"},
                {"-D,--dump-raw-trace", &so.dump_raw_trace, "each record's raw dump too"}});
  if (auto rc = CommandFront::parse(app, argc, argv)) return *rc;
  if (auto rc = check_symbol_files(cmd, in)) return *rc;
  // Owner check (perf's -f) and header, before the options that need the recording.
  auto rec = Recording::open(in.input, {in.force});
  if (!rec) return cmd.fail(rec.error().message());
  so.fields = split_list(fields);
  so.demangle = !in.no_demangle;
  so.demangle_params = in.demangle_params || in.verbose > 0;  // perf -v: parameter lists
  so.stop_bt = split_list(stop_bt);
  so.full_source_path = in.full_source_path;
  so.symfs = in.symfs;
  so.kallsyms = in.kallsyms;
  so.vmlinux = in.vmlinux;
  const FilterTargets targets{&so.thread_filter, &so.cpus, &so.dsos, &so.symbols, &so.time};
  if (auto ok = filters.parse(targets); !ok) return cmd.fail(ok.error().message());
  if (max_stack >= 0) so.max_stack = static_cast<std::size_t>(max_stack);
  if (reltime && deltatime) return cmd.fail("--reltime and --deltatime cannot be used together");
  if (reltime) so.time_base = ScriptOptions::TimeBase::kRelative;
  if (deltatime) so.time_base = ScriptOptions::TimeBase::kDelta;
  std::ios::sync_with_stdio(false);
  auto file = OutputFile::open(in.output);
  if (!file) return cmd.fail(file.error().message());
  // A pipe's header is read only for --header-only (it would consume the stream).
  if (in.header_only || (in.header && in.input != "-")) {
    auto text = rec->header_text();
    if (!text) return cmd.fail(text.error().message());
    file->stream() << *text;
    if (in.header_only) {
      if (auto closed = file->finish(); !closed) return cmd.fail(closed.error().message());
      return 0;
    }
  }
  std::vector<std::string> warnings;
  so.progress = terminal_progress("Reading samples", in.output.empty() || in.output == "-");
  if (per_event_dump) {
    auto dumps = write_script_per_event(*rec, in.input, file->stream(), so, &warnings);
    if (dumps) {
      for (const auto& d : *dumps) file->stream() << event_dump_line(d) << '\n';
    }
    if (auto closed = file->finish(); !closed) return cmd.fail(closed.error().message());
    for (const auto& w : warnings) cmd.warn(w);
    return dumps ? 0 : cmd.fail(dumps.error().message());
  }
  auto ok = write_script(*rec, file->stream(), so, &warnings);
  // A failed write (disk full) is told with the file's name and errno first.
  if (auto closed = file->finish(); !closed) ok = std::move(closed);
  for (const auto& w : warnings) cmd.warn(w);
  if (!ok) return cmd.fail(ok.error().message());
  return 0;
}

const Registration kReg{{"script", "Print the samples of a perf.data as text", &run_script, true}};

}  // namespace
}  // namespace perfx::cli
