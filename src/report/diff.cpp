#include "report/diff.hpp"

#include <algorithm>
#include <cmath>
#include <map>
#include <unordered_map>

#include <fmt/format.h>

#include "report/export_util.hpp"
#include "report/flamegraph_html.hpp"
#include "report/folded.hpp"

namespace perfx::report {
namespace {

struct SelfEntry {
  profile::FrameKind kind = profile::FrameKind::kUnknown;
  std::uint64_t period = 0;
  std::string dso_path;  // for --dsos (short or long name)
  bool resolved = false;
  bool thread_filtered = false;  // the verdict of the sample that created it
};
using SelfMap = std::map<std::pair<std::string, std::string>, SelfEntry>;  // (dso, symbol)

// Self period per (dso, symbol) of one event: the sampled frame's symbol. Inline
// frames are attributed to the function they were inlined into, as perf does without
// --inline.
Result<SelfMap> self_periods(const profile::Profile& p, std::uint32_t event, std::uint64_t& total,
                             const DiffOptions& o) {
  auto listed = [](const auto& list, const auto& v) {
    return list.empty() || std::find(list.begin(), list.end(), v) != list.end();
  };
  SelfMap map;
  // The event's total counts samples a thread filter kept out of the profile (perf's
  // percentages are of all); a profile made without totals falls back to its samples'.
  std::uint64_t sum = 0;
  for (const auto& s : p.samples) {
    if (s.event != event) continue;
    if (s.stack >= p.stacks.size()) {
      return fail(Errc::kInvalidArgument, "sample refers to stack {} of {}", s.stack,
                  p.stacks.size());
    }
    const auto& stack = p.stacks[s.stack];
    const profile::Frame* leaf = nullptr;
    for (auto it = stack.rbegin(); it != stack.rend(); ++it) {
      if (*it >= p.frames.size()) {
        return fail(Errc::kInvalidArgument, "stack {} refers to frame {} of {}", s.stack, *it,
                    p.frames.size());
      }
      leaf = &p.frames[*it];
      if (!leaf->inlined) break;
    }
    sum += s.period;
    const std::string dso = leaf && !leaf->dso.empty() ? leaf->dso : "[unknown]";
    std::string sym = leaf ? leaf->function : "[unknown]";
    // perf shows an unresolved symbol as its map-relative address.
    if (leaf && (sym.empty() || sym == "[unknown]"))
      sym = fmt::format("{:#018x}", leaf->map_address);
    auto [it, created] = map.try_emplace({dso, sym});
    auto& e = it->second;
    if (created && s.thread < p.threads.size()) {
      const auto& t = p.threads[s.thread];
      e.thread_filtered =
          !(listed(o.comms, t.comm) && listed(o.pids, t.pid) && listed(o.tids, t.tid));
    }
    e.kind = leaf ? leaf->kind : profile::FrameKind::kUnknown;
    e.period += s.period;
    if (leaf) e.dso_path = leaf->dso_path;
    e.resolved = leaf && !leaf->function.empty() && leaf->function != "[unknown]";
  }
  total = std::max(sum, event < p.events.size() ? p.events[event].total_period : 0);
  return map;
}

std::optional<std::uint32_t> event_index(const profile::Profile& p, const std::string& name) {
  for (std::size_t i = 0; i < p.events.size(); ++i) {
    if (p.events[i].name == name) return static_cast<std::uint32_t>(i);
  }
  return std::nullopt;
}

}  // namespace

Result<std::vector<DiffSection>> diff_profiles(const profile::Profile& old_profile,
                                               const profile::Profile& new_profile,
                                               const DiffOptions& options) {
  std::vector<DiffSection> sections;
  bool any_common = false;
  auto listed = [](const std::vector<std::string>& list, const std::string& v) {
    return std::find(list.begin(), list.end(), v) != list.end();
  };
  // perf's filtered entries: hidden, still in the totals.
  auto shown = [&](const std::pair<std::string, std::string>& key, const SelfEntry& e) {
    if (e.thread_filtered) return false;
    if (!options.dsos.empty() && !listed(options.dsos, key.first) &&
        !listed(options.dsos, e.dso_path))
      return false;
    return options.symbols.empty() || (e.resolved && listed(options.symbols, key.second));
  };
  for (std::size_t e = 0; e < old_profile.events.size(); ++e) {
    const auto other = event_index(new_profile, old_profile.events[e].name);
    any_common = any_common || other.has_value();
    DiffSection section;
    section.event = old_profile.events[e].name;
    PERFX_TRY(olds,
              self_periods(old_profile, static_cast<std::uint32_t>(e), section.old_total, options));
    SelfMap news;
    if (other) {
      PERFX_TRY(n, self_periods(new_profile, *other, section.new_total, options));
      news = std::move(n);
    }
    // perf pairs entries whatever their filters; a row shows when its baseline entry
    // passes them (a NEW-only row: when the NEW entry does).
    auto pct = [](std::uint64_t v, std::uint64_t total) {
      return total ? 100.0 * static_cast<double>(v) / static_cast<double>(total) : 0.0;
    };
    for (const auto& [key, entry] : olds) {
      if (!shown(key, entry)) continue;
      DiffRow row;
      row.dso = key.first;
      row.symbol = key.second;
      row.kind = entry.kind;
      row.old_period = entry.period;
      row.baseline = pct(entry.period, section.old_total);
      auto it = news.find(key);
      if (it != news.end()) {
        row.new_period = it->second.period;
        row.delta = pct(row.new_period, section.new_total) - *row.baseline;
      }
      section.rows.push_back(std::move(row));
    }
    for (const auto& [key, entry] : news) {
      if (olds.count(key) || !shown(key, entry)) continue;
      DiffRow row;
      row.dso = key.first;
      row.symbol = key.second;
      row.kind = entry.kind;
      row.new_period = entry.period;
      row.delta = pct(entry.period, section.new_total);
      section.rows.push_back(std::move(row));
    }
    // perf diff's default order (-o 0 with "Delta Abs"): by |delta| descending; rows
    // only in OLD (no delta) last, by baseline.
    std::stable_sort(section.rows.begin(), section.rows.end(),
                     [](const DiffRow& a, const DiffRow& b) {
                       if (a.delta.has_value() != b.delta.has_value()) return a.delta.has_value();
                       if (a.delta && b.delta && std::fabs(*a.delta) != std::fabs(*b.delta)) {
                         return std::fabs(*a.delta) > std::fabs(*b.delta);
                       }
                       return a.baseline.value_or(0) > b.baseline.value_or(0);
                     });
    sections.push_back(std::move(section));
  }
  if (!any_common) {
    std::vector<std::string> names;
    for (const auto& e : old_profile.events) names.push_back(e.name);
    return fail(Errc::kInvalidArgument,
                "the two profiles have no event in common (old has: {}); record both with the "
                "same -e",
                names.empty() ? std::string("none") : fmt::format("{}", fmt::join(names, ", ")));
  }
  return sections;
}

Result<void> write_diff_table(const std::vector<DiffSection>& sections, std::ostream& out,
                              const DiffOptions& options) {
  std::string text;
  bool first = true;
  for (const auto& section : sections) {
    if (!first && !options.quiet) text += "\n";
    first = false;
    std::size_t dso_w = std::string_view("Shared Object").size();
    std::size_t sym_w = std::string_view("Symbol").size();
    std::vector<std::string> symbols;
    for (const auto& r : section.rows) {
      dso_w = std::max(dso_w, r.dso.size());
      symbols.push_back((r.kind == profile::FrameKind::kKernel ? "[k] " : "[.] ") + r.symbol);
      sym_w = std::max(sym_w, symbols.back().size());
    }
    // perf's sort__setup_elide(): a filter of one value makes its column redundant.
    const bool show_dso = options.dsos.size() != 1;
    const bool show_sym = options.symbols.size() != 1;
    if (!options.quiet) {
      std::string head = "# Baseline  Delta Abs";
      std::string dots = "# ........  .........";
      if (show_dso) {
        head += fmt::format("  {:<{}}", "Shared Object", dso_w);
        dots += "  " + std::string(dso_w, '.');
      }
      if (show_sym) {
        head += fmt::format("  {:<{}}", "Symbol", sym_w);
        dots += "  " + std::string(sym_w, '.');
      }
      fmt::format_to(std::back_inserter(text), "# Event '{}'\n#\n{}\n{}\n#\n", section.event, head,
                     dots);
    }
    for (std::size_t i = 0; i < section.rows.size(); ++i) {
      const auto& r = section.rows[i];
      const std::string base = r.baseline ? fmt::format("{:.2f}%", *r.baseline) : "";
      // perf leaves the delta empty when the entry has no pair in NEW (and prints
      // "-0.00%" / "+0.00%" for tiny changes, as printf's "%+4.2F%%" does).
      const std::string delta = r.delta ? fmt::format("{:+.2f}%", *r.delta) : "";
      fmt::format_to(std::back_inserter(text), "{:>10}  {:>9}", base, delta);
      if (show_dso) fmt::format_to(std::back_inserter(text), "  {:<{}}", r.dso, dso_w);
      if (show_sym) fmt::format_to(std::back_inserter(text), "  {}", symbols[i]);
      text += '\n';
    }
  }
  return detail::write_all(out, text);
}

Result<void> write_diff_flamegraph_html(const profile::Profile& old_profile,
                                        const profile::Profile& new_profile, std::ostream& out,
                                        const ExportOptions& options) {
  ExportOptions fold_options = options;
  fold_options.annotate_kernel = false;
  PERFX_TRY(folded_new, fold(new_profile, fold_options));
  // The baseline's event: the one with the same name as NEW's folded event.
  ExportOptions old_options = fold_options;
  if (folded_new.event < new_profile.events.size()) {
    const auto idx = event_index(old_profile, new_profile.events[folded_new.event].name);
    if (!idx) {
      return fail(Errc::kInvalidArgument, "the baseline has no '{}' samples to compare",
                  new_profile.events[folded_new.event].name);
    }
    old_options.event = static_cast<std::int32_t>(*idx);
  }
  PERFX_TRY(folded_old, fold(old_profile, old_options));

  // One name table for both; stacks keyed by their name sequence.
  FoldedProfile merged;
  std::unordered_map<std::string, std::uint32_t> name_index;
  auto remap = [&](const FoldedProfile& f) {
    std::vector<std::uint32_t> map(f.names.size());
    for (std::size_t i = 0; i < f.names.size(); ++i) {
      std::string key = f.names[i];
      key.push_back('\0');
      key.push_back(static_cast<char>('0' + static_cast<int>(f.kinds[i])));
      auto [it, inserted] =
          name_index.try_emplace(key, static_cast<std::uint32_t>(merged.names.size()));
      if (inserted) {
        merged.names.push_back(f.names[i]);
        merged.kinds.push_back(f.kinds[i]);
      }
      map[i] = it->second;
    }
    return map;
  };
  const auto map_new = remap(folded_new);
  const auto map_old = remap(folded_old);
  std::map<std::vector<std::uint32_t>, std::pair<std::uint64_t, std::uint64_t>> stacks;
  for (const auto& s : folded_old.stacks) {
    std::vector<std::uint32_t> names;
    for (auto n : s.names) names.push_back(map_old[n]);
    stacks[names].first += s.samples;
  }
  for (const auto& s : folded_new.stacks) {
    std::vector<std::uint32_t> names;
    for (auto n : s.names) names.push_back(map_new[n]);
    stacks[names].second += s.samples;
  }

  std::string title = options.title.empty() ? std::string("perfx diff") : options.title;
  std::string data = "{\"title\":";
  detail::append_json_string(data, title);
  data += ",\"subtitle\":";
  detail::append_json_string(
      data, fmt::format("widths: new profile ({} samples); colours: change of share vs. the "
                        "baseline ({} samples); red = grew, blue = shrank",
                        folded_new.total_samples, folded_old.total_samples));
  data += ",\"unit\":\"samples\",\"diff\":true,\"icicle\":";
  data += options.inverted ? "true," : "false,";
  append_folded_names_json(data, merged);
  data += ",\"stacks\":[";
  bool first = true;
  for (const auto& [names, counts] : stacks) {
    if (!first) data.push_back(',');
    first = false;
    fmt::format_to(std::back_inserter(data), "[{},{}", counts.first, counts.second);
    for (auto n : names) fmt::format_to(std::back_inserter(data), ",{}", n);
    data.push_back(']');
  }
  data += "]}";
  return write_flamegraph_page(title, data, out);
}

}  // namespace perfx::report
