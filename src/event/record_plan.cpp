#include "event/record_plan.hpp"

#include <linux/perf_event.h>

#include <algorithm>
#include <utility>

#include "core/error_format.hpp"
#include "core/x86_regs.hpp"
#include "event/parse.hpp"
#include "perfx/events.hpp"

namespace perfx::event {
namespace {

// The public kinds are the internal ones plus kKprobe, in the same order.
static_assert(static_cast<int>(perfx::EventKind::kHardware) ==
              static_cast<int>(EventKind::kHardware));
static_assert(static_cast<int>(perfx::EventKind::kBreakpoint) ==
              static_cast<int>(EventKind::kBreakpoint));
static_assert(static_cast<int>(perfx::EventKind::kUprobe) == static_cast<int>(EventKind::kUprobe));
static_assert(static_cast<int>(perfx::EventKind::kTracepoint) ==
              static_cast<int>(EventKind::kTracepoint));

// The frequency freq events get: -F or 4000, capped at perf_event_max_sample_rate
// (plan.freq_capped says so).
void plan_frequency(RecordPlan& plan, const PlanEnvironment& env) {
  auto& o = plan.options;
  if (o.max_freq && env.max_sample_rate && *env.max_sample_rate > 0) {
    o.freq = static_cast<std::uint64_t>(*env.max_sample_rate);  // then as if -F N
    plan.max_freq_used = o.freq;
  }
  plan.freq = o.freq.value_or(4000);
  if (o.period) return;
  const auto max = env.max_sample_rate;
  if (max && *max > 0 && plan.freq > static_cast<std::uint64_t>(*max)) {
    plan.freq_capped = std::pair{plan.freq, static_cast<std::uint64_t>(*max)};
    plan.freq = static_cast<std::uint64_t>(*max);
  }
}

// -c/-F against the event's own period (tracepoints: every hit) and period= terms.
void plan_period(raw::EventAttr& a, const PlannedEvent& e, const RecordPlan& plan) {
  const auto& o = plan.options;
  if (e.period_from_term) return;  // period=/freq= terms win over -c/-F
  if (o.period) {
    a.freq = 0;
    a.sample_period = *o.period;
  } else if (e.default_period != 0 && !o.freq) {
    a.freq = 0;
    a.sample_period = e.default_period;
  } else {
    a.freq = 1;
    a.sample_freq = plan.freq;
  }
}

// A named event keeps the parser's exclude_guest (perf's rule: set unless modifiers
// other than u/p/H were written); the default event is perf's cycles:P (precise_max:
// "cpu-clock:ppp" where cycles falls back), which does not exclude guests.
void event_modifiers(raw::EventAttr& a, const PlannedEvent& e) {
  if (e.is_default) a.exclude_guest = 0;
  if ((e.is_default && !e.tracking) || e.precise_max) a.precise_ip = 3;
}

// perf top: ip, tid, time, period (and the CPU system-wide); the side-band comes with the
// first event; counters inherit only into the threads of -p/-t (not with -i/--no-inherit).
Result<void> top_events(RecordPlan& plan) {
  PERFX_TRY(cg, parse_call_graph(plan.options.call_graph));
  auto& evs = plan.events;
  evs = plan.requested;
  for (std::size_t i = 0; i < evs.size(); ++i) {
    raw::EventAttr& a = evs[i].attr;
    a.size = raw::kAttrSizeVer8;
    a.sample_type =
        PERF_SAMPLE_IP | PERF_SAMPLE_TID | PERF_SAMPLE_TIME | PERF_SAMPLE_PERIOD | cg.sample_type();
    cg.configure(a);
    if (!plan.task_target) a.sample_type |= PERF_SAMPLE_CPU;
    if (evs.size() > 1) a.sample_type |= PERF_SAMPLE_IDENTIFIER;
    if (evs[i].kind == perfx::EventKind::kTracepoint) a.sample_type |= PERF_SAMPLE_RAW;
    a.read_format = PERF_FORMAT_ID;
    a.disabled = 1;
    a.inherit = plan.task_target && plan.options.inherit ? 1 : 0;
    a.sample_id_all = 1;
    event_modifiers(a, evs[i]);  // perf top's cycles:P too ("cpu-clock:ppp" here)
    plan_period(a, evs[i], plan);
    if (i == 0) {
      a.mmap = 1;
      a.comm = 1;
      a.task = 1;
      a.mmap2 = 1;
      a.comm_exec = 1;
    }
  }
  return {};
}

std::uint64_t regs_mask(const std::optional<std::string>& regs) {
  if (!regs) return 0;
  auto mask = core::parse_x86_64_regs(*regs);  // validated by plan_record()
  return mask ? *mask : 0;
}

// perf record's attrs for the same options.
Result<void> record_events(RecordPlan& plan) {
  const auto& o = plan.options;
  PERFX_TRY(cg, parse_call_graph(o.call_graph));
  const std::uint64_t intr_mask = regs_mask(o.intr_regs);
  const std::uint64_t user_mask = regs_mask(o.user_regs);
  const bool delayed_workload = (o.delay_ms > 0 || o.start_disabled) && plan.follows_workload_only;
  const bool tracking = plan.tracking_event;
  const std::size_t nr_attrs = plan.requested.size() + (tracking ? 1 : 0);
  std::uint64_t base_type = PERF_SAMPLE_IP | PERF_SAMPLE_TID;
  // perf: no time stamps for --per-thread (not inherited, no CPU), unless -T asked.
  if (!o.per_thread || plan.system_wide || o.sample_time) base_type |= PERF_SAMPLE_TIME;
  base_type |= cg.sample_type();
  if (plan.system_wide || o.sample_cpu) base_type |= PERF_SAMPLE_CPU;
  if (o.data) base_type |= PERF_SAMPLE_ADDR | PERF_SAMPLE_DATA_SRC;
  if (o.sample_period) base_type |= PERF_SAMPLE_PERIOD;
  if (o.weight) base_type |= PERF_SAMPLE_WEIGHT;
  if (o.raw_samples) base_type |= PERF_SAMPLE_RAW | PERF_SAMPLE_TIME | PERF_SAMPLE_CPU;
  if (o.phys_data) base_type |= PERF_SAMPLE_PHYS_ADDR;
  if (intr_mask != 0) base_type |= PERF_SAMPLE_REGS_INTR;
  if (user_mask != 0) base_type |= PERF_SAMPLE_REGS_USER;
  if (o.data_page_size) base_type |= PERF_SAMPLE_DATA_PAGE_SIZE;
  if (o.code_page_size) base_type |= PERF_SAMPLE_CODE_PAGE_SIZE;
  if (o.all_cgroups) base_type |= PERF_SAMPLE_CGROUP;
  std::uint64_t branch_type = 0;
  if (!o.branch_filter.empty()) {
    PERFX_TRY(b, parse_branch_filter(o.branch_filter));
    branch_type = b;
  }

  auto make_attr = [&](PlannedEvent& e, bool side_band) {
    raw::EventAttr& a = e.attr;
    a.size = raw::kAttrSizeVer8;
    a.sample_type = base_type;
    a.read_format = PERF_FORMAT_ID | PERF_FORMAT_LOST;
    a.disabled = 1;
    a.inherit = o.inherit && !o.per_thread ? 1 : 0;
    a.sample_id_all = 1;
    event_modifiers(a, e);
    plan_period(a, e, plan);
    const bool tp = e.kind == perfx::EventKind::kTracepoint;
    if (tp) a.sample_type |= PERF_SAMPLE_TIME;  // perf's tracepoints always have it
    if (o.inherit_stat) {                       // -s
      a.read_format |= PERF_FORMAT_TOTAL_TIME_ENABLED | PERF_FORMAT_TOTAL_TIME_RUNNING;
      a.inherit_stat = 1;
    }
    if (o.overwrite) a.write_backward = 1;
    if (branch_type != 0 && !e.tracking) {
      a.sample_type |= PERF_SAMPLE_BRANCH_STACK;
      a.branch_sample_type = branch_type;
    }
    if (a.freq || (e.kind == perfx::EventKind::kUprobe && !o.period)) {
      a.sample_type |= PERF_SAMPLE_PERIOD;
    }
    // perf's evsel__newtp() starts a tracepoint with RAW|TIME|CPU|PERIOD, -c or not.
    if (tp) a.sample_type |= PERF_SAMPLE_RAW | PERF_SAMPLE_CPU | PERF_SAMPLE_PERIOD;
    cg.configure(a);
    if (o.user_callchains && cg.mode != CallGraph::kNone) a.exclude_callchain_kernel = 1;
    if (o.data) a.mmap_data = 1;
    a.sample_regs_intr = intr_mask;
    a.sample_regs_user |= user_mask;
    if (plan.follows_workload_only && o.delay_ms == 0 && !o.start_disabled) a.enable_on_exec = 1;
    restrict_privilege(a, o.all_user     ? PrivilegeScope::kUserOnly
                          : o.all_kernel ? PrivilegeScope::kKernelOnly
                                         : PrivilegeScope::kAsWritten);
    if (plan.clockid) {
      a.use_clockid = 1;
      a.clockid = *plan.clockid;
    }
    if (side_band) {
      a.mmap = 1;
      a.comm = 1;
      a.task = 1;
      a.mmap2 = 1;
      a.comm_exec = 1;
      a.ksymbol = 1;
      a.bpf_event = 1;
      if (o.switch_events) a.context_switch = 1;
      if (o.namespaces) a.namespaces = 1;
      if (o.all_cgroups) a.cgroup = 1;
    }
  };
  plan.events = plan.requested;
  for (std::size_t i = 0; i < plan.events.size(); ++i) {
    make_attr(plan.events[i], !tracking && i == 0);
    if (o.no_samples) plan.events[i].attr.sample_period = 0;  // -n: perf's sample_freq = 0
  }
  if (tracking) {
    // perf adds a dummy tracking event for -a/-C, and for -D: the workload's COMM and
    // MMAP records must be captured from its exec on, while the sampled events wait.
    PlannedEvent d;
    d.name = "dummy:HG";
    d.canonical = "dummy";
    d.is_default = true;
    d.tracking = true;
    d.attr.type = PERF_TYPE_SOFTWARE;
    d.attr.config = PERF_COUNT_SW_DUMMY;
    make_attr(d, true);
    d.attr.sample_type &= ~static_cast<std::uint64_t>(PERF_SAMPLE_PERIOD | PERF_SAMPLE_RAW);
    d.attr.freq = 0;
    d.attr.sample_period = 1;
    // System-wide: at once; a delayed workload: at its exec, as perf (enable_on_exec).
    d.attr.disabled = delayed_workload ? 1 : 0;
    d.attr.enable_on_exec = delayed_workload ? 1 : 0;
    d.attr.exclude_guest = 0;
    d.attr.mmap_data = o.data ? 1 : 0;
    plan.events.push_back(std::move(d));
  }
  // perf's evlist__config(): several events get ids, IDENTIFIER when their sample_types
  // differ (or --sample-identifier), else ID.
  bool differ = o.sample_identifier;
  for (const auto& e : plan.events)
    differ = differ || e.attr.sample_type != plan.events[0].attr.sample_type;
  const std::uint64_t id_bit = differ ? PERF_SAMPLE_IDENTIFIER : PERF_SAMPLE_ID;
  if (nr_attrs > 1 || o.sample_identifier) {
    for (auto& e : plan.events) e.attr.sample_type |= id_bit;
  }
  return {};
}

// The events from the requested ones, the groups (HEADER_GROUP_DESC, as perf writes it:
// "{anon_group}" for a group without a name) and the tracepoints whose formats are kept.
Result<void> make_events(RecordPlan& plan) {
  if (plan.options.style == RecordStyle::kTop) {
    PERFX_CHECK(top_events(plan));
  } else {
    PERFX_CHECK(record_events(plan));
  }
  const auto& evs = plan.events;
  plan.groups.clear();
  std::vector<std::uint32_t> members(evs.size(), 0);  // by leader
  for (std::size_t i = 0; i < evs.size(); ++i)
    ++members[evs[i].group_leader >= 0 ? static_cast<std::size_t>(evs[i].group_leader) : i];
  for (std::size_t i = 0; i < evs.size(); ++i) {
    if (members[i] > 1) {
      PlannedGroup g;
      g.leader = static_cast<std::uint32_t>(i);
      g.members = members[i];
      plan.groups.push_back(std::move(g));
    }
  }
  plan.tracepoints.clear();
  for (const auto& e : evs) {
    if (e.kind != perfx::EventKind::kTracepoint) continue;
    const auto colon = e.canonical.find(':');
    if (colon == std::string::npos) continue;
    plan.tracepoints.emplace_back(e.canonical.substr(0, colon), e.canonical.substr(colon + 1));
  }
  return {};
}

// The target's shape, perf record's checks of the options, and the file choices.
Result<void> plan_options(RecordPlan& plan, const PlanEnvironment& env) {
  auto& o = plan.options;
  const bool top = o.style == RecordStyle::kTop;
  plan.task_target = !o.pids.empty() || !o.tids.empty();
  if (top) {
    plan.system_wide = !plan.task_target;
  } else {
    // perf's habit: no command and no target records the whole system until Ctrl-C.
    if (o.command.empty() && !o.system_wide && o.cpus.empty() && !plan.task_target) {
      o.system_wide = true;
      plan.implicit_system_wide = true;
    }
    plan.system_wide = o.system_wide || !o.cpus.empty();
    plan.follows_workload_only = !o.command.empty() && !plan.system_wide && !plan.task_target;
    if (!o.cgroup.empty() && !plan.system_wide)
      return fail(Errc::kInvalidArgument, "-G needs system-wide mode (-a or -C)");
  }
  if (o.freq && o.period) return fail(Errc::kInvalidArgument, "-F and -c are exclusive");
  if (top && ((o.freq && *o.freq == 0) || (o.period && *o.period == 0)))
    return fail(Errc::kInvalidArgument, "-F/-c must be > 0");
  if (o.freq && *o.freq == 0) return fail(Errc::kInvalidArgument, "-F must be > 0");
  if (o.period && *o.period == 0) return fail(Errc::kInvalidArgument, "-c must be > 0");
  PERFX_TRY(cg, parse_call_graph(o.call_graph));
  for (const auto* regs : {&o.intr_regs, &o.user_regs}) {
    if (*regs) PERFX_CHECK(core::parse_x86_64_regs(**regs));
  }
  PERFX_TRY(pages, parse_mmap_pages(o.mmap_pages, env.page_size, plan.data_pages_rounded));
  plan.data_pages = pages;
  if (o.compression_level > 22)
    return fail(Errc::kInvalidArgument, "--compression-level must be 1..22");
  plan.compression_level = std::max(o.compression_level, 0);
  plan_frequency(plan, env);
  if (!o.clockid.empty()) {
    PERFX_TRY(id, parse_clockid(o.clockid));
    plan.clockid = id;
  }
  if (!o.max_size.empty()) {
    PERFX_TRY(size, parse_max_size(o.max_size));
    plan.max_size = size;
  }
  if (!o.switch_output.empty()) {
    PERFX_TRY(sw, parse_switch_output(o.switch_output));
    plan.switch_output = sw;
    o.timestamp_filename = true;  // perf: every file gets its timestamp
  }
  if (o.all_kernel && o.all_user)
    return fail(Errc::kInvalidArgument, "--all-kernel and --all-user cannot be used together");

  // Side-band and what the session synthesizes (perf top: no data mmaps, no cgroups).
  auto& s = plan.synthesis;
  s.all_processes = plan.system_wide;
  s.mmap_data = !top && (o.data || cg.mode == CallGraph::kDwarf);
  s.namespaces = !top && o.namespaces;
  s.cgroups = !top && o.all_cgroups;
  s.workload_comm = plan.follows_workload_only;
  const bool delayed = o.delay_ms > 0 || o.start_disabled;
  plan.tracking_event = !top && (plan.system_wide || (delayed && plan.follows_workload_only));
  plan.enable_on_start = top || (!delayed && !plan.follows_workload_only);
  PERFX_TRY(flush, parse_mmap_flush(o.mmap_flush, plan.data_pages, env.page_size));
  plan.mmap_flush = flush;
  // perf: --aio=0 is its default of 1 block, more than 4 are 4.
  if (o.aio > 0) plan.aio_blocks = std::min(o.aio, 4U);
  if (!o.affinity.empty() && o.affinity != "node" && o.affinity != "cpu" && o.affinity != "sys")
    return fail(Errc::kInvalidArgument, "--affinity '{}': use node or cpu", o.affinity);
  if (!o.control.empty()) {
    PERFX_TRY(control, parse_control(o.control));
    plan.control = std::move(control);
  }
  if (o.max_freq && !plan.max_freq_used)
    return fail(Errc::kNotSupported, "-F max: cannot read kernel.perf_event_max_sample_rate");
  return {};
}

// Appends `extra` (group leaders counted within it) to plan.requested.
Result<void> add_requested(RecordPlan& plan, std::vector<PlannedEvent> extra) {
  const int base = static_cast<int>(plan.requested.size());
  for (auto& e : extra) {
    if (e.group_leader >= 0) e.group_leader += base;
    plan.requested.push_back(std::move(e));
  }
  return {};
}

// --filter / --exclude-perf on the tracepoints of the -e each follows (requested events
// [first_of[i], first_of[i + 1]) came from -e i), joined as perf's evsel__append_filter().
Result<void> apply_filters(RecordPlan& plan, const std::vector<std::size_t>& first_of, int pid) {
  for (const auto& f : plan.options.filters) {
    const char* what = f.exclude_perf ? "--exclude-perf option should follow a -e tracepoint option"
                                      : "--filter option should follow a -e tracepoint or HW "
                                        "tracer option";
    if (f.event + 1 >= first_of.size()) return fail(Errc::kInvalidArgument, "{}", what);
    const std::string text = f.exclude_perf ? "common_pid != " + std::to_string(pid) : f.filter;
    for (std::size_t i = first_of[f.event]; i < first_of[f.event + 1]; ++i) {
      auto& e = plan.requested[i];
      if (e.kind != perfx::EventKind::kTracepoint && f.exclude_perf)
        return fail(Errc::kInvalidArgument, "{}", what);
      if (e.kind != perfx::EventKind::kTracepoint) {  // perf takes it as an address filter
        return fail(Errc::kNotSupported,
                    "--filter on '{}': this CPU does not support address filtering (filters "
                    "of non-tracepoint events need a hardware tracer such as Intel PT)",
                    e.name);
      }
      e.filter = e.filter.empty() ? text : "(" + e.filter + ") && (" + text + ")";
    }
  }
  return {};
}

}  // namespace

std::vector<PlannedEvent> requested_events(const std::vector<EventGroup>& groups, bool is_default) {
  std::vector<PlannedEvent> out;
  for (const auto& g : groups) {
    const int leader = static_cast<int>(out.size());
    for (std::size_t i = 0; i < g.events.size(); ++i) {
      const auto& ev = g.events[i];
      PlannedEvent p;
      p.name = ev.name;
      p.canonical = ev.canonical;
      p.kind = static_cast<perfx::EventKind>(ev.kind);
      p.attr = ev.attr;
      p.explicit_privilege = ev.explicit_privilege;
      p.precise_max = ev.precise_max;
      p.default_period = ev.default_period;
      p.period_from_term = ev.period_from_term;
      if (ev.kind == EventKind::kUprobe) p.probe_target = ev.uprobe_path;
      p.is_default = is_default;
      p.group_leader = (g.is_group && i > 0) ? leader : -1;
      out.push_back(std::move(p));
    }
  }
  return out;
}

Result<RecordPlan> plan_record(const RecordOptions& options, const Resolver& resolver,
                               const PlanEnvironment& env) {
  RecordPlan plan;
  plan.options = options;
  PERFX_CHECK(plan_options(plan, env));
  if (plan.switch_output.on && plan.options.output == "-")
    return fail(Errc::kInvalidArgument, "--switch-output needs an output file, not -o -");

  plan.default_event = options.events.empty();
  if (plan.default_event) {
    PERFX_TRY(groups, parse_event_list("cycles", resolver));
    plan.requested = requested_events(groups, true);
  }
  std::vector<std::size_t> first_of;  // -e i made requested[first_of[i], first_of[i + 1])
  for (const auto& e : options.events) {
    first_of.push_back(plan.requested.size());
    PERFX_TRY(groups, parse_event_list(e, resolver));
    PERFX_CHECK(add_requested(plan, requested_events(groups, false)));
  }
  first_of.push_back(plan.requested.size());
  PERFX_CHECK(apply_filters(plan, first_of, env.self_pid));
  PERFX_CHECK(make_events(plan));
  return plan;
}

Result<void> add_requested_events(RecordPlan& plan, std::vector<PlannedEvent> extra) {
  PERFX_CHECK(add_requested(plan, std::move(extra)));
  return make_events(plan);
}

}  // namespace perfx::event
