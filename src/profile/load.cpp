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
#include "profile/sample_traces.hpp"
#include "profile/stack_cache.hpp"
#include "profile/symbol_paths.hpp"
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

// Off-CPU samples carry provisional stack and event ids until the frames exist:
// stack = kMarked | index into `marked` (the switch-out stack + blocked or run-queue),
// event = kOffCpuEvent / kRunQueueEvent. finish_off_cpu() turns them into real ones.
constexpr std::uint32_t kMarked = 0x80000000u;
constexpr std::uint16_t kOffCpuEvent = 0xfffe;
constexpr std::uint16_t kRunQueueEvent = 0xfffd;

struct OffCpuState {
  bool active = false;    // the recording has off-CPU data and the view wants it
  int switch_event = -1;  // attr index of sched:sched_switch
  OffCpuTracker tracker;
  std::vector<std::pair<std::uint32_t, bool>> marked;  // (stack, blocked)
  std::unordered_map<std::uint64_t, std::uint32_t> marked_index;
  std::uint64_t intervals = 0;

  std::uint32_t mark(std::uint32_t stack, bool blocked) {
    const std::uint64_t key = (static_cast<std::uint64_t>(stack) << 1) | (blocked ? 1u : 0u);
    auto [it, added] = marked_index.try_emplace(key, static_cast<std::uint32_t>(marked.size()));
    if (added) marked.emplace_back(stack, blocked);
    return kMarked | it->second;
  }
};

// Whether `reader` was recorded with --off-cpu/--wall: sched:sched_switch sampled with
// callchains, and context-switch records (the switch-in times) on some event.
int off_cpu_switch_event(const record::PerfDataReader& reader) {
  int sched = -1;
  bool switches = false;
  for (std::size_t i = 0; i < reader.attrs().size(); ++i) {
    const auto& a = reader.attrs()[i].attr;
    if (a.context_switch) switches = true;
    if (a.type == PERF_TYPE_TRACEPOINT && (a.sample_type & PERF_SAMPLE_CALLCHAIN) &&
        (a.sample_type & PERF_SAMPLE_RAW) && reader.event_name(i) == "sched:sched_switch")
      sched = static_cast<int>(i);
  }
  return switches ? sched : -1;
}

// Gives the off-CPU samples their marker frames, stacks and events (after
// add_location_frames()): each marked stack is the switch-out stack plus a leaf
// "[off-cpu]" or "[run-queue]" frame.
void finish_off_cpu(OffCpuState& st, OffCpuView view, Profile& prof) {
  const auto marker = [&](const char* name) {
    Frame f;
    f.function = name;
    f.dso = name;
    f.kind = FrameKind::kOffCpu;
    prof.frames.push_back(std::move(f));
    return static_cast<std::uint32_t>(prof.frames.size() - 1);
  };
  std::uint32_t off_frame = 0, rq_frame = 0;
  if (!st.marked.empty()) {
    off_frame = marker("[off-cpu]");
    rq_frame = marker("[run-queue]");
  }
  const auto base = static_cast<std::uint32_t>(prof.stacks.size());
  for (const auto& [stack, blocked] : st.marked) {
    std::vector<std::uint32_t> frames =
        stack < base ? prof.stacks[stack] : std::vector<std::uint32_t>{};
    frames.push_back(blocked ? off_frame : rq_frame);
    prof.stacks.push_back(std::move(frames));
  }
  // Event ids: the wall view joins the first clock event; else (or without one) new events.
  int clock = -1;
  if (view == OffCpuView::kWall) {
    for (std::size_t i = 0; i < prof.events.size() && clock < 0; ++i) {
      if (static_cast<int>(i) != st.switch_event && prof.events[i].unit == "nanoseconds")
        clock = static_cast<int>(i);
    }
  }
  int off_ev = clock, rq_ev = clock;
  if (clock < 0) {
    for (const char* name : {"offcpu-time", "runqueue-time"}) {
      Event e{name, "nanoseconds"};
      e.has_callchain = true;
      prof.events.push_back(std::move(e));
    }
    off_ev = static_cast<int>(prof.events.size()) - 2;
    rq_ev = off_ev + 1;
  } else {
    prof.events[static_cast<std::size_t>(clock)].name += "+offcpu-time";
  }
  for (Sample& s : prof.samples) {
    if (s.stack & kMarked) s.stack = base + (s.stack & ~kMarked);
    if (s.event != kOffCpuEvent && s.event != kRunQueueEvent) continue;
    s.event = static_cast<std::uint16_t>(s.event == kOffCpuEvent ? off_ev : rq_ev);
    Event& e = prof.events[s.event];
    e.off_cpu = true;
    e.total_samples += s.count;
    e.total_period += s.period;
  }
  if (st.switch_event >= 0 && static_cast<std::size_t>(st.switch_event) < prof.events.size()) {
    // Its samples became the intervals: not shown as an event of their own.
    prof.events[static_cast<std::size_t>(st.switch_event)].total_samples = 0;
    prof.events[static_cast<std::size_t>(st.switch_event)].total_period = 0;
  }
  if (st.intervals == 0 && st.tracker.open_intervals() > 0) {
    prof.warnings.push_back(
        fmt::format("off-CPU: {} threads switched out but never back in: the recording has no "
                    "switch-in times (record with --off-cpu, which adds context-switch records)",
                    st.tracker.open_intervals()));
  }
}

}  // namespace

Result<Profile> load_profile(const std::string& path, const LoadOptions& options) {
  PERFX_TRY(reader, record::PerfDataReader::open(path));
  return load_profile_from(reader, options);
}

Result<Profile> load_profile_from(record::PerfDataReader& reader, const LoadOptions& options) {
  symbol::Machine machine(search_paths({.buildid_dir = options.buildid_dir,
                                        .demangle_params = options.demangle_params,
                                        .demangle = options.demangle,
                                        .symfs = options.symfs,
                                        .kallsyms = options.kallsyms,
                                        .vmlinux = options.vmlinux}));
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
  OffCpuState off_cpu;
  if (options.off_cpu != OffCpuView::kNone) {
    off_cpu.switch_event = off_cpu_switch_event(reader);
    off_cpu.active = off_cpu.switch_event >= 0;
  }

  LocationTable table;
  std::unordered_map<std::vector<std::uint32_t>, std::uint32_t, IdStackHash> stack_index;
  std::vector<const std::vector<std::uint32_t>*> loc_stacks;  // leaf first
  std::unordered_map<ThreadKey, std::uint32_t, ThreadKeyHash> thread_index;
  std::vector<std::uint32_t> locs;
  // The trace key keeps each sample's own text: no merging then.
  const bool aggregate = options.aggregate && !options.trace_output;
  const bool merge_runs = options.merge_runs && !options.trace_output;
  SampleTraces traces(options);
  std::uint32_t trace = Profile::kNoTrace;                // the text of the sample being added
  std::unordered_map<std::uint64_t, std::size_t> merged;  // aggregate: key -> sample index
  std::vector<std::size_t> last_of_thread;  // merge_runs: thread -> its last sample + 1
  std::uint64_t progress_tick = 0;
  bool first_time = true;

  // One Sample per recorded sample: reserve for a data section of 48-byte samples (a
  // sample with a callchain is bigger), capped. Growing by doubling would copy the samples
  // and touch twice the fresh memory; reserved pages never written are never faulted in
  // (Profile::samples is in huge pages).
  if (!aggregate && !merge_runs) {
    prof.samples.reserve(static_cast<std::size_t>(
        std::min<std::uint64_t>(reader.data_size() / 48, std::uint64_t{1} << 22)));
  }
  StackCache stack_cache;
  // (perf 6.1's inline rule expands unwound frames only: their DSOs' DWARF is opened when
  // resolved, not for every DSO of a frame-pointer recording.)
  const bool all_inlines = options.inline_frames && !options.inline_unwound_only;
  DsoPreloader preloader(options.source_lines || all_inlines, all_inlines);
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

  // Aggregation (options.aggregate / merge_runs) and the time span, for every sample.
  auto add_sample = [&](Sample out) {
    if (first_time || out.time_ns < prof.start_time_ns) prof.start_time_ns = out.time_ns;
    prof.end_time_ns = std::max(prof.end_time_ns, out.time_ns);
    first_time = false;
    if (aggregate) {
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
          return;
        }
      }
    } else if (merge_runs) {
      if (out.thread >= last_of_thread.size()) last_of_thread.resize(out.thread + 1, 0);
      if (const std::size_t last = last_of_thread[out.thread]; last != 0) {
        Sample& m = prof.samples[last - 1];
        if (m.stack == out.stack && m.event == out.event && m.cpu == out.cpu) {
          m.period += out.period;
          m.count++;
          return;
        }
      }
      last_of_thread[out.thread] = prof.samples.size() + 1;
    }
    prof.samples.push_back(out);
    if (options.trace_output) prof.sample_traces.push_back(trace);
  };
  // An off-CPU interval of a thread ended: one sample weighted by its length.
  auto add_interval = [&](const OffCpuInterval& iv) {
    if (time_filter.skip(iv.start_ns)) return;
    ++off_cpu.intervals;
    Sample out;
    out.stack = off_cpu.mark(iv.stack, iv.blocked);
    out.thread = iv.thread;
    out.cpu = iv.cpu;
    out.time_ns = iv.start_ns;
    out.period = iv.duration_ns;
    out.event = iv.blocked ? kOffCpuEvent : kRunQueueEvent;
    add_sample(out);
  };

  auto on_item = [&](const ReplayItem& item) -> bool {
    const auto& r = item.record;
    if (const auto* lost = r.get<record::Lost>()) {
      prof.lost_samples += lost->lost;
      return true;
    }
    if (off_cpu.active && (r.get<record::Switch>() || r.get<record::SwitchCpuWide>())) {
      // PERF_RECORD_SWITCH(_CPU_WIDE) "in": the sample_id's thread got a CPU.
      if ((r.header.misc & PERF_RECORD_MISC_SWITCH_OUT) == 0) {
        if (auto iv = off_cpu.tracker.switch_in(static_cast<std::int32_t>(r.sample_id.tid),
                                                r.sample_id.time))
          add_interval(*iv);
      }
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
    if (off_cpu.active && ai == off_cpu.switch_event) {
      // The thread leaving the CPU (the sample's own); with -a also the one arriving.
      prof.events[static_cast<std::size_t>(ai)].total_samples--;
      prof.events[static_cast<std::size_t>(ai)].total_period -= period;
      const auto sw = decode_sched_switch(s->raw);
      if (!sw) return true;
      if (auto iv = off_cpu.tracker.switch_in(sw->next_pid, s->time)) add_interval(*iv);
      if (!options.thread_filter.keeps(t.comm, t.pid, t.tid)) return true;
      off_cpu.tracker.switch_out(
          static_cast<std::int32_t>(s->tid), s->time, is_blocked_state(sw->prev_state),
          stack_of(t, *s, r.header.misc), thread_of(t),
          static_cast<std::uint16_t>(std::min<std::uint32_t>(s->cpu, 0xffff)));
      return true;
    }
    if (!options.thread_filter.keeps(t.comm, t.pid, t.tid)) return true;
    Sample out;
    out.stack = stack_of(t, *s, r.header.misc);
    out.thread = thread_of(t);
    out.cpu = static_cast<std::uint16_t>(std::min<std::uint32_t>(s->cpu, 0xffff));
    out.time_ns = s->time;
    out.period = period;
    out.event = static_cast<std::uint16_t>(ai);
    if (options.trace_output && static_cast<std::size_t>(ai) < prof.events.size()) {
      trace = traces.intern(prof, static_cast<std::size_t>(ai),
                            reader.attrs()[static_cast<std::size_t>(ai)].attr.type,
                            prof.events[static_cast<std::size_t>(ai)].name, *s);
    }
    add_sample(out);
    trace = Profile::kNoTrace;
    return true;
  };
  auto replayed = replay(reader, machine, on_item);
  // A damaged file keeps what was read before the damage: the error is reported with the
  // profile, not instead of it (perf also shows what it could read).
  prof.damage = describe_damage(reader, replayed);
  if (no_cpu_field) return fail(Errc::kInvalidArgument, "{}", kNoCpuEvents);
  if (options.progress != nullptr) options.progress(reader.file_size(), reader.file_size());

  const InlineMode inlines = !options.inline_frames        ? InlineMode::kNone
                             : options.inline_unwound_only ? InlineMode::kUnwound
                                                           : InlineMode::kAll;
  table.resolve_all(options.source_lines, inlines, options.threads);

  add_location_frames(table, loc_stacks, prof,
                      options.inline_frames && options.inline_unwound_only);
  if (off_cpu.active) finish_off_cpu(off_cpu, options.off_cpu, prof);
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
