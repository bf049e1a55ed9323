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
#include "sys/synthesize.hpp"
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
      // perf's stat reads TOTAL_TIME_ENABLED|RUNNING (and ID|GROUP for a group); perfx's
      // own ID (its ids are the attr's list here) and LOST are no part of the file.
      a.attr.read_format &= ~static_cast<std::uint64_t>(PERF_FORMAT_LOST);
      if ((a.attr.read_format & PERF_FORMAT_GROUP) == 0)
        a.attr.read_format &= ~static_cast<std::uint64_t>(PERF_FORMAT_ID);
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
    // The features go into the file's header at the end; perf stat record sends none
    // into a pipe (no FEATURE records, unlike perf record).
    record::Features f;
    sys::gather_system_features(f, options.version);
    std::vector<std::string> cmdline{"perfx"};
    char self[4096];
    const ssize_t n = ::readlink("/proc/self/exe", self, sizeof(self) - 1);
    if (n > 0) cmdline[0] = std::string(self, static_cast<std::size_t>(n));
    cmdline.insert(cmdline.end(), options.cmdline.begin(), options.cmdline.end());
    f.cmdline = std::move(cmdline);
    f.raw[static_cast<int>(record::Feature::kStat)] = {};  // perf's write_stat(): empty
    if (!writer->is_pipe()) PERFX_CHECK(writer->set_features(f));
    PERFX_CHECK(write_updates(s));
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

  // perf_event__synthesize_extra_attr(): EVENT_UPDATE records per event, by its first
  // id: the unit when it has one, the scale when not 1 and, in a pipe (no EVENT_DESC
  // there), the name. perf sizes each as its struct (40 bytes) plus the payload, 8-aligned.
  Result<void> write_updates(const CounterSnapshot& s) {
    for (const auto& ev : s.events) {
      const auto id = std::find_if(ev.ids.begin(), ev.ids.end(), [](auto x) { return x != 0; });
      if (!ev.supported || id == ev.ids.end()) continue;
      const auto update = [&](record::EventUpdateType type, std::vector<std::byte> payload) {
        payload.resize(payload.size() + 16);  // the struct's union past the 24-byte head
        return writer->write(user_record(
            record::EventUpdate{static_cast<std::uint64_t>(type), *id, payload, false}));
      };
      const auto text = [](const std::string& t) {  // with its NUL
        const auto* b = reinterpret_cast<const std::byte*>(t.c_str());
        return std::vector<std::byte>(b, b + t.size() + 1);
      };
      const StatUnit unit = stat_unit(ev.attr.type, ev.attr.config);
      if (!unit.unit.empty()) PERFX_CHECK(update(record::EventUpdateType::kUnit, text(unit.unit)));
      if (unit.scale != 1.0) {
        std::vector<std::byte> scale(sizeof(double));
        std::memcpy(scale.data(), &unit.scale, sizeof(double));
        PERFX_CHECK(update(record::EventUpdateType::kScale, std::move(scale)));
      }
      if (writer->is_pipe()) PERFX_CHECK(update(record::EventUpdateType::kName, text(ev.name)));
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

  // perf's placeholder kernel map after the last reading (cmd_stat: "just so that older
  // tools don't emit warnings about ... kptr_restrict"): MMAP pid -1 [kernel.kallsyms]_text,
  // no sample_id. perf only warns when kallsyms hides the addresses; perfx writes none then.
  Result<void> kernel_mmap() {
    std::vector<std::byte> bytes;
    if (!sys::synthesize_kernel_mmap(record::SampleLayout{}, bytes)) return {};
    return writer->write_bytes(bytes);
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
  PERFX_CHECK(impl_->kernel_mmap());
  if (impl_->options.interval_ms == 0) {
    PERFX_CHECK(
        impl_->round(record::kStatRoundFinal, static_cast<std::uint64_t>(run.elapsed.count())));
  }
  return impl_->finish_file();
}

}  // namespace perfx
