// perf stat report's input side: a `stat record` perf.data (perf's or perfx's) back into
// cumulative CounterSnapshots, one per STAT_ROUND (builtin-stat.c's process_thread_map_event,
// process_cpu_map_event, process_stat_config_event, perf_event__process_stat_event and
// process_stat_round_event).
#include <algorithm>
#include <optional>

#include "core/error_format.hpp"
#include "perfx/stat_record.hpp"
#include "record/perf_data_reader.hpp"

namespace perfx {
namespace {

using record::PerfDataReader;
using record::RawRecord;
using record::Record;

struct Builder {
  PerfDataReader& reader;
  const std::string& path;
  StatRecording out;
  std::optional<CounterSnapshot> current;  // the counts so far (cumulative)
  bool have_threads = false, have_cpus = false;
  std::uint64_t stats = 0;

  // The snapshot's shape, at the first STAT (pipe mode: the attrs have passed by then).
  Result<void> start() {
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
      ev.instances.resize(n);
      ev.ids.resize(n);
      s.events.push_back(std::move(ev));
    }
    current = std::move(s);
    return {};
  }

  Result<void> stat(const record::Stat& st, std::uint64_t offset) {
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

  Result<void> on(const Record& r, std::uint64_t offset) {
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
      const auto code =
          sc->get(record::StatConfigTag::kAggrMode, stat_aggr_code(StatAggr::kGlobal));
      out.aggr = stat_aggr_from_code(code).value_or(StatAggr::kGlobal);
      out.interval_ms = sc->get(record::StatConfigTag::kInterval, 0);
    } else if (const auto* st = r.get<record::Stat>()) {
      return stat(*st, offset);
    } else if (const auto* round = r.get<record::StatRound>()) {
      if (!current) return {};  // nothing read yet (perf prints empty counts): skip
      out.rounds.push_back({*current, round->time, round->type == record::kStatRoundFinal});
    }
    return {};
  }
};

}  // namespace

Result<StatRecording> read_stat_recording(const std::string& path) {
  PERFX_TRY(reader, PerfDataReader::open(path));
  Builder b{reader, path, {}, {}};
  RawRecord rr;
  Record rec;
  std::uint64_t samples = 0;
  while (reader.next(rr)) {
    const std::uint32_t t = rr.header.type;
    if (t == PERF_RECORD_SAMPLE) ++samples;
    if (t < raw::PERF_RECORD_THREAD_MAP || t > raw::PERF_RECORD_STAT_ROUND) continue;
    auto ok = reader.decode(rr, rec);
    if (!ok) return tl::unexpected(std::move(ok).error());
    PERFX_CHECK(b.on(rec, rr.offset));
  }
  if (reader.error()) return tl::unexpected(*reader.error());
  if (b.stats == 0) {
    if (samples > 0)
      return fail(Errc::kInvalidArgument,
                  "{} holds no stat data: it is a sampling recording ({} samples; read it with "
                  "perfx report)",
                  path, samples);
    return fail(Errc::kInvalidArgument,
                "{} holds no stat data (no PERF_RECORD_STAT): record one with perfx stat record",
                path);
  }
  if (b.out.rounds.empty())
    return fail(Errc::kMalformedData, "{}: no STAT_ROUND record: the recording was cut short",
                path);
  if (const auto& cmd = reader.features().cmdline; cmd && !reader.is_pipe()) b.out.cmdline = *cmd;
  return std::move(b.out);
}

}  // namespace perfx
