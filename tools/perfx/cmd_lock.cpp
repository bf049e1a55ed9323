// perfx lock: perf lock's record and contention from lock:contention_begin/end
// (include/perfx/lock.hpp; docs/lock.md).

#include <string>
#include <string_view>
#include <vector>

#include "command_front.hpp"
#include "perfx/lock.hpp"
#include "subcommand_args.hpp"

namespace perfx::cli {
namespace {

constexpr std::string_view kUsage =
    "usage: perfx lock [-i FILE] [-f] {record|contention|script} [<options>]\n\n"
    "   record       record lock:contention_begin/end with call chains (perfx record)\n"
    "   contention   contended locks per caller (-l per address, -t per thread)\n"
    "   script       the recording's events (perfx script)\n";

const CommandFront cmd{"lock"};

// perf lock record's options for the contention events, then the user's.
int lock_record(const LeadingArgs& /*lead*/, int argc, char** argv) {
  return run_record_with("lock",
                         {"perfx record", "-R", "-P", "-m", "1024", "-c", "1", "-g", "-e",
                          "lock:contention_begin", "-e", "lock:contention_end"},
                         argc, argv);
}

int lock_contention_cmd(LeadingArgs lead, int argc, char** argv) {
  CLI::App app{"Contended kernel locks (like perf lock contention)", "perfx lock contention"};
  LockContentionOptions o;
  bool by_addr = false, by_thread = false, verbose = false;
  std::string kallsyms = "/proc/kallsyms";
  app.add_option("-i,--input", lead.input, "input file name (default perf.data)");
  app.add_flag("-f,--force", lead.force, "read a file another user owns");
  app.add_option("-k,--key", o.sort,
                 "sort key: contended, wait_total (default), wait_max, wait_min, avg_wait");
  app.add_option("-E,--entries", o.entries, "display this many rows");
  app.add_flag("-l,--lock-addr", by_addr, "one row per lock address");
  app.add_flag("-t,--threads", by_thread, "one row per thread");
  app.add_flag("-v,--verbose", verbose, "show the callstack of each caller");
  app.add_option("--stack-skip", o.stack_skip, "callchain entries to skip (default 3)");
  app.add_option("--max-stack", o.max_stack, "callchain entries to look at (default 8)");
  app.add_option("--kallsyms", kallsyms, "kernel symbols file (default /proc/kallsyms)");
  auto check = [&]() -> std::string {
    if (by_addr && by_thread) return "-l and -t cannot be used together";
    auto ok = check_lock_sort_key(o.sort);
    return ok ? "" : ok.error().message();
  };
  if (auto rc = CommandFront::parse(app, argc, argv, check)) return *rc;
  o.by = by_addr     ? LockAggregation::kAddress
         : by_thread ? LockAggregation::kThread
                     : LockAggregation::kCaller;
  auto trace = load_lock_events(lead.input, lead.force);
  if (!trace) return cmd.fail(trace.error().message());
  if (!trace->damage.empty()) {
    cmd.warn(fmt::format("{}; analysing the events that could be read", trace->damage));
  }
  if (trace->malformed != 0) {
    cmd.say(fmt::format("{} records of {} did not decode and were skipped", trace->malformed,
                        lead.input));
  }
  auto symbols = LockSymbols::from_kallsyms(kallsyms);
  if (!symbols) {
    cmd.say(fmt::format("{}; callers stay unnamed", symbols.error().message()));
    symbols = LockSymbols::from_text("");
  }
  const LockContention c = lock_contention(*trace, *symbols, o);
  fmt::print("{}", format_lock_contention(c, verbose));
  if (c.broken_sequences != 0) {
    cmd.say(fmt::format("{} rows saw a contention_end without its begin", c.broken_sequences));
  }
  return 0;
}

int run_lock(int argc, char** argv) {
  return run_subcommand(argc, argv, "lock", kUsage,
                        {{{"record", "rec"}, &lock_record, true},
                         {{"contention", "con"}, &lock_contention_cmd},
                         {{"script"}, &run_script_alias}});
}

const Registration kReg{{"lock", "Kernel lock contention", &run_lock, true}};

}  // namespace
}  // namespace perfx::cli
