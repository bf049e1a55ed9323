// perfx lock: perf lock's record and contention from lock:contention_begin/end
// (include/perfx/lock.hpp; docs/lock.md).
#pragma GCC diagnostic ignored "-Wnull-dereference"  // CLI11 under GCC 12, see option_prefix.hpp

#include <fmt/core.h>
#include <CLI/CLI.hpp>

#include <string>
#include <string_view>
#include <vector>

#include "command.hpp"
#include "option_prefix.hpp"
#include "perf_options.hpp"
#include "perfx/lock.hpp"
#include "subcommand_args.hpp"

namespace perfx::cli {
namespace {

constexpr std::string_view kUsage =
    "usage: perfx lock [-i FILE] {record|contention} [<options>]\n\n"
    "   record       record lock:contention_begin/end with call chains (perfx record)\n"
    "   contention   contended locks per caller (-l per address, -t per thread)\n";

int error(std::string_view msg) {
  fmt::print(stderr, "perfx lock: {}\n", msg);
  return 1;
}

// perf lock record's options for the contention events, then the user's.
int lock_record(int argc, char** argv, int first) {
  std::vector<std::string> args = {"perfx record",
                                   "-R",
                                   "-P",
                                   "-m",
                                   "1024",
                                   "-c",
                                   "1",
                                   "-g",
                                   "-e",
                                   "lock:contention_begin",
                                   "-e",
                                   "lock:contention_end"};
  for (int i = first; i < argc; ++i) args.emplace_back(argv[i]);
  std::vector<char*> cargs;
  for (auto& a : args) cargs.push_back(a.data());
  cargs.push_back(nullptr);
  for (const auto& c : commands()) {
    if (c.name == "record") return c.run(static_cast<int>(args.size()), cargs.data());
  }
  return error("the record command is missing from this build");
}

int lock_contention_cmd(std::string input, int argc, char** argv) {
  CLI::App app{"Contended kernel locks (like perf lock contention)", "perfx lock contention"};
  LockContentionOptions o;
  bool by_addr = false, by_thread = false, verbose = false;
  std::string kallsyms = "/proc/kallsyms";
  app.add_option("-i,--input", input, "input file name (default perf.data)");
  app.add_option("-k,--key", o.sort,
                 "sort key: contended, wait_total (default), wait_max, wait_min, avg_wait");
  app.add_option("-E,--entries", o.entries, "display this many rows");
  app.add_flag("-l,--lock-addr", by_addr, "one row per lock address");
  app.add_flag("-t,--threads", by_thread, "one row per thread");
  app.add_flag("-v,--verbose", verbose, "show the callstack of each caller");
  app.add_option("--stack-skip", o.stack_skip, "callchain entries to skip (default 3)");
  app.add_option("--max-stack", o.max_stack, "callchain entries to look at (default 8)");
  app.add_option("--kallsyms", kallsyms, "kernel symbols file (default /proc/kallsyms)");
  try {
    parse_args(app, argc, argv);
  } catch (const CLI::ParseError& e) {
    return usage_exit(app, e);
  }
  if (by_addr && by_thread) {
    fmt::print(stderr, "perfx lock contention: -l and -t cannot be used together\n");
    return kUsageExit;
  }
  if (auto ok = check_lock_sort_key(o.sort); !ok) {
    fmt::print(stderr, "perfx lock contention: {}\n", ok.error().message());
    return kUsageExit;
  }
  o.by = by_addr     ? LockAggregation::kAddress
         : by_thread ? LockAggregation::kThread
                     : LockAggregation::kCaller;
  if (parse_only) return 0;
  auto trace = load_lock_events(input);
  if (!trace) return error(trace.error().message());
  if (!trace->damage.empty()) {
    fmt::print(stderr, "perfx lock: warning: {}; analysing the events that could be read\n",
               trace->damage);
  }
  if (trace->malformed != 0) {
    fmt::print(stderr, "perfx lock: {} records of {} did not decode and were skipped\n",
               trace->malformed, input);
  }
  auto symbols = LockSymbols::from_kallsyms(kallsyms);
  if (!symbols) {
    fmt::print(stderr, "perfx lock: {}; callers stay unnamed\n", symbols.error().message());
    symbols = LockSymbols::from_text("");
  }
  const LockContention c = lock_contention(*trace, *symbols, o);
  fmt::print("{}", format_lock_contention(c, verbose));
  if (c.broken_sequences != 0) {
    fmt::print(stderr, "perfx lock: {} rows saw a contention_end without its begin\n",
               c.broken_sequences);
  }
  return 0;
}

int run_lock(int argc, char** argv) {
  const LeadingArgs lead = parse_leading_args(argc, argv, "lock", kUsage);
  if (lead.exit) return *lead.exit;
  const std::string& input = lead.input;
  const int i = lead.sub;
  const std::string_view sub = argv[i];
  std::string prog = "perfx lock " + std::string(sub);
  argv[i] = prog.data();
  if (sub == "record" || sub == "rec") {
    if (parse_only) return 0;
    return lock_record(argc, argv, i + 1);
  }
  if (sub == "contention" || sub == "con") return lock_contention_cmd(input, argc - i, argv + i);
  return unknown_subcommand("lock", sub, {"record", "contention"}, kUsage);
}

const Registration kReg{{"lock", "Kernel lock contention", &run_lock, true}};

}  // namespace
}  // namespace perfx::cli
