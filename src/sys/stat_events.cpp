// plan_stat_events() (perfx/stat.hpp): a stat -e list split into perf's tool events,
// counted in user space, and the kernel's events, parsed by parse_events().
#include <string>
#include <string_view>

#include "core/error_format.hpp"
#include "perfx/events.hpp"
#include "perfx/stat.hpp"

namespace perfx {
namespace {

// The tool event named by a term, if it is one (perf's evsel__tool_names).
bool tool_event(std::string_view term, StatToolEvent& out) {
  if (term == "duration_time") {
    out = StatToolEvent::kDurationTime;
  } else if (term == "user_time") {
    out = StatToolEvent::kUserTime;
  } else if (term == "system_time") {
    out = StatToolEvent::kSystemTime;
  } else {
    return false;
  }
  return true;
}

std::size_t event_count(const std::vector<EventGroup>& groups) {
  std::size_t n = 0;
  for (const auto& g : groups) n += g.events.size();
  return n;
}

}  // namespace

Result<StatEventPlan> plan_stat_events(std::string_view spec) {
  StatEventPlan plan;
  std::string kernel;  // the list without its tool terms
  bool any_kernel_term = false;
  // Top-level terms: commas inside {...} and pmu/.../ terms do not split.
  int braces = 0;
  bool in_pmu_terms = false;
  std::size_t start = 0;
  for (std::size_t i = 0; i <= spec.size(); ++i) {
    const char c = i < spec.size() ? spec[i] : ',';
    if (c == '{') ++braces;
    if (c == '}') --braces;
    if (c == '/') in_pmu_terms = !in_pmu_terms;
    if (c != ',' || braces > 0 || in_pmu_terms) continue;
    const std::string_view term = spec.substr(start, i - start);
    start = i + 1;
    StatToolSlot slot;
    if (tool_event(term, slot.event)) {
      slot.name = std::string(term);
      if (any_kernel_term) {
        PERFX_TRY(before, parse_events(kernel));
        slot.events_before = event_count(before);
      }
      plan.tools.push_back(std::move(slot));
      continue;
    }
    if (any_kernel_term) kernel += ',';
    kernel += term;  // an empty term too: the parser names it
    any_kernel_term = true;
  }
  // Only tool events: nothing for the kernel (an empty list still errors as perf's).
  if (!any_kernel_term && !plan.tools.empty()) return plan;
  PERFX_TRY(groups, parse_events(kernel));
  plan.groups = std::move(groups);
  return plan;
}

}  // namespace perfx
