// perf stat report's input side: a `stat record` perf.data (perf's or perfx's) back into
// cumulative CounterSnapshots, one per STAT_ROUND (builtin-stat.c's process_thread_map_event,
// process_cpu_map_event, process_stat_config_event, perf_event__process_stat_event and
// process_stat_round_event).
#include "core/error_format.hpp"
#include "perfx/stat_record.hpp"
#include "profile/stat_folder.hpp"
#include "record/perf_data_reader.hpp"

namespace perfx {

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
  if (const auto& cmd = reader.features().cmdline; cmd && !reader.is_pipe()) b.out.cmdline = *cmd;
  return std::move(b.out);
}

}  // namespace perfx
