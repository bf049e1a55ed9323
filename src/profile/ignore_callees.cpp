#include <regex>

#include "profile/hists.hpp"

namespace perfx::profile {

std::vector<StackCut> ignore_callees_cuts(const Hists& h) {
  const Profile& p = *h.profile;
  const HistOptions& o = h.options;
  std::vector<StackCut> cuts(p.stacks.size());
  if (o.ignore_callees.empty()) return cuts;
  const std::regex ignore(o.ignore_callees, std::regex::extended | std::regex::nosubs);
  std::optional<std::regex> parent;
  if (o.exclude_other || std::find(o.keys.begin(), o.keys.end(), SortKey::kParent) != o.keys.end())
    parent.emplace(o.parent_regex, std::regex::extended | std::regex::nosubs);
  // Per frame: 0 not looked at yet, 1 no match, 2 names a parent, 3 matches --ignore-callees.
  std::vector<std::uint8_t> verdict(p.frames.size(), 0);
  auto verdict_of = [&](std::uint32_t fi) {
    std::uint8_t& v = verdict[fi];
    if (v != 0) return v;
    const Frame& f = p.frames[fi];
    v = 1;
    // perf matches al.sym of the callchain entries it reads from the sample (not those
    // unwound from a stack copy, nor their inline scopes).
    if (f.inlined || f.sample_only || f.unwound || unresolved(f)) return v;
    if (parent && std::regex_search(f.function, *parent))
      v = 2;
    else if (std::regex_search(f.function, ignore))
      v = 3;
    return v;
  };
  const bool caller_first = o.caller_order.value_or(h.children);
  for (std::size_t s = 0; s < p.stacks.size(); ++s) {
    const auto& st = p.stacks[s];
    const auto [lo, hi] = shown_range(h, static_cast<std::uint32_t>(s));
    bool parent_found = false;
    std::size_t match = SIZE_MAX;
    for (std::size_t n = lo; n < hi; ++n) {
      const std::size_t i = caller_first ? n : hi - 1 - (n - lo);
      const std::uint8_t v = verdict_of(st[i]);
      // perf: `if (parent key && !parent && matches parent) parent = sym; else if ...`.
      if (v == 2 && !parent_found) {
        parent_found = true;
        continue;
      }
      if (v == 3 || (v == 2 && std::regex_search(p.frames[st[i]].function, ignore))) match = i;
    }
    if (match == SIZE_MAX) continue;
    const auto m = static_cast<std::uint32_t>(match);
    cuts[s] = caller_first ? StackCut{m, static_cast<std::uint32_t>(hi), m}
                           : StackCut{static_cast<std::uint32_t>(lo), m + 1, m};
  }
  return cuts;
}

}  // namespace perfx::profile
