// How one read(2) of a CounterSet group lands in its snapshot (pure: no kernel call,
// unit-tested on decoded ReadResults).
#pragma once

#include <cstddef>
#include <cstdint>
#include <span>

#include "perfx/counter.hpp"
#include "perfx/error.hpp"
#include "perfx/event_handle.hpp"

namespace perfx::sys {

/// Why a pinned event reads nothing (CounterSnapshot::Event::note).
inline constexpr const char* kPinnedErrorReason =
    "pinned event could not be scheduled on the PMU: the kernel put it in error state "
    "and read(2) returned end of file (no value)";

/// One opened member of a group instance: its snapshot event index and kernel id.
struct GroupMemberRef {
  std::size_t event = 0;
  std::uint64_t id = 0;
};

/// Stores the decoded read `r` of one group (or lone event; members[0] is the leader) on
/// instance column `instance` of `snap`. A pinned error (0-byte read) marks every member
/// `pinned_error` with kPinnedErrorReason and leaves its instance zero (not counted);
/// the other groups are unaffected. kMalformedData when a group read names more values
/// than the group has members.
Result<void> apply_group_read(CounterSnapshot& snap, std::span<const GroupMemberRef> members,
                              std::size_t instance, const ReadResult& r);

}  // namespace perfx::sys
