// Text of `perfx sched latency` and `timehist` in perf's layout (include/perfx/sched.hpp).

#include <fmt/format.h>

#include <algorithm>

#include "perfx/sched.hpp"

namespace perfx {
namespace {

// perf's timestamp__scnprintf_usec: seconds.microseconds, truncated.
std::string usec_stamp(std::uint64_t ns) {
  return fmt::format("{}.{:06}", ns / 1000000000, (ns % 1000000000) / 1000);
}

// perf's print_sched_time: msec.usec, truncated, right-aligned msec part, one space after.
std::string sched_time(std::uint64_t ns, int width) {
  return fmt::format("{:>{}}.{:03} ", ns / 1000000, width, (ns % 1000000) / 1000);
}

constexpr std::string_view kDots =
    "------------------------------------------------------------------------------------------"
    "------------------------------------------------------------------------------------------";

}  // namespace

std::string format_sched_latency(const SchedLatency& lat) {
  std::string out;
  auto it = std::back_inserter(out);
  const std::string rule(139, '-');
  fmt::format_to(it, "\n {}\n", rule);
  fmt::format_to(it,
                 "  Task                  |   Runtime ms  | Switches | Avg delay ms    | Max delay "
                 "ms    | Max delay start           | Max delay end          |\n");
  fmt::format_to(it, " {}\n", rule);
  for (const auto& r : lat.rows) {
    const std::string name = r.merged > 1 ? fmt::format("  {}:({}) ", r.comm, r.merged)
                                          : fmt::format("  {}:{} ", r.comm, r.tid);
    out += name;
    if (name.size() < 24) out.append(24 - name.size(), ' ');
    fmt::format_to(it,
                   "|{:11.3f} ms |{:9} | avg:{:8.3f} ms | max:{:8.3f} ms | max start: {:>12} s | "
                   "max end: {:>12} s\n",
                   static_cast<double>(r.runtime_ns) / 1e6, r.switches,
                   static_cast<double>(r.avg_delay_ns()) / 1e6,
                   static_cast<double>(r.max_delay_ns) / 1e6, usec_stamp(r.max_delay_start),
                   usec_stamp(r.max_delay_end));
  }
  fmt::format_to(it, " {}\n", std::string(113, '-'));
  fmt::format_to(it, "  TOTAL:                |{:11.3f} ms |{:9} |\n",
                 static_cast<double>(lat.total_runtime_ns) / 1e6, lat.total_switches);
  fmt::format_to(it, " {}\n", std::string(51, '-'));
  if (lat.unordered_timestamps != 0 && lat.timestamps != 0) {
    fmt::format_to(
        it, "  INFO: {:.3f}% unordered timestamps ({} out of {})\n",
        100.0 * static_cast<double>(lat.unordered_timestamps) / static_cast<double>(lat.timestamps),
        lat.unordered_timestamps, lat.timestamps);
  }
  if (lat.lost_events != 0 && lat.events != 0) {
    fmt::format_to(it, "  INFO: {:.3f}% lost events ({} out of {}, in {} chunks)\n",
                   100.0 * static_cast<double>(lat.lost_events) / static_cast<double>(lat.events),
                   lat.lost_events, lat.events, lat.lost_chunks);
  }
  if (lat.context_switch_bugs != 0 && lat.timestamps != 0) {
    fmt::format_to(
        it, "  INFO: {:.3f}% context switch bugs ({} out of {}){}\n",
        100.0 * static_cast<double>(lat.context_switch_bugs) / static_cast<double>(lat.timestamps),
        lat.context_switch_bugs, lat.timestamps,
        lat.lost_events != 0 ? " (due to lost events?)" : "");
  }
  out += "\n";
  return out;
}

std::string format_sched_timehist(const SchedTimehist& th, bool with_summary, bool summary_only) {
  std::string out;
  auto it = std::back_inserter(out);
  std::size_t width = 30;
  for (const auto& l : th.lines) width = std::max({width, l.task.size()});
  if (!summary_only) {
    fmt::format_to(it, "{:>15} {:>6}  {:<{}}  {:>9}  {:>9}  {:>9}\n", "time", "cpu", "task name",
                   width, "wait time", "sch delay", "run time");
    fmt::format_to(it, "{:>15} {:<6}  {:<{}}  {:>9}  {:>9}  {:>9}\n", "", "", "[tid/pid]", width,
                   "(msec)", "(msec)", "(msec)");
    fmt::format_to(it, "{} {}  {}  {}  {}  {}\n", kDots.substr(0, 15), kDots.substr(0, 6),
                   kDots.substr(0, width), kDots.substr(0, 9), kDots.substr(0, 9),
                   kDots.substr(0, 9));
    for (const auto& l : th.lines) {
      fmt::format_to(it, "{:>15} [{:04}]  {:<{}} ", usec_stamp(l.time), l.cpu, l.task, width);
      if (l.kind == SchedEventKind::kSwitch) {
        out += sched_time(l.wait_ns, 6);
        out += sched_time(l.delay_ns, 6);
        out += sched_time(l.run_ns, 6);
      } else if (l.kind == SchedEventKind::kMigrate) {
        fmt::format_to(it, "  {:>9}  {:>9}  {:>9} migrated: {} cpu {} => {}", "", "", "", l.target,
                       l.orig_cpu, l.dest_cpu);
      } else {
        fmt::format_to(it, "  {:>9}  {:>9}  {:>9} awakened: {}", "", "", "", l.target);
      }
      out += "\n";
    }
  }
  if (!with_summary && !summary_only) return out;
  fmt::format_to(it, "\nRuntime summary\n");
  fmt::format_to(it, "{:>{}}  parent   sched-in  ", "comm", width);
  fmt::format_to(it, "   run-time    min-run     avg-run     max-run  stddev  migrations\n");
  fmt::format_to(it, "{:>{}}            (count)  ", "", width);
  fmt::format_to(it, "     (msec)     (msec)      (msec)      (msec)       %\n");
  fmt::format_to(it, "{}\n", kDots.substr(0, 117));
  std::uint64_t tasks = 0, switches = 0, run = 0;
  const auto print_task = [&](const SchedTimehistTask& t) {
    ++tasks;
    switches += t.sched_in;
    run += t.run_ns;
    fmt::format_to(it, "{:>{}}   {:5}  {:9} ", t.task, width, t.ppid, t.sched_in);
    out += sched_time(t.run_ns, 8);
    out += sched_time(t.min_run_ns, 6);
    out += " ";
    out += sched_time(static_cast<std::uint64_t>(t.mean_run_ns), 6);
    out += " ";
    out += sched_time(t.max_run_ns, 6);
    fmt::format_to(it, "  {:5.2f}   {:5}\n", t.stddev_pct, t.migrations);
  };
  for (const auto& t : th.tasks) {
    if (!t.exited) print_task(t);
  }
  if (tasks == 0) out += "<no still running tasks>\n";
  out += "\nTerminated tasks:\n";
  const std::uint64_t running = tasks;
  for (const auto& t : th.tasks) {
    if (t.exited) print_task(t);
  }
  if (tasks == running) out += "<no terminated tasks>\n";
  if (th.skipped) return out;  // perf: "CPU idle stats not tracked when samples were skipped"
  const std::uint64_t span = th.last_time - th.first_time;
  out += "\nIdle stats:\n";
  for (std::size_t cpu = 0; cpu < th.idle_ns.size(); ++cpu) {
    if (th.idle_count[cpu] != 0) {
      switches += th.idle_count[cpu];
      fmt::format_to(it, "    CPU {:2} idle for ", cpu);
      out += sched_time(th.idle_ns[cpu], 6);
      fmt::format_to(
          it, " msec  ({:6.2f}%)\n",
          span == 0 ? 0.0
                    : 100.0 * static_cast<double>(th.idle_ns[cpu]) / static_cast<double>(span));
    } else {
      fmt::format_to(it, "    CPU {:2} idle entire time window\n", cpu);
    }
  }
  fmt::format_to(it,
                 "\n    Total number of unique tasks: {}\nTotal number of context switches: {}\n",
                 tasks, switches);
  out += "           Total run time (msec): ";
  out += sched_time(run, 2);
  out += "\n    Total scheduling time (msec): ";
  out += sched_time(span, 2);
  fmt::format_to(it, " (x {})\n", th.max_cpu + 1);
  return out;
}

}  // namespace perfx
