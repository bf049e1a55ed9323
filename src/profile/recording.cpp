// perfx::Recording (include/perfx/recording.hpp): the one front door to a perf.data.
#include "perfx/recording.hpp"

#include <optional>
#include <utility>

#include "core/error_format.hpp"
#include "profile/load.hpp"
#include "profile/recording_access.hpp"
#include "profile/replay.hpp"
#include "profile/time_filter.hpp"
#include "record/ownership_check.hpp"
#include "record/perf_data_info.hpp"
#include "symbol/machine.hpp"

namespace perfx {

struct Recording::Impl {
  std::string path;
  record::PerfDataReader reader;
  bool used = false;  // a pass (or a pipe's header text) read the data section
};

Recording::Recording(std::unique_ptr<Impl> impl) : impl_(std::move(impl)) {}
Recording::Recording(Recording&&) noexcept = default;
Recording& Recording::operator=(Recording&&) noexcept = default;
Recording::~Recording() = default;

Result<Recording> Recording::open(const std::string& path, const RecordingOptions& options) {
  // perf's rule: another user's perf.data could be crafted against the reader.
  PERFX_CHECK(record::check_input_owner(path, options.force));
  PERFX_TRY(reader, record::PerfDataReader::open(path));
  return Recording(std::make_unique<Impl>(Impl{path, std::move(reader)}));
}

Result<void> check_time_windows(std::string_view spec) {
  if (spec.empty() || spec.find('%') != std::string_view::npos) return {};
  PERFX_TRY(filter, profile::parse_time_filter(spec));
  (void)filter;
  return {};
}

const std::string& Recording::path() const noexcept { return impl_->path; }
bool Recording::is_pipe() const noexcept { return impl_->reader.is_pipe(); }
PerfDataInfo Recording::info() const { return record::header_info(impl_->reader); }

Result<std::string> Recording::header_text() {
  auto& reader = impl_->reader;
  if (reader.is_pipe()) {
    // The attrs and features of a stream come as records at its head.
    PERFX_TRY(r, detail::RecordingAccess::pass(*this));
    record::RawRecord raw;
    while (r->next(raw)) {
      if (raw.header.type < raw::PERF_RECORD_HEADER_ATTR &&
          raw.header.type != raw::PERF_RECORD_FINISHED_INIT)
        break;
    }
  }
  return reader.header_text();
}

Result<Profile> Recording::load_profile(const ProfileOptions& options) {
  PERFX_TRY(reader, detail::RecordingAccess::pass(*this));
  return profile::load_profile_from(*reader, options);
}

Result<void> Recording::for_each_sample(const SampleSelection& selection,
                                        const std::function<bool(const SymbolizedSample&)>& fn) {
  PERFX_TRY(reader, detail::RecordingAccess::pass(*this));
  profile::TimeFilter time_filter;
  if (!selection.time.empty()) {
    PERFX_TRY(tf, profile::recording_time_filter(*reader, selection.time));
    time_filter = std::move(tf);
  }
  PERFX_CHECK(profile::check_cpu_list(*reader, selection.cpus));
  symbol::SearchPaths paths;
  paths.buildid_dir = selection.buildid_dir;
  paths.demangle = selection.demangle;
  symbol::Machine machine(paths);
  profile::LocationTable table;
  std::vector<std::uint32_t> locs;
  std::vector<std::uint64_t> ips;
  std::vector<SampleFrame> frames;
  static const std::string kUnknown = "[unknown]";
  auto on_item = [&](const profile::ReplayItem& item) -> bool {
    const auto& r = item.record;
    const auto* s = r.get<record::Sample>();
    if (s == nullptr || item.thread == nullptr) return true;
    const auto& t = *item.thread;
    if (time_filter.skip(s->time)) return true;
    if (!selection.cpus.empty() &&
        std::find(selection.cpus.begin(), selection.cpus.end(), s->cpu) == selection.cpus.end())
      return true;
    if (!selection.threads.keeps(t.comm, t.pid, t.tid)) return true;
    (void)profile::sample_locations(machine, t, *s, r.header.misc, selection.callchains, table,
                                    locs, &ips);
    frames.clear();
    for (std::size_t i = 0; i < locs.size(); ++i) {
      const auto& loc = table.location(locs[i]);
      const auto& res = table.resolve(locs[i], false, profile::InlineMode::kNone);
      SampleFrame f;
      f.address = ips[i];
      f.map_address = loc.map_addr;
      f.function = res.sym != nullptr ? std::string_view(res.sym->name) : kUnknown;
      f.symbol_offset = res.sym != nullptr ? res.sym_addr - res.sym->start : 0;
      f.dso = loc.dso != nullptr ? std::string_view(loc.dso->long_name()) : kUnknown;
      frames.push_back(f);
    }
    SymbolizedSample out;
    out.event = r.attr_index < 0 ? 0 : static_cast<std::size_t>(r.attr_index);
    out.pid = t.pid;
    out.tid = t.tid;
    out.cpu = s->cpu;
    out.time = s->time;
    out.period = s->period;
    if (!s->has(PERF_SAMPLE_PERIOD) && out.event < reader->attrs().size()) {
      const auto& attr = reader->attrs()[out.event].attr;
      out.period = attr.freq ? 1 : attr.sample_period;
    }
    out.comm = t.comm;
    out.frames = frames;
    return fn(out);
  };
  auto ok = profile::replay(*reader, machine, on_item);
  if (auto damage = profile::describe_damage(*reader, ok); !damage.empty())
    return fail(ok ? Errc::kMalformedData : ok.error().code(), "{}", damage);
  return {};
}

namespace detail {

record::PerfDataReader& RecordingAccess::reader(Recording& recording) {
  return recording.impl_->reader;
}

Result<record::PerfDataReader*> RecordingAccess::pass(Recording& recording) {
  auto& impl = *recording.impl_;
  if (!impl.used) {
    impl.used = true;
    return &impl.reader;
  }
  if (impl.reader.is_pipe())
    return fail(Errc::kInvalidArgument, "{}: a pipe can be read once", impl.path);
  PERFX_TRY(reader, record::PerfDataReader::open(impl.path));
  impl.reader = std::move(reader);
  return &impl.reader;
}

}  // namespace detail
}  // namespace perfx
