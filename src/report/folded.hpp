#pragma once
/// \file
/// Collapsed ("folded") stacks: the shared intermediate of the folded text export,
/// the HTML/SVG flame graphs and the differential flame graph. One entry per unique
/// (comm, call stack) with the number of samples that had it, like
/// `perf script | stackcollapse-perf.pl`.

#include <cstdint>
#include <ostream>
#include <string>
#include <vector>

#include "perfx/error.hpp"
#include "profile/profile.hpp"
#include "report/export.hpp"

namespace perfx::report {

/// What a folded frame name stands for; drives flame-graph colours.
enum class FoldedKind : std::uint8_t { kUser, kKernel, kJit, kUnknown, kComm };

struct FoldedStack {
  std::vector<std::uint32_t> names;  ///< indices into FoldedProfile::names, root first
  std::uint64_t samples = 0;         ///< number of samples with this stack
  std::uint64_t weight = 0;          ///< sum of their periods
};

struct FoldedProfile {
  std::vector<std::string> names;   ///< unique frame labels
  std::vector<FoldedKind> kinds;    ///< kind of each name
  std::vector<FoldedStack> stacks;  ///< sorted by their label sequence (as stackcollapse)
  std::uint64_t total_samples = 0;
  std::uint64_t total_weight = 0;
  std::uint32_t event = 0;  ///< the event index folded
};

/// Collapses the samples of one event (options.event, else the first with samples).
/// Frame labels are the function names ("[dso]" for an unresolved frame of a known
/// DSO); with options.annotate_kernel kernel frames get the "_[k]" suffix and JIT
/// frames "_[j]" (stackcollapse-perf.pl --all); with options.include_comm the comm is the root
/// frame; without options.inline_frames inline frames are dropped. ';' and newlines in names become
/// ':' and ' ' so the text format stays parseable.
[[nodiscard]] Result<FoldedProfile> fold(const profile::Profile& profile,
                                         const ExportOptions& options);

/// Writes "frame;frame;...;leaf count\n" per stack (count = samples).
[[nodiscard]] Result<void> write_folded(const profile::Profile& profile, std::ostream& out,
                                        const ExportOptions& options);

/// A call tree built from folded stacks (root-first or inverted), node 0 is the root.
struct FlameNode {
  std::uint32_t name = 0;  ///< index into FoldedProfile::names (unused for node 0)
  std::uint32_t parent = 0;
  std::uint64_t value = 0;              ///< samples in this subtree
  std::uint64_t self = 0;               ///< samples whose stack ends here
  std::uint64_t other = 0;              ///< diff only: the baseline's value for the same path
  std::vector<std::uint32_t> children;  ///< sorted by name (as flamegraph.pl)
};

/// Builds the tree; `inverted` reverses each stack (leaf becomes the root child).
[[nodiscard]] std::vector<FlameNode> build_flame_tree(const FoldedProfile& folded, bool inverted);

}  // namespace perfx::report
