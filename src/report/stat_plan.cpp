// perf stat's choices around the counts (perfx/stat.hpp): the default event list, the
// exit status, tool events' entries, and the messages of -M and --topdown on a machine
// without their tables. Pure: no kernel calls.
#include <algorithm>
#include <string>
#include <string_view>
#include <vector>

#include <fmt/format.h>

#include "core/error_format.hpp"
#include "perfx/stat.hpp"

namespace perfx {

int stat_exit_code(const std::vector<StatRun>& runs) {
  if (runs.empty()) return 0;
  const StatRun& last = runs.back();
  if (last.stop_signal != 0) return 128 + last.stop_signal;  // perf re-raises it
  // A workload killed by a signal: perf prints its name ("sh: Killed") and exits 0.
  if (!last.exit || last.exit->signaled) return 0;
  return last.exit->code;
}

std::string default_stat_events(bool cpu_target) {
  // perf 6.1's default_attrs0/1: cpu-clock instead of task-clock when counting CPUs.
  return std::string(cpu_target ? "cpu-clock" : "task-clock") +
         ",context-switches,cpu-migrations,page-faults,cycles,instructions,branches,"
         "branch-misses";
}

std::string detailed_stat_events(int level) {
  static constexpr const char* kDetailed[] = {
      "L1-dcache-loads,L1-dcache-load-misses,LLC-loads,LLC-load-misses",
      "L1-icache-loads,L1-icache-load-misses,dTLB-loads,dTLB-load-misses,iTLB-loads,"
      "iTLB-load-misses",
      "L1-dcache-prefetches,L1-dcache-prefetch-misses",
  };
  std::string spec;
  for (int i = 0; i < std::min(level, 3); ++i)
    spec += (i > 0 ? "," : "") + std::string(kDetailed[i]);
  return spec;
}

std::string stat_metric_notice(std::string_view list) {
  if (list.empty()) return {};
  return fmt::format("Cannot find metric or group `{}'", list.substr(0, list.find(',')));
}

Result<void> check_stat_topdown(bool system_wide) {
  if (!system_wide)
    return fail(Errc::kNotSupported, "top down event configuration requires system-wide mode (-a)");
  return fail(Errc::kNotSupported, "System does not support topdown");
}

void add_stat_tool_entries(StatReport& report, const std::vector<StatToolSlot>& tools,
                           std::size_t kernel_events, double duration_ns, double user_ns,
                           double system_ns) {
  // Entries are event-major (global, per CPU, per thread): the same count per event.
  // The place-summing modes are aggregate-major: the tool events go last there.
  const std::size_t n = report.entries.size();
  const bool event_major =
      kernel_events > 0 && n % kernel_events == 0 && !aggregates_cpus(report.aggr);
  const std::size_t per_event = event_major ? n / kernel_events : 0;
  std::size_t inserted = 0;
  for (const auto& t : tools) {
    StatEntry e;
    e.name = t.name;
    e.type = kStatToolType;
    e.config = static_cast<std::uint64_t>(t.event);
    e.value = t.event == StatToolEvent::kDurationTime ? duration_ns
              : t.event == StatToolEvent::kUserTime   ? user_ns
                                                      : system_ns;
    // perf's tool counters run as long as they count: 0 is "<not counted>".
    e.time_enabled = e.time_running = e.value;
    const std::size_t at =
        event_major ? std::min(t.events_before * per_event + inserted, report.entries.size())
                    : report.entries.size();
    report.entries.insert(report.entries.begin() + static_cast<std::ptrdiff_t>(at), e);
    ++inserted;
  }
}

}  // namespace perfx
