// One group's read(2) into a CounterSnapshot (see counter_read.hpp).

#include "sys/counter_read.hpp"

#include <linux/perf_event.h>

#include "core/error_format.hpp"

namespace perfx::sys {

Result<void> apply_group_read(CounterSnapshot& snap, std::span<const GroupMemberRef> members,
                              std::size_t instance, const ReadResult& r) {
  if (members.empty()) return {};
  if (r.pinned_error) {
    for (const GroupMemberRef& m : members) {
      CounterSnapshot::Event& e = snap.events.at(m.event);
      e.pinned_error = true;
      if (e.note.empty()) e.note = kPinnedErrorReason;
      e.instances.at(instance) = RawCount{};
    }
    return {};
  }
  if ((r.read_format & PERF_FORMAT_GROUP) == 0) {
    snap.events.at(members.front().event).instances.at(instance) = r.raw(0);
    return {};
  }
  if (r.values.size() > members.size()) {
    return fail(Errc::kMalformedData, "group read: nr {} but the group has {} members",
                r.values.size(), members.size());
  }
  for (std::size_t i = 0; i < r.values.size(); ++i) {
    for (const GroupMemberRef& m : members) {
      if (m.id == r.values[i].id) snap.events.at(m.event).instances.at(instance) = r.raw(i);
    }
  }
  return {};
}

}  // namespace perfx::sys
