#pragma once
/// \file
/// The attr table (sample layouts by id) of an opened RecordPlan, for aggregating its
/// live records (LiveCounts).

#include <cstdint>
#include <vector>

#include "perfx/record.hpp"
#include "record/sample_layout.hpp"

namespace perfx::profile {

/// Event i of `plan` with the kernel ids `ids[i]` of its fds, under its name.
[[nodiscard]] record::AttrTable plan_attr_table(const RecordPlan& plan,
                                                const std::vector<std::vector<std::uint64_t>>& ids);

}  // namespace perfx::profile
