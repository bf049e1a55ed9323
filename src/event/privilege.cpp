// restrict_privilege() (perfx/events.hpp): perf's --all-user / --all-kernel, for record,
// top and stat alike.
#include "perfx/events.hpp"

namespace perfx {

void restrict_privilege(raw::EventAttr& attr, PrivilegeScope scope) noexcept {
  switch (scope) {
    case PrivilegeScope::kAsWritten:
      return;
    case PrivilegeScope::kUserOnly:
      attr.exclude_kernel = 1;
      attr.exclude_user = 0;
      return;
    case PrivilegeScope::kKernelOnly:
      attr.exclude_kernel = 0;
      attr.exclude_user = 1;
      return;
  }
}

void restrict_privilege(std::span<EventGroup> groups, PrivilegeScope scope) noexcept {
  for (EventGroup& g : groups)
    for (EventSpec& e : g.events) restrict_privilege(e.attr, scope);
}

}  // namespace perfx
