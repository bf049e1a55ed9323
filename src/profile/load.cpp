#include "profile/load.hpp"
#include "core/error_format.hpp"
#include "profile/time_filter.hpp"

#include <algorithm>
#include <unordered_map>

#include <fmt/format.h>

#include "core/huge_pages.hpp"
#include "profile/dso_preloader.hpp"
#include "profile/location_frames.hpp"
#include "profile/replay.hpp"
#include "profile/stack_cache.hpp"
#include "record/perf_data_reader.hpp"
#include "symbol/cache_dir.hpp"
#include "symbol/machine.hpp"

namespace perfx::profile {
namespace {

struct ThreadKey {
  std::int32_t pid, tid;
  std::string comm;
  bool operator==(const ThreadKey&) const = default;
};
struct ThreadKeyHash {
  std::size_t operator()(const ThreadKey& k) const noexcept {
    return std::hash<std::string>()(k.comm) ^ (static_cast<std::size_t>(k.tid) << 20) ^
           static_cast<std::size_t>(k.pid);
  }
};

template <typename T>
bool contains(const std::vector<T>& v, const T& x) {
  return std::find(v.begin(), v.end(), x) != v.end();
}

}  // namespace

Result<Profile> load_profile(const std::string& path, const LoadOptions& options) {
  PERFX_TRY(reader, record::PerfDataReader::open(path));
  return load_profile_from(reader, options);
}

Result<Profile> load_profile_from(record::PerfDataReader& reader, const LoadOptions& options) {
  symbol::SearchPaths paths;
  paths.buildid_dir = options.buildid_dir;
  paths.demangle_params = options.demangle_params;
  paths.demangle = options.demangle;
  symbol::Machine machine(paths);
  Profile prof;
  const auto& feats = reader.features();
  if (feats.cmdline) {
    for (std::size_t i = 0; i < feats.cmdline->size(); ++i) {
      if (i) prof.command_line += ' ';
      prof.command_line += (*feats.cmdline)[i];
    }
  }
  if (feats.hostname) prof.hostname = *feats.hostname;
  if (feats.arch) prof.arch = *feats.arch;
  for (const auto& g : feats.group_desc) {
    // perf writes "{anon_group}" for a group without a name.
    if (g.nr_members > 1 && g.leader_idx < reader.attrs().size() &&
        g.nr_members <= reader.attrs().size() - g.leader_idx &&
        g.leader_idx + g.nr_members <= (1u << 16))
      prof.event_groups.push_back(EventGroup{g.name == "{anon_group}" ? std::string() : g.name,
                                             g.leader_idx, g.nr_members});
  }
  if (feats.cpu_topology) {
    for (const auto& c : feats.cpu_topology->cpus)
      prof.cpu_sockets.push_back(static_cast<std::int32_t>(c.socket_id));
  }
  TimeFilter time_filter;
  if (!options.time.empty()) {
    PERFX_TRY(f, recording_time_filter(reader, options.time));
    time_filter = std::move(f);
  }
  bool no_cpu_field = false;  // --cpu on an event without PERF_SAMPLE_CPU
  // Sample::event is 16 bits: samples of events past the first 65536 (only a damaged or
  // hand-made file has that many) are left out, with a warning.
  constexpr std::size_t kMaxEvents = std::size_t{1} << 16;
  bool events_dropped = false;
  auto sync_events = [&] {
    const std::size_t n = std::min(reader.attrs().size(), kMaxEvents);
    for (std::size_t i = prof.events.size(); i < n; ++i) {
      std::string name = reader.event_name(i);
      Event ev{name, event_unit(name)};
      ev.has_callchain = (reader.attrs()[i].attr.sample_type & PERF_SAMPLE_CALLCHAIN) != 0;
      ev.has_cpu = (reader.attrs()[i].attr.sample_type & PERF_SAMPLE_CPU) != 0;
      if (!ev.has_cpu && !options.cpus.empty()) no_cpu_field = true;
      prof.events.push_back(std::move(ev));
    }
  };
  sync_events();
  PERFX_CHECK(check_cpu_list(reader, options.cpus));

  LocationTable table;
  std::unordered_map<std::vector<std::uint32_t>, std::uint32_t, IdStackHash> stack_index;
  std::vector<const std::vector<std::uint32_t>*> loc_stacks;  // leaf first
  std::unordered_map<ThreadKey, std::uint32_t, ThreadKeyHash> thread_index;
  std::vector<std::uint32_t> locs;
  std::unordered_map<std::uint64_t, std::size_t> merged;  // aggregate: key -> sample index
  std::vector<std::size_t> last_of_thread;  // merge_runs: thread -> its last sample + 1
  std::uint64_t progress_tick = 0;
  bool first_time = true;

  // One Sample per recorded sample: reserve for a data section of 48-byte samples (a
  // sample with a callchain is bigger), capped. Growing by doubling would copy the samples
  // and touch twice the fresh memory; reserved pages never written are never faulted in
  // (Profile::samples is in huge pages).
  if (!options.aggregate && !options.merge_runs) {
    prof.samples.reserve(static_cast<std::size_t>(
        std::min<std::uint64_t>(reader.data_size() / 48, std::uint64_t{1} << 22)));
  }
  StackCache stack_cache;
  DsoPreloader preloader(options.source_lines || options.inline_frames, options.inline_frames);
  std::vector<bool> queued;  // location id -> handed to the preloader
  // The interned stack of a sample: from the cache when its callchain was seen before.
  auto stack_of = [&](const symbol::ThreadState& t, const record::Sample& s,
                      std::uint16_t misc) -> std::uint32_t {
    const auto key = stack_key(s, options.callchains);
    bool cacheable = !key.empty();
    if (cacheable) {
      if (auto hit =
              stack_cache.find(machine.maps_generation(), t.maps.get(), record::cpumode(misc), key))
        return *hit;
    }
    // A corrupt callchain gives the sample ip alone: not the callchain's stack to cache.
    if (sample_locations(machine, t, s, misc, options.callchains, table, locs)) cacheable = false;
    auto [it, inserted] =
        stack_index.try_emplace(locs, static_cast<std::uint32_t>(loc_stacks.size()));
    if (inserted) {
      loc_stacks.push_back(&it->first);
      for (auto id : locs) {
        if (id >= queued.size()) queued.resize(table.size(), false);
        if (queued[id]) continue;
        queued[id] = true;
        const Location& loc = table.location(id);
        preloader.add(loc.dso);
        preloader.add_address(loc.dso, loc.map_addr);
      }
    }
    if (cacheable) stack_cache.insert(it->second);
    return it->second;
  };
  // Profile::threads index of a thread as it is named now (a comm change is a new entry).
  // Keyed by the ThreadState first, so the usual case compares a short comm, not hashes it.
  struct Named {
    ThreadKey key{-1, -1, {}};
    std::uint32_t index = 0;
  };
  std::unordered_map<const symbol::ThreadState*, Named> named;
  auto thread_of = [&](const symbol::ThreadState& t) -> std::uint32_t {
    Named& n = named[&t];
    if (n.key.pid != t.pid || n.key.tid != t.tid || n.key.comm != t.comm) {
      n.key = ThreadKey{t.pid, t.tid, t.comm};
      auto [it, added] =
          thread_index.try_emplace(n.key, static_cast<std::uint32_t>(prof.threads.size()));
      if (added) prof.threads.push_back(Thread{t.pid, t.tid, t.comm});
      n.index = it->second;
    }
    return n.index;
  };

  auto on_item = [&](const ReplayItem& item) -> bool {
    const auto& r = item.record;
    if (const auto* lost = r.get<record::Lost>()) {
      prof.lost_samples += lost->lost;
      return true;
    }
    const auto* s = r.get<record::Sample>();
    if (s == nullptr || item.thread == nullptr) return true;
    if (options.progress != nullptr && (++progress_tick & 0x3fff) == 0)
      options.progress(item.raw.offset, reader.file_size());
    const auto& t = *item.thread;
    sync_events();
    if (no_cpu_field) return false;  // pipe mode: attrs arrive with the data
    const int ai = r.attr_index < 0 ? 0 : r.attr_index;
    if (static_cast<std::size_t>(ai) >= kMaxEvents) {
      events_dropped = true;
      return true;
    }
    std::uint64_t period = s->period;
    if (!s->has(PERF_SAMPLE_PERIOD) && static_cast<std::size_t>(ai) < reader.attrs().size()) {
      const auto& attr = reader.attrs()[static_cast<std::size_t>(ai)].attr;
      period = attr.freq ? 1 : attr.sample_period;
    }
    // perf report skips samples outside --time and --cpu before they reach the hists,
    // so they are not in the totals either; --pid/--tid/--comms only hide entries.
    if (time_filter.skip(s->time)) return true;
    if (!options.cpus.empty() && !contains(options.cpus, s->cpu)) return true;
    if (static_cast<std::size_t>(ai) < prof.events.size()) {
      prof.events[static_cast<std::size_t>(ai)].total_samples++;
      prof.events[static_cast<std::size_t>(ai)].total_period += period;
    }
    if (!options.thread_filter.keeps(t.comm, t.pid, t.tid)) return true;
    Sample out;
    out.stack = stack_of(t, *s, r.header.misc);
    out.thread = thread_of(t);
    out.cpu = static_cast<std::uint16_t>(std::min<std::uint32_t>(s->cpu, 0xffff));
    out.time_ns = s->time;
    out.period = period;
    out.event = static_cast<std::uint16_t>(ai);
    if (first_time || s->time < prof.start_time_ns) prof.start_time_ns = s->time;
    prof.end_time_ns = std::max(prof.end_time_ns, s->time);
    first_time = false;
    if (options.aggregate) {
      const std::uint64_t key = (static_cast<std::uint64_t>(out.stack) << 32) ^
                                (static_cast<std::uint64_t>(out.thread) << 12) ^
                                (static_cast<std::uint64_t>(out.event) << 8) ^ out.cpu;
      auto [ait, anew] = merged.try_emplace(key, prof.samples.size());
      if (!anew) {
        Sample& m = prof.samples[ait->second];
        if (m.stack == out.stack && m.thread == out.thread && m.event == out.event &&
            m.cpu == out.cpu) {
          m.period += out.period;
          m.count++;
          return true;
        }
      }
    } else if (options.merge_runs) {
      if (out.thread >= last_of_thread.size()) last_of_thread.resize(out.thread + 1, 0);
      if (const std::size_t last = last_of_thread[out.thread]; last != 0) {
        Sample& m = prof.samples[last - 1];
        if (m.stack == out.stack && m.event == out.event && m.cpu == out.cpu) {
          m.period += out.period;
          m.count++;
          return true;
        }
      }
      last_of_thread[out.thread] = prof.samples.size() + 1;
    }
    prof.samples.push_back(out);
    return true;
  };
  auto replayed = replay(reader, machine, on_item);
  // A damaged file keeps what was read before the damage: the error is reported with the
  // profile, not instead of it (perf also shows what it could read).
  prof.damage = describe_damage(reader, replayed);
  if (no_cpu_field) return fail(Errc::kInvalidArgument, "{}", kNoCpuEvents);
  if (options.progress != nullptr) options.progress(reader.file_size(), reader.file_size());

  table.resolve_all(options.source_lines, options.inline_frames, options.threads);

  add_location_frames(table, loc_stacks, prof);
  for (auto& w : describe_skipped(reader)) prof.warnings.push_back(std::move(w));
  // Caches that were refused or damaged (symbol/cache_dir.hpp): said once, then uncached.
  for (auto& w : symbol::take_cache_warnings()) prof.warnings.push_back(std::move(w));
  if (events_dropped) {
    prof.warnings.push_back(
        fmt::format("the file has {} events: samples of those after the first {} are left out",
                    reader.attrs().size(), kMaxEvents));
  }
  return prof;
}

}  // namespace perfx::profile
