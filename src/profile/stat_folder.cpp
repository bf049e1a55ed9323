// perf's stat handlers over a stat recording's records (stat_folder.hpp).
#include "profile/stat_folder.hpp"

#include <algorithm>
#include <string_view>
#include <utility>

#include "core/error_format.hpp"
#include "perfx/stat.hpp"
#include "record/perf_data_reader.hpp"

namespace perfx::profile {
namespace {

// perf records its tool events (duration_time, user_time, system_time) as software dummy
// events of that name, their unit "ns" in an EVENT_UPDATE: the model's tool entries.
void mark_tool_event(CounterSnapshot::Event& ev) {
  if (ev.attr.type != PERF_TYPE_SOFTWARE || ev.attr.config != PERF_COUNT_SW_DUMMY) return;
  constexpr std::pair<std::string_view, StatToolEvent> kTools[] = {
      {"duration_time", StatToolEvent::kDurationTime},
      {"user_time", StatToolEvent::kUserTime},
      {"system_time", StatToolEvent::kSystemTime}};
  for (const auto& [name, tool] : kTools) {
    if (ev.name != name) continue;
    ev.attr.type = kStatToolType;
    ev.attr.config = static_cast<std::uint64_t>(tool);
  }
}

}  // namespace

// The snapshot's shape, at the first STAT (pipe mode: the attrs have passed by then).
Result<void> StatFolder::start() {
  if (current) return {};
  if (!have_threads || !have_cpus) {
    return fail(Errc::kMalformedData, "{}: STAT record before the THREAD_MAP and CPU_MAP", path);
  }
  CounterSnapshot s;
  s.cpus = out.cpus;
  for (std::int64_t t : out.threads) s.threads.push_back(static_cast<pid_t>(t));
  const std::size_t n = s.cpus.size() * s.threads.size();
  for (std::size_t i = 0; i < reader.attrs().size(); ++i) {
    CounterSnapshot::Event ev;
    ev.name = reader.event_name(i);
    ev.attr = reader.attrs()[i].attr;
    ev.supported = false;  // until a STAT names it (perf: counter->supported)
    mark_tool_event(ev);
    ev.instances.resize(n);
    ev.ids.resize(n);
    s.events.push_back(std::move(ev));
  }
  current = std::move(s);
  return {};
}

Result<void> StatFolder::stat(const record::Stat& st, std::uint64_t offset) {
  PERFX_CHECK(start());
  const int ev = reader.attrs().index_of_id(st.id);
  if (ev < 0 || static_cast<std::size_t>(ev) >= current->events.size()) {
    return fail(Errc::kMalformedData, "{}: STAT record at {:#x} names unknown event id {}", path,
                offset, st.id);
  }
  const int cpu = st.cpu == 0xffffffffu ? -1 : static_cast<int>(st.cpu);
  const auto at = std::find(current->cpus.begin(), current->cpus.end(), cpu);
  if (at == current->cpus.end()) {
    return fail(Errc::kMalformedData, "{}: STAT record at {:#x}: CPU {} is not in the CPU map",
                path, offset, cpu);
  }
  if (st.thread >= current->threads.size()) {
    return fail(Errc::kMalformedData,
                "{}: STAT record at {:#x}: thread {} is past the thread map ({} threads)", path,
                offset, st.thread, current->threads.size());
  }
  const auto i =
      static_cast<std::size_t>(at - current->cpus.begin()) * current->threads.size() + st.thread;
  auto& e = current->events[static_cast<std::size_t>(ev)];
  e.supported = true;
  e.instances[i] = RawCount{st.val, st.ena, st.run, 0};
  e.ids[i] = st.id;
  ++stats;
  return {};
}

Result<void> StatFolder::on(const record::Record& r, std::uint64_t offset) {
  if (const auto* tm = r.get<record::ThreadMap>(); tm && !have_threads) {
    have_threads = true;
    for (std::size_t i = 0; i < tm->size(); ++i) {
      const auto e = (*tm)[i];
      out.threads.push_back(static_cast<std::int64_t>(e.pid));
      out.thread_comms.emplace_back(e.comm);
    }
  } else if (const auto* cm = r.get<record::CpuMap>(); cm && !have_cpus) {
    have_cpus = true;
    out.cpus = cm->cpus();
    if (out.cpus.empty())
      return fail(Errc::kMalformedData, "{}: CPU_MAP record at {:#x} does not decode", path,
                  offset);
  } else if (const auto* sc = r.get<record::StatConfig>()) {
    const auto code = sc->get(record::StatConfigTag::kAggrMode, stat_aggr_code(StatAggr::kGlobal));
    out.aggr = stat_aggr_from_code(code).value_or(StatAggr::kGlobal);
    out.interval_ms = sc->get(record::StatConfigTag::kInterval, 0);
  } else if (const auto* st = r.get<record::Stat>()) {
    return stat(*st, offset);
  } else if (const auto* round = r.get<record::StatRound>()) {
    if (!current) return {};  // nothing read yet (perf prints empty counts): skip
    if (keep_rounds)
      out.rounds.push_back({*current, round->time, round->type == record::kStatRoundFinal});
  }
  return {};
}

}  // namespace perfx::profile
