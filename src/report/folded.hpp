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

/// What a folded frame name stands for; drives flame-graph colours. kOffCpu: the
/// "[off-cpu]" leaf of a blocked interval, kRunQueue the "[run-queue]" leaf of a wait for
/// a CPU after preemption (profile/off_cpu.hpp).
enum class FoldedKind : std::uint8_t { kUser, kKernel, kJit, kUnknown, kComm, kOffCpu, kRunQueue };

struct FoldedStack {
  std::vector<std::uint32_t> names;  ///< indices into FoldedProfile::names, root first
  std::uint64_t samples = 0;         ///< number of samples with this stack
  std::uint64_t weight = 0;          ///< sum of their periods
  bool off_cpu = false;              ///< ends in the "[off-cpu]" marker (blocked)
  bool run_queue = false;            ///< ends in the "[run-queue]" marker (preempted, waiting)
  /// What a flame graph sizes it by: `weight` for a weighted fold, else `samples`.
  [[nodiscard]] std::uint64_t value(bool weighted) const noexcept {
    return weighted ? weight : samples;
  }
};

struct FoldedProfile {
  std::vector<std::string> names;   ///< unique frame labels
  std::vector<FoldedKind> kinds;    ///< kind of each name
  std::vector<FoldedStack> stacks;  ///< sorted by their label sequence (as stackcollapse)
  std::uint64_t total_samples = 0;
  std::uint64_t total_weight = 0;
  std::uint32_t event = 0;  ///< the event index folded
  /// The event holds off-CPU intervals (profile::Event::off_cpu): stacks count by weight
  /// (ns), so on- and off-CPU time share one scale; the folded text prints weights.
  bool weighted = false;
  /// "ns" for a weighted fold, else "samples".
  [[nodiscard]] const char* unit() const noexcept { return weighted ? "ns" : "samples"; }
};

/// Collapses the samples of one event (options.event, else the first with samples).
/// Frame labels are the function names ("[dso]" for an unresolved frame of a known
/// DSO); with options.annotate_kernel kernel frames get the "_[k]" suffix and JIT
/// frames "_[j]" (stackcollapse-perf.pl --all); with options.include_comm the comm is the root
/// frame; without options.inline_frames inline frames are dropped. ';' and newlines in names become
/// ':' and ' ' so the text format stays parseable.
[[nodiscard]] Result<FoldedProfile> fold(const profile::Profile& profile,
                                         const ExportOptions& options);

/// Writes "frame;frame;...;leaf count\n" per stack (count = samples; for a weighted fold
/// the weight in ns).
[[nodiscard]] Result<void> write_folded(const profile::Profile& profile, std::ostream& out,
                                        const ExportOptions& options);

/// A call tree built from folded stacks (root-first or inverted), node 0 is the root.
struct FlameNode {
  std::uint32_t name = 0;  ///< index into FoldedProfile::names (unused for node 0)
  std::uint32_t parent = 0;
  std::uint64_t value = 0;              ///< samples in this subtree
  std::uint64_t self = 0;               ///< samples whose stack ends here
  std::uint64_t other = 0;              ///< diff only: the baseline's value for the same path
  std::uint64_t off_cpu = 0;            ///< the part of `value` from blocked intervals
  std::uint64_t run_queue = 0;          ///< the part of `value` from run-queue waits
  std::vector<std::uint32_t> children;  ///< sorted by name (as flamegraph.pl)
};

/// Builds the tree; `inverted` reverses each stack (leaf becomes the root child).
[[nodiscard]] std::vector<FlameNode> build_flame_tree(const FoldedProfile& folded, bool inverted);

}  // namespace perfx::report
