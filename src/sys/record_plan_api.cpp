// The public planning calls of perfx/record.hpp: event/record_plan.hpp with this
// system's event lookups and limits.
#include <unistd.h>

#include "event/event_spec.hpp"
#include "event/record_plan.hpp"
#include "perfx/record.hpp"
#include "sys/event_resolver.hpp"
#include "sys/system_info.hpp"

namespace perfx {

Result<RecordPlan> plan_record(const RecordOptions& options) {
  event::PlanEnvironment env;
  if (auto max = sys::read_int_file("/proc/sys/kernel/perf_event_max_sample_rate"))
    env.max_sample_rate = *max;
  env.page_size = static_cast<std::size_t>(::sysconf(_SC_PAGESIZE));
  return event::plan_record(options, sys::system_resolver(), env);
}

Result<void> add_planned_events(RecordPlan& plan, std::span<const EventGroup> groups) {
  std::vector<PlannedEvent> extra;
  for (const auto& g : groups) {
    const int leader = static_cast<int>(extra.size());
    for (std::size_t i = 0; i < g.events.size(); ++i) {
      const auto& ev = g.events[i];
      PlannedEvent p;
      p.name = ev.name;
      p.canonical = ev.canonical;
      p.kind = ev.kind;
      p.attr = ev.attr;
      p.explicit_privilege = ev.explicit_privilege;
      p.default_period = ev.default_period;
      p.period_from_term = ev.period_from_term;
      p.probe_target = ev.probe_target;
      p.group_leader = (g.is_group && i > 0) ? leader : -1;
      extra.push_back(std::move(p));
    }
  }
  return event::add_requested_events(plan, std::move(extra));
}

std::string attr_summary(const raw::EventAttr& attr) { return event::describe_attr(attr); }

}  // namespace perfx
