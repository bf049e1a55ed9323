// load_sched_trace(): the scheduler events of a recording (include/perfx/sched.hpp).

#include <algorithm>
#include <bit>

#include "core/error_format.hpp"
#include "event/tracepoint_format.hpp"
#include "perfx/sched.hpp"
#include "profile/tracepoint_walk.hpp"

namespace perfx {
namespace {

using event::TracepointFormat;

// The fields of one sched tracepoint, looked up once per format.
struct SchedFields {
  const TracepointFormat* format = nullptr;
  SchedEventKind kind = SchedEventKind::kSwitch;
  const event::TracepointField *comm = nullptr, *pid = nullptr, *prio = nullptr;
  const event::TracepointField *state = nullptr, *next_comm = nullptr, *next_pid = nullptr,
                               *next_prio = nullptr;
  const event::TracepointField *orig_cpu = nullptr, *dest_cpu = nullptr, *runtime = nullptr;
};

std::optional<SchedFields> fields_of(const TracepointFormat& f) {
  if (f.system != "sched") return std::nullopt;
  SchedFields s;
  s.format = &f;
  if (f.name == "sched_switch") {
    s.kind = SchedEventKind::kSwitch;
    s.comm = f.field("prev_comm");
    s.pid = f.field("prev_pid");
    s.prio = f.field("prev_prio");
    s.state = f.field("prev_state");
    s.next_comm = f.field("next_comm");
    s.next_pid = f.field("next_pid");
    s.next_prio = f.field("next_prio");
    if (s.pid == nullptr || s.next_pid == nullptr) return std::nullopt;
    return s;
  }
  if (f.name == "sched_waking" || f.name == "sched_wakeup" || f.name == "sched_wakeup_new") {
    s.kind = f.name == "sched_waking"   ? SchedEventKind::kWaking
             : f.name == "sched_wakeup" ? SchedEventKind::kWakeup
                                        : SchedEventKind::kWakeupNew;
    s.dest_cpu = f.field("target_cpu");
  } else if (f.name == "sched_migrate_task") {
    s.kind = SchedEventKind::kMigrate;
    s.orig_cpu = f.field("orig_cpu");
    s.dest_cpu = f.field("dest_cpu");
  } else if (f.name == "sched_stat_runtime") {
    s.kind = SchedEventKind::kRuntime;
    s.runtime = f.field("runtime");
  } else {
    return std::nullopt;
  }
  s.comm = f.field("comm");
  s.pid = f.field("pid");
  s.prio = f.field("prio");
  if (s.pid == nullptr) return std::nullopt;
  return s;
}

std::int32_t int_of(const event::TracepointField* f, std::span<const std::byte> raw,
                    std::int32_t fallback = -1) {
  if (f == nullptr) return fallback;
  const auto v = event::read_int_field(*f, raw);
  return v ? static_cast<std::int32_t>(*v) : fallback;
}

}  // namespace

char sched_state_letter(std::int64_t prev_state) noexcept {
  static constexpr char kLetters[] = "SDTtXZPI";
  const auto v = static_cast<std::uint64_t>(prev_state);
  if (v == 0) return 'R';
  const int bit = std::countr_zero(v);
  return bit < 8 ? kLetters[bit] : 'R';  // TASK_REPORT_MAX (0x100): preempted, "R+"
}

Result<SchedTrace> load_sched_trace(const std::string& path, bool force) {
  SchedTrace trace;
  std::vector<std::optional<SchedFields>> cache;  // per format address, small
  std::vector<const TracepointFormat*> cache_keys;
  bool has_switch = false;
  std::int32_t max_cpu = -1;
  auto walked = profile::walk_tracepoint_recording(
      path, force, [&](const record::Record& rec, const TracepointFormat* format) {
        SchedEvent ev;
        ev.time = rec.sample_id.time;
        if (const auto* c = rec.get<record::Comm>()) {
          ev.kind = SchedEventKind::kComm;
          ev.task = static_cast<std::int32_t>(c->tid);
          ev.pid = static_cast<std::int32_t>(c->pid);
          ev.comm = std::string(c->comm);
          trace.events.push_back(std::move(ev));
          return;
        }
        // FORK and EXIT have the same fields; only a fork's parent is kept.
        const auto task_event = [&](SchedEventKind kind, const auto& t) {
          ev.kind = kind;
          ev.time = t.time;
          ev.task = static_cast<std::int32_t>(t.tid);
          ev.pid = static_cast<std::int32_t>(t.pid);
          if (kind == SchedEventKind::kFork) ev.ppid = static_cast<std::int32_t>(t.ppid);
          trace.events.push_back(std::move(ev));
        };
        if (const auto* f = rec.get<record::Fork>()) return task_event(SchedEventKind::kFork, *f);
        if (const auto* x = rec.get<record::Exit>()) return task_event(SchedEventKind::kExit, *x);
        const auto* s = rec.get<record::Sample>();
        if (s == nullptr || format == nullptr) return;
        ++trace.samples;
        std::size_t i = 0;
        while (i < cache_keys.size() && cache_keys[i] != format) ++i;
        if (i == cache_keys.size()) {
          cache_keys.push_back(format);
          cache.push_back(fields_of(*format));
        }
        if (!cache[i]) return;
        const SchedFields& sf = *cache[i];
        if (s->cpu >= static_cast<std::uint32_t>(kSchedMaxCpus)) {
          ++trace.malformed;  // no machine has that cpu: a damaged record
          return;
        }
        const auto raw = s->raw;
        ev.kind = sf.kind;
        ev.time = s->time;
        ev.cpu = static_cast<std::int32_t>(s->cpu);
        ev.sample_tid = static_cast<std::int32_t>(s->tid);
        ev.task = int_of(sf.pid, raw);
        ev.prio = int_of(sf.prio, raw, 0);
        if (sf.comm != nullptr) ev.comm = std::string(event::read_string_field(*sf.comm, raw));
        switch (sf.kind) {
          case SchedEventKind::kSwitch:
            has_switch = true;
            ev.other = int_of(sf.next_pid, raw);
            ev.other_prio = int_of(sf.next_prio, raw, 0);
            if (sf.state != nullptr) {
              ev.prev_state = event::read_int_field(*sf.state, raw).value_or(0);
            }
            ev.state = sched_state_letter(ev.prev_state);
            if (sf.next_comm != nullptr) {
              ev.other_comm = std::string(event::read_string_field(*sf.next_comm, raw));
            }
            break;
          case SchedEventKind::kWaking:
            trace.has_waking = true;
            ev.dest_cpu = int_of(sf.dest_cpu, raw);
            break;
          case SchedEventKind::kWakeup:
          case SchedEventKind::kWakeupNew:
            ev.dest_cpu = int_of(sf.dest_cpu, raw);
            break;
          case SchedEventKind::kMigrate:
            ev.orig_cpu = int_of(sf.orig_cpu, raw);
            ev.dest_cpu = int_of(sf.dest_cpu, raw);
            break;
          case SchedEventKind::kRuntime:
            trace.has_runtime = true;
            if (sf.runtime != nullptr) {
              ev.runtime_ns =
                  static_cast<std::uint64_t>(event::read_int_field(*sf.runtime, raw).value_or(0));
            }
            break;
          default:
            break;
        }
        max_cpu = std::max(max_cpu, ev.cpu);
        trace.events.push_back(std::move(ev));
      });
  if (!walked) return tl::unexpected(std::move(walked).error());
  if (!has_switch) {
    return fail(Errc::kNotFound,
                "{}: no sched:sched_switch events (record them with 'perfx sched record')", path);
  }
  trace.nr_cpus = walked->nr_cpus != 0 ? walked->nr_cpus : static_cast<std::uint32_t>(max_cpu + 1);
  trace.nr_cpus = std::max(trace.nr_cpus, static_cast<std::uint32_t>(max_cpu + 1));
  trace.nr_cpus = std::min(trace.nr_cpus, static_cast<std::uint32_t>(kSchedMaxCpus));
  trace.lost_events = walked->lost;
  trace.damage = walked->damage;
  trace.lost_chunks = walked->lost_records;
  trace.malformed += walked->malformed;
  // perf processes events in time order (its ordered-events queue); so do the models.
  std::stable_sort(trace.events.begin(), trace.events.end(),
                   [](const SchedEvent& a, const SchedEvent& b) { return a.time < b.time; });
  return trace;
}

}  // namespace perfx
