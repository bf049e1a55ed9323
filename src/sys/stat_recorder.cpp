// perf stat record: a stat session's readings as a perf.data (builtin-stat.c's
// __run_perf_stat/read_counter_cpu/process_interval writes, in perf 6.1's layout).
#include <linux/perf_event.h>
#include <unistd.h>

#include <algorithm>
#include <cstring>
#include <optional>
#include <utility>

#include "core/error_format.hpp"
#include "perfx/stat_record.hpp"
#include "record/perf_data_writer.hpp"
#include "sys/system_info_features.hpp"

namespace perfx {
namespace {

using record::Record;

// A typed user record to write (no attr, no sample_id).
template <typename Body>
Record user_record(Body body) {
  Record r;
  r.body = std::move(body);
  return r;
}

// THREAD_MAP entries: {u64 pid; char comm[16]} per row.
std::vector<std::byte> thread_map_bytes(const std::vector<pid_t>& threads,
                                        const std::vector<std::string>& comms) {
  std::vector<std::byte> out(threads.size() * 24);
  for (std::size_t i = 0; i < threads.size(); ++i) {
    const std::uint64_t pid = static_cast<std::uint64_t>(static_cast<std::int64_t>(threads[i]));
    std::memcpy(out.data() + i * 24, &pid, 8);
    if (i < comms.size()) {
      std::memcpy(out.data() + i * 24 + 8, comms[i].data(),
                  std::min<std::size_t>(15, comms[i].size()));
    }
  }
  return out;
}

// CPU_MAP in the list form perf writes for a short map: u16 nr, u16 cpu[nr] (-1: 0xffff).
std::vector<std::byte> cpu_map_bytes(const std::vector<int>& cpus) {
  std::vector<std::byte> out;
  auto put = [&](std::uint16_t v) {
    const auto* b = reinterpret_cast<const std::byte*>(&v);
    out.insert(out.end(), b, b + 2);
  };
  put(static_cast<std::uint16_t>(cpus.size()));
  for (int c : cpus) put(c < 0 ? 0xffff : static_cast<std::uint16_t>(c));
  return out;
}

}  // namespace

// perf 6.1's enum aggr_mode (util/stat.h): AGGR_NONE 0, GLOBAL 1, SOCKET 2, DIE 3, CORE 4,
// THREAD 5, (UNSET 6), NODE 7.
constexpr std::pair<StatAggr, std::uint64_t> kAggrCodes[] = {
    {StatAggr::kPerCpu, 0}, {StatAggr::kGlobal, 1},  {StatAggr::kPerSocket, 2},
    {StatAggr::kPerDie, 3}, {StatAggr::kPerCore, 4}, {StatAggr::kPerThread, 5},
    {StatAggr::kPerNode, 7}};

std::uint64_t stat_aggr_code(StatAggr aggr) noexcept {
  for (const auto& [a, code] : kAggrCodes)
    if (a == aggr) return code;
  return 1;
}

std::optional<StatAggr> stat_aggr_from_code(std::uint64_t code) noexcept {
  for (const auto& [a, c] : kAggrCodes)
    if (c == code) return a;
  return std::nullopt;
}

struct StatRecorder::Impl {
  std::string path;
  StatRecordOptions options;
  std::optional<record::PerfDataWriter> writer;
  std::optional<Error> error;  // the first failure of an interval write

  // The file, its attrs (the events with their ids) and the maps, at the first reading.
  Result<void> open(const CounterSnapshot& s) {
    if (writer) return {};
    std::vector<record::WriterAttr> attrs;
    for (const auto& ev : s.events) {
      record::WriterAttr a;
      a.attr = ev.attr;
      // perf: PERF_SAMPLE_IDENTIFIER "should be harmless while avoiding that older tools
      // show confusing messages" (stat_config.identifier), but not in a pipe: there perf's
      // tools refuse a HEADER_ATTR that has it ("failed to process type: 64").
      a.attr.sample_type = path == "-" ? 0 : PERF_SAMPLE_IDENTIFIER;
      a.name = ev.name;
      if (ev.supported)
        for (std::uint64_t id : ev.ids)
          if (id != 0) a.ids.push_back(id);
      attrs.push_back(std::move(a));
    }
    if (attrs.empty())
      return fail(Errc::kInvalidArgument, "stat record: no events to record (-n counts nothing)");
    record::WriterOptions wo;
    wo.track_sample_time = false;
    PERFX_TRY(w, record::PerfDataWriter::create(path, std::move(attrs), wo));
    writer.emplace(std::move(w));
    // Pipe mode sends the features now, before any record (as perf); file mode at the end.
    record::Features f;
    sys::gather_system_features(f, options.version);
    std::vector<std::string> cmdline{"perfx"};
    char self[4096];
    const ssize_t n = ::readlink("/proc/self/exe", self, sizeof(self) - 1);
    if (n > 0) cmdline[0] = std::string(self, static_cast<std::size_t>(n));
    cmdline.insert(cmdline.end(), options.cmdline.begin(), options.cmdline.end());
    f.cmdline = std::move(cmdline);
    f.raw[static_cast<int>(record::Feature::kStat)] = {};  // perf's write_stat(): empty
    PERFX_CHECK(writer->set_features(f));
    if (writer->is_pipe()) PERFX_CHECK(write_names(s));
    const auto threads = thread_map_bytes(s.threads, options.thread_comms);
    PERFX_CHECK(writer->write(user_record(record::ThreadMap{s.threads.size(), threads, false})));
    const auto cpus = cpu_map_bytes(s.cpus);
    PERFX_CHECK(writer->write(user_record(record::CpuMap{0, cpus, false})));
    const std::uint64_t terms[] = {
        static_cast<std::uint64_t>(record::StatConfigTag::kAggrMode), stat_aggr_code(options.aggr),
        static_cast<std::uint64_t>(record::StatConfigTag::kInterval), options.interval_ms,
        static_cast<std::uint64_t>(record::StatConfigTag::kScale),    1};
    return writer->write(user_record(record::StatConfig{3, record::U64Array::of(terms)}));
  }

  // Pipe mode has no EVENT_DESC: perf's EVENT_UPDATE (type NAME) names each event by an id.
  Result<void> write_names(const CounterSnapshot& s) {
    for (const auto& ev : s.events) {
      const auto id = std::find_if(ev.ids.begin(), ev.ids.end(), [](auto x) { return x != 0; });
      if (!ev.supported || id == ev.ids.end()) continue;
      // The name and its NUL (the encoder pads it to 8).
      const std::string name = ev.name + '\0';
      PERFX_CHECK(writer->write(user_record(
          record::EventUpdate{static_cast<std::uint64_t>(record::EventUpdateType::kName), *id,
                              std::as_bytes(std::span(name.data(), name.size())), false})));
    }
    return {};
  }

  // One STAT per event, CPU and thread (perf's read_counter_cpu order: event-major here).
  Result<void> write_counts(const CounterSnapshot& s) {
    PERFX_CHECK(open(s));
    const std::size_t nthreads = s.threads.size();
    for (const auto& ev : s.events) {
      if (!ev.supported) continue;
      for (std::size_t i = 0; i < ev.instances.size() && i < ev.ids.size(); ++i) {
        const std::size_t cpu_index = nthreads == 0 ? 0 : i / nthreads;
        const int cpu = cpu_index < s.cpus.size() ? s.cpus[cpu_index] : -1;
        record::Stat st;
        st.id = ev.ids[i];
        st.cpu = static_cast<std::uint32_t>(cpu);
        st.thread = static_cast<std::uint32_t>(nthreads == 0 ? 0 : i % nthreads);
        st.val = ev.instances[i].value;
        st.ena = ev.instances[i].time_enabled;
        st.run = ev.instances[i].time_running;
        PERFX_CHECK(writer->write(user_record(st)));
      }
    }
    return {};
  }

  Result<void> round(std::uint64_t type, std::uint64_t time_ns) {
    return writer->write(user_record(record::StatRound{type, time_ns}));
  }

  Result<void> finish_file() { return writer->finalize(); }
};

StatRecorder::StatRecorder(std::string path, StatRecordOptions options)
    : impl_(std::make_unique<Impl>()) {
  impl_->path = std::move(path);
  impl_->options = std::move(options);
}
StatRecorder::StatRecorder(StatRecorder&&) noexcept = default;
StatRecorder& StatRecorder::operator=(StatRecorder&&) noexcept = default;
StatRecorder::~StatRecorder() = default;

void StatRecorder::attach(StatSessionConfig& cfg) {
  auto chained = std::move(cfg.on_read);
  Impl* impl = impl_.get();
  cfg.on_read = [impl, chained](const CounterSnapshot& counts, double time_s) {
    if (chained) chained(counts, time_s);
    if (impl->error) return;
    auto ok = impl->write_counts(counts);
    if (ok) ok = impl->round(record::kStatRoundInterval, static_cast<std::uint64_t>(time_s * 1e9));
    if (!ok) impl->error = ok.error();
  };
}

Result<void> StatRecorder::finish(const std::vector<StatRun>& runs) {
  if (impl_->error) return tl::unexpected(*impl_->error);
  if (runs.size() != 1)
    return fail(Errc::kInvalidArgument, "stat record writes one run ({} given)", runs.size());
  const StatRun& run = runs.front();
  PERFX_CHECK(impl_->write_counts(run.counts));
  if (impl_->options.interval_ms == 0) {
    PERFX_CHECK(
        impl_->round(record::kStatRoundFinal, static_cast<std::uint64_t>(run.elapsed.count())));
  }
  return impl_->finish_file();
}

}  // namespace perfx
