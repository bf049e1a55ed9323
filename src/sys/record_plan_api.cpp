// The public planning calls of perfx/record.hpp: event/record_plan.hpp with this
// system's event lookups and limits.
#include <unistd.h>

#include "core/error_format.hpp"
#include "event/event_spec.hpp"
#include "event/parse.hpp"
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
  env.self_pid = static_cast<int>(::getpid());
  return event::plan_record(options, sys::system_resolver(), env);
}

Result<void> add_planned_events(RecordPlan& plan, std::string_view spec) {
  PERFX_TRY(groups, event::parse_event_list(spec, sys::system_resolver()));
  return event::add_requested_events(plan, event::requested_events(groups, false));
}

Result<void> add_planned_events(RecordPlan& plan, std::vector<PlannedEvent> events) {
  return event::add_requested_events(plan, std::move(events));
}

std::string attr_summary(const raw::EventAttr& attr) { return event::describe_attr(attr); }

}  // namespace perfx
