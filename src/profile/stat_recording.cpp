// perf stat report's input side: a `stat record` perf.data (perf's or perfx's) back into
// cumulative CounterSnapshots, one per STAT_ROUND (builtin-stat.c's process_thread_map_event,
// process_cpu_map_event, process_stat_config_event, perf_event__process_stat_event and
// process_stat_round_event).
#include "core/cpu_list_text.hpp"
#include "core/error_format.hpp"
#include "perfx/stat_record.hpp"
#include "profile/stat_folder.hpp"
#include "record/perf_data_reader.hpp"

namespace perfx {
namespace {

// perf stat report's perf_env__get_{socket,die,core,node}_aggr_by_cpu(): CPU_TOPOLOGY's
// ids by CPU number (die 0 in a file without dies), NUMA_TOPOLOGY's node lists (a CPU's
// node is the index of the node listing it; -1 when none does).
std::vector<CpuPlace> recorded_cpu_places(const record::Features& f) {
  std::vector<CpuPlace> places;
  if (!f.cpu_topology) return places;
  for (const auto& c : f.cpu_topology->cpus) {
    places.push_back(CpuPlace{static_cast<int>(c.socket_id), static_cast<int>(c.die_id),
                              static_cast<int>(c.core_id), -1});
  }
  for (std::size_t i = 0; i < f.numa_topology.size(); ++i) {
    auto cpus = core::parse_cpus(f.numa_topology[i].cpus);
    if (!cpus) continue;
    for (int cpu : *cpus) {
      if (cpu < 0) continue;
      const auto at = static_cast<std::size_t>(cpu);
      if (at >= places.size()) places.resize(at + 1);
      places[at].node = static_cast<int>(i);
    }
  }
  return places;
}

}  // namespace

using record::PerfDataReader;
using record::RawRecord;
using record::Record;

Result<StatRecording> read_stat_recording(const std::string& path) {
  PERFX_TRY(reader, PerfDataReader::open(path));
  profile::StatFolder b{reader, path};
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
  b.out.cpu_places = recorded_cpu_places(reader.features());
  if (const auto& cmd = reader.features().cmdline; cmd && !reader.is_pipe()) b.out.cmdline = *cmd;
  return std::move(b.out);
}

}  // namespace perfx
