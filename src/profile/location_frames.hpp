#pragma once
/// \file
/// The last step of building a Profile from interned locations (replay.hpp's
/// LocationTable), shared by load_profile() and the live model of `perfx top -g`: one
/// Mapping per DSO, one Frame per location (and per inline level, outer first), and the
/// stacks of location ids turned into frame stacks, root first.

#include <cstdint>
#include <span>
#include <vector>

#include "profile/profile.hpp"
#include "profile/replay.hpp"

namespace perfx::profile {

/// Hashes a stack of location (or frame) ids.
struct IdStackHash {
  std::size_t operator()(const std::vector<std::uint32_t>& v) const noexcept {
    std::size_t h = v.size();
    for (auto x : v) h = h * 0x100000001b3ULL ^ x;
    return h;
  }
};

/// Fills `prof` (no mappings, frames or stacks yet) with the mappings and frames of every
/// location of `table` (resolved already: LocationTable::resolve_all()) and, for each
/// stack of `loc_stacks` (location ids, leaf first), its frames root first as
/// prof.stacks[i]. DSO warnings go to prof.warnings.
/// `dwarf_names` (perf 6.1 report's inline_list): a location's outermost scope whose DWARF
/// name is not its symbol's is an inline frame of that name, after the symbol's frame,
/// which is marked ProfileFrame::sample_only; also for a location without inline scopes.
void add_location_frames(const LocationTable& table,
                         std::span<const std::vector<std::uint32_t>* const> loc_stacks,
                         Profile& prof, bool dwarf_names = false);

}  // namespace perfx::profile
