#include "sys/record_target.hpp"

#include <linux/perf_event.h>

#include <cerrno>
#include <cstdlib>
#include <cstring>
#include <string>
#include <utility>
#include <vector>

#include "core/error_format.hpp"
#include "event/record_plan.hpp"
#include "sys/cgroup.hpp"
#include "sys/cpu_list.hpp"
#include "sys/ioctl.hpp"
#include "sys/process.hpp"
#include "sys/synthesize.hpp"
#include "sys/system_info.hpp"

namespace perfx::sys {
namespace {

// -p (processes: all their threads) and -t (threads; their processes' maps).
Result<void> resolve_tasks(const RecordOptions& o, RecordTarget& t) {
  t.pids.clear();
  if (!o.pids.empty()) {
    PERFX_TRY(list, parse_pid_list(o.pids));
    for (pid_t p : list) {
      PERFX_TRY(threads, process_threads(p));
      t.pids.insert(t.pids.end(), threads.begin(), threads.end());
      t.synth_pids.push_back(p);
    }
  }
  if (!o.tids.empty()) {
    PERFX_TRY(list, parse_pid_list(o.tids));
    for (pid_t tid : list) {
      t.pids.push_back(tid);
      auto status = read_text_file(fmt::format("/proc/{}/status", tid));
      if (!status) return fail(Errc::kNotFound, "no thread with tid {}", tid);
      const auto pos = status->find("\nTgid:");
      pid_t tgid = tid;
      if (pos != std::string::npos) tgid = std::atoi(status->c_str() + pos + 6);
      t.synth_pids.push_back(tgid);
    }
  }
  return {};
}

SamplerOptions sampler_options(const RecordPlan& plan, const RecordTarget& target) {
  SamplerOptions so;
  for (const auto& e : plan.events)
    so.events.push_back({e.name, e.attr_for_open(), e.group_leader});
  so.pids = target.pids;
  so.cpus = target.cpus;
  so.cgroup_fd = target.cgroup ? target.cgroup.get() : -1;
  so.data_pages = plan.data_pages;
  so.overwrite = plan.options.overwrite;
  return so;
}

}  // namespace

Result<RecordTarget> resolve_record_target(const RecordPlan& plan) {
  const auto& o = plan.options;
  const bool top = o.style == RecordStyle::kTop;
  RecordTarget t;
  if (plan.system_wide || top) {
    if (!o.cpus.empty()) {
      PERFX_TRY(cpus, parse_cpus(o.cpus));
      if (auto online = read_online_cpus()) PERFX_CHECK(check_cpus_online(cpus, *online));
      t.cpus = std::move(cpus);
    }
    if (!o.cgroup.empty()) {
      PERFX_TRY(fd, open_cgroup(o.cgroup));
      t.cgroup = std::move(fd);
    }
  }
  if (plan.task_target && (top || !plan.system_wide)) PERFX_CHECK(resolve_tasks(o, t));
  if (o.per_thread && !plan.system_wide && !top) t.cpus = {-1};  // a buffer per thread
  if (!o.command.empty() && !top) {
    PERFX_TRY(w, Workload::prepare(o.command));
    t.workload.emplace(std::move(w));
    if (plan.follows_workload_only) t.pids = {t.workload->pid()};
  }
  return t;
}

namespace {

bool is_cycles(const PlannedEvent& e) {
  return e.attr.type == PERF_TYPE_HARDWARE && e.attr.config == PERF_COUNT_HW_CPU_CYCLES;
}

// perf's evsel__precise_ip_fallback() for the default event (cycles:P) and `:P` events:
// lower their precise_ip until the events open; when nothing does, it is back at 3.
Result<Sampler> open_precise(RecordPlan& plan, const RecordTarget& target) {
  auto sampler = Sampler::open(sampler_options(plan, target));
  std::vector<raw::EventAttr*> lowered;
  for (auto& e : plan.events) {
    if (((e.is_default && !e.tracking) || e.precise_max) && e.attr.precise_ip != 0)
      lowered.push_back(&e.attr);
  }
  if (sampler || lowered.empty()) return sampler;
  for (unsigned p = 3; p-- > 0;) {
    for (auto* a : lowered) a->precise_ip = p & 3U;
    auto retry = Sampler::open(sampler_options(plan, target));
    if (retry) return retry;
  }
  for (auto* a : lowered) a->precise_ip = 3;
  return sampler;
}

// perf's evsel__fallback() for cycles without a PMU: hrtimer-based cpu-clock, named
// from its attr ("cpu-clock:ppp" for the default event).
bool cycles_fallback(RecordPlan& plan, int err) {
  if (err != ENOENT && err != ENXIO && err != ENODEV && err != EOPNOTSUPP) return false;
  bool changed = false;
  for (auto& e : plan.events) {
    if (!is_cycles(e)) continue;
    e.attr.type = PERF_TYPE_SOFTWARE;
    e.attr.config = PERF_COUNT_SW_CPU_CLOCK;
    e.kind = EventKind::kSoftware;
    e.name = event::name_with_modifiers("cpu-clock", e.attr);
    changed = true;
  }
  return changed;
}

// --filter / --exclude-perf: PERF_EVENT_IOC_SET_FILTER on every fd of the event.
Result<void> set_filters(const RecordPlan& plan, const Sampler& sampler) {
  for (std::size_t i = 0; i < plan.events.size(); ++i) {
    const auto& e = plan.events[i];
    if (e.filter.empty()) continue;
    for (int fd : sampler.fds(i)) {
      if (!ioc_set_filter(fd, e.filter)) {
        return fail(Errc::kInvalidArgument, "failed to set filter \"{}\" on event {} with {} ({})",
                    e.filter, e.name, EINVAL, std::strerror(EINVAL));
      }
    }
  }
  return {};
}

// The errors perf explains in its own words.
Result<Sampler> explained(Result<Sampler> sampler, const RecordPlan& plan) {
  if (sampler) return sampler;
  const auto& first = plan.events.front();
  if (sampler.error().sys_errno() == EOPNOTSUPP &&
      (first.attr.sample_type & PERF_SAMPLE_BRANCH_STACK) != 0) {
    return fail(Errc::kNotSupported,
                "{}: PMU Hardware or event type doesn't support branch stack sampling.",
                first.name);
  }
  return sampler;
}

Result<Sampler> open_with_fallbacks(RecordPlan& plan, const RecordTarget& target,
                                    RecordObserver& obs) {
  raise_fd_limit();  // one fd per event, CPU and thread: use the hard limit, as perf
  auto sampler = open_precise(plan, target);
  if (!sampler && cycles_fallback(plan, sampler.error().sys_errno())) {
    obs.on_cycles_fallback();
    sampler = Sampler::open(sampler_options(plan, target));
  }
  const int err = sampler ? 0 : sampler.error().sys_errno();
  if (err != EACCES && err != EPERM) return sampler;
  // perf's evsel__fallback(): kernel samples are not allowed for this user, user-space
  // ones may be.
  const auto paranoid = read_int_file("/proc/sys/kernel/perf_event_paranoid");
  std::vector<std::size_t> changed;
  if (paranoid && *paranoid >= 2) {
    for (std::size_t i = 0; i < plan.events.size(); ++i) {
      const auto& a = plan.events[i].attr;
      if (a.exclude_kernel == 0 && a.exclude_user == 0 && !plan.events[i].explicit_privilege)
        changed.push_back(i);
    }
  }
  if (changed.empty()) return sampler;
  std::vector<PlannedEvent> before = plan.events;
  std::string names;
  for (std::size_t i : changed) {
    auto& e = plan.events[i];
    e.attr.exclude_kernel = 1;
    e.attr.exclude_hv = 1;
    e.name = event::user_only_name(e.name);
    const bool tracking = e.attr.type == PERF_TYPE_SOFTWARE && e.attr.config == PERF_COUNT_SW_DUMMY;
    if (!tracking) names += (names.empty() ? "" : ", ") + e.name;
  }
  auto retry = Sampler::open(sampler_options(plan, target));
  if (retry) {
    obs.on_user_space_only(*paranoid, names);
    return retry;
  }
  plan.events = std::move(before);  // the first error says what kernel sampling needs
  return sampler;
}

}  // namespace

Result<Sampler> open_plan(RecordPlan& plan, const RecordTarget& target, RecordObserver& obs) {
  PERFX_TRY(sampler, explained(open_with_fallbacks(plan, target, obs), plan));
  PERFX_CHECK(set_filters(plan, sampler));
  return sampler;
}

Result<void> synthesize_existing(const RecordPlan& plan, const RecordTarget& target,
                                 const record::SampleLayout& layout, bool first,
                                 RecordObserver& obs, std::vector<std::byte>& out) {
  const auto& s = plan.synthesis;
  if (s.kernel_map) {
    if (auto r = synthesize_kernel_mmap(layout, out); !r) obs.on_no_kernel_map(r.error());
  }
  SynthOptions so;
  so.mmap_data = s.mmap_data;
  so.namespaces = s.namespaces;
  if (s.cgroups) {
    // The perf_event controller's hierarchy: cgroup v2 (perf's fallback when no v1
    // hierarchy has perf_event, as on every systemd machine now).
    if (auto mount = cgroup2_mount()) PERFX_CHECK(synthesize_cgroups(layout, out, *mount));
  }
  if (s.all_processes) return synthesize_all_processes(layout, so, out).map([](auto) {});
  for (pid_t p : target.synth_pids) PERFX_CHECK(synthesize_process(p, layout, so, out));
  if (!s.workload_comm || !target.workload) return {};
  const pid_t pid = target.workload->pid();
  if (first) {
    PERFX_CHECK(synthesize_comm(pid, "perfx-exec", layout, out));
    if (s.namespaces) PERFX_CHECK(synthesize_namespaces(pid, pid, layout, out));
  } else {
    // The workload may have ended meanwhile: then there is nothing to describe.
    (void)synthesize_process(pid, layout, so, out);
  }
  return {};
}

RecordResult result_of(const SamplerStats& stats) {
  RecordResult r;
  r.samples = stats.samples;
  r.lost = stats.lost();
  r.throttle = stats.throttle;
  r.unthrottle = stats.unthrottle;
  r.corrupt_events = stats.corrupt_events;
  r.dropped_bytes = stats.dropped_bytes;
  return r;
}

}  // namespace perfx::sys
