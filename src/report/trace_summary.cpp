// The trace summary (perfx/trace.hpp): perf trace -s's per-thread syscall table, with
// perf's running statistics (tools/perf/util/stat.c update_stats / stddev_stats).

#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <string>

#include "perfx/trace.hpp"

namespace perfx {

void SyscallStats::add(std::uint64_t duration_ns, int err) {
  ++calls;
  if (err > 0) {
    ++errors;
    ++errnos[err];
  }
  const auto d = static_cast<double>(duration_ns);
  total_ns += d;
  if (calls == 1 || duration_ns < min_ns) min_ns = duration_ns;
  if (duration_ns > max_ns) max_ns = duration_ns;
  // Welford: mean and the sum of squared deviations, as perf's update_stats.
  const double delta = d - mean_ns;
  mean_ns += delta / static_cast<double>(calls);
  m2 += delta * (d - mean_ns);
}

double SyscallStats::stddev_percent() const noexcept {
  if (calls < 2 || mean_ns == 0) return 0;
  const auto n = static_cast<double>(calls);
  return 100.0 * std::sqrt(m2 / (n - 1) / n) / mean_ns;
}

void TraceSummary::add(const TraceEvent& ev) {
  Thread& t = threads_[ev.tid];
  t.tid = ev.tid;
  if (!ev.comm.empty()) t.comm = ev.comm;
  std::uint64_t records = 1;
  switch (ev.kind) {
    case TraceEventKind::kSyscall: {
      records = (ev.entered ? 1u : 0u) + (ev.exited ? 1u : 0u);
      if (ev.exited) {
        const auto d = ev.duration();
        const bool failed = ev.ret < 0 && ev.ret >= -4095;
        t.syscalls[ev.name].add(d ? *d : 0, failed ? static_cast<int>(-ev.ret) : 0);
      }
      break;
    }
    case TraceEventKind::kPageFault:
      ++(ev.major ? t.majfaults : t.minfaults);
      break;
    case TraceEventKind::kTracepoint:
      break;
  }
  t.events += records;
  total_events_ += records;
}

std::vector<const TraceSummary::Thread*> TraceSummary::threads() const {
  std::vector<const Thread*> out;
  for (const auto& [tid, t] : threads_) out.push_back(&t);
  std::stable_sort(out.begin(), out.end(),
                   [](const Thread* a, const Thread* b) { return a->events < b->events; });
  return out;
}

std::string TraceSummary::format(bool errno_summary) const {
  std::string out = "\n Summary of events:\n\n";
  for (const Thread* t : threads()) {
    const double ratio =
        total_events_ ? static_cast<double>(t->events) / static_cast<double>(total_events_) * 100.0
                      : 0.0;
    out += fmt::format(" {} ({}), {} events, {:.1f}%", t->comm.empty() ? "?" : t->comm, t->tid,
                       t->events, ratio);
    if (t->majfaults) out += fmt::format(", {} majfaults", t->majfaults);
    if (t->minfaults) out += fmt::format(", {} minfaults", t->minfaults);
    out += "\n";
    if (t->syscalls.empty()) continue;
    out +=
        "\n"
        "   syscall            calls  errors  total       min       avg       max       stddev\n"
        "                                     (msec)    (msec)    (msec)    (msec)        (%)\n"
        "   --------------- --------  ------ -------- --------- --------- ---------     ------\n";
    std::vector<std::pair<const std::string*, const SyscallStats*>> rows;
    for (const auto& [name, s] : t->syscalls) rows.emplace_back(&name, &s);
    std::stable_sort(rows.begin(), rows.end(), [](const auto& a, const auto& b) {
      return a.second->total_ns > b.second->total_ns;
    });
    for (const auto& [name, s] : rows) {
      out +=
          fmt::format("   {:<15} {:8} {:6} {:9.3f} {:9.3f} {:9.3f} {:9.3f} {:9.2f}%\n", *name,
                      s->calls, s->errors, s->total_ns / 1e6, static_cast<double>(s->min_ns) / 1e6,
                      s->mean_ns / 1e6, static_cast<double>(s->max_ns) / 1e6, s->stddev_percent());
      if (!errno_summary) continue;
      for (const auto& [err, n] : s->errnos) {
        const std::string_view ename = errno_name(err);
        out += fmt::format("\t\t\t\t{}: {}\n",
                           ename.empty() ? fmt::format("errno {}", err) : std::string(ename), n);
      }
    }
    out += "\n";
  }
  return out;
}

}  // namespace perfx
