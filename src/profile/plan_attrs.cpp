#include "profile/plan_attrs.hpp"

namespace perfx::profile {

record::AttrTable plan_attr_table(const RecordPlan& plan,
                                  const std::vector<std::vector<std::uint64_t>>& ids) {
  record::AttrTable attrs;
  for (std::size_t i = 0; i < plan.events.size() && i < ids.size(); ++i)
    attrs.add(plan.events[i].attr, ids[i], plan.events[i].name);
  return attrs;
}

}  // namespace perfx::profile
