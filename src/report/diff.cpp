#include "report/diff.hpp"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <map>
#include <tuple>
#include <unordered_map>

#include <fmt/format.h>

#include "core/c_hex.hpp"
#include "core/error_format.hpp"
#include "profile/hists.hpp"
#include "report/export_util.hpp"
#include "report/flamegraph_html.hpp"
#include "report/folded.hpp"

namespace perfx::report {
namespace {

struct SelfEntry {
  profile::FrameKind kind = profile::FrameKind::kUnknown;
  std::uint64_t period = 0;
  std::string dso;       // for --dsos when the key has no DSO (-s without dso)
  std::string function;  // for --symbols when the key has no symbol
  std::string comm;      // the comm of its last sample (-s pid shows it)
  std::string dso_path;  // for --dsos (short or long name)
  bool resolved = false;
  bool thread_filtered = false;                      // the verdict of the sample that created it
  std::uint64_t lowest_ip = ~std::uint64_t{0};       // the unresolved entry's lowest ip
  std::uint64_t lowest_address = ~std::uint64_t{0};  // and its map-relative address
};

// perf diff's pairing key: the -s keys' values (default shared object, symbol name), a
// DSO's unresolved addresses collapsed into one key (ordered before its names). Keys
// not asked for stay empty (-1 for the pid).
struct RowKey {
  std::string comm;
  std::int32_t pid = -1;
  std::string dso;
  bool unresolved = false;
  std::string symbol;  // empty when unresolved
  friend bool operator<(const RowKey& a, const RowKey& b) {
    return std::tie(a.comm, a.pid, a.dso, b.unresolved, a.symbol) <
           std::tie(b.comm, b.pid, b.dso, a.unresolved, b.symbol);
  }
};

bool has_key(const DiffOptions& o, std::string_view key) {
  return std::find(o.sort_keys.begin(), o.sort_keys.end(), key) != o.sort_keys.end();
}
using SelfMap = std::map<RowKey, SelfEntry>;

// The row's symbol text: the name, or perf's map-relative address for unresolved code.
std::string row_symbol(const RowKey& key, const SelfEntry& e) {
  return key.unresolved ? core::c_alt_hex18(e.lowest_address) : key.symbol;
}

// Self period per (dso, symbol) of one event: perf's hist entries of the dso,sym keys
// (profile::build_hists(), no children), paired by name. Inline frames are attributed to
// the function they were inlined into, as perf does without --inline.
// perf's machine__resolve() filters of one sample (al->filtered): its thread, and its own
// DSO (short or long name) and symbol.
bool sample_kept(const profile::Profile& p, const profile::Sample& s, const DiffOptions& o) {
  const auto& th = p.threads[s.thread];
  if (!o.thread_filter.keeps(th.comm, th.pid, th.tid)) return false;
  const auto leaf = sampled_frame(p, s);
  const profile::Frame* f = leaf ? &p.frames[*leaf] : nullptr;
  auto listed = [](const std::vector<std::string>& list, const std::string& v) {
    return std::find(list.begin(), list.end(), v) != list.end();
  };
  if (!o.dsos.empty() &&
      (f == nullptr || (!listed(o.dsos, f->dso) && !listed(o.dsos, f->dso_path))))
    return false;
  return o.symbols.empty() ||
         (f != nullptr && !profile::unresolved(*f) && listed(o.symbols, f->function));
}

Result<SelfMap> self_periods(const profile::Profile& p, std::uint32_t event, std::uint64_t& total,
                             std::uint64_t& kept, const DiffOptions& o) {
  PERFX_CHECK(profile::check_indices(p));
  profile::HistOptions ho;
  ho.keys = {profile::SortKey::kDso, profile::SortKey::kSym};
  const bool by_comm = has_key(o, "comm");
  const bool by_pid = has_key(o, "pid");
  const bool by_dso = has_key(o, "dso");
  const bool by_sym = has_key(o, "sym");
  if (by_comm) ho.keys.push_back(profile::SortKey::kComm);
  if (by_pid) ho.keys.push_back(profile::SortKey::kPid);
  ho.children = false;
  ho.callchains = false;
  ho.thread_filter = o.thread_filter;
  ho.keep_frameless = true;
  const profile::Hists h = profile::build_hists(p, ho, event);
  // -s pid shows a thread by its comm at the end of the recording (perf's thread comm):
  // threads are listed in sample order, a comm change (exec) as a later entry.
  std::unordered_map<std::int32_t, const std::string*> final_comm;
  if (by_pid)
    for (const auto& th : p.threads) final_comm[th.tid] = &th.comm;
  SelfMap map;
  // Entries come in the order of their first sample: the first one of a key is the one
  // whose thread verdict the row keeps.
  for (const auto& he : h.entries) {
    const profile::Frame* leaf = he.frame == profile::kNoFrame ? nullptr : &p.frames[he.frame];
    const auto& th = p.threads[he.thread];
    RowKey key{by_comm ? th.comm : std::string(), by_pid ? th.tid : -1,
               leaf && !leaf->dso.empty() ? leaf->dso : "[unknown]", false,
               by_sym && leaf ? leaf->function : "[unknown]"};
    // perf diff collapses a DSO's unresolved addresses into one entry, shown by the
    // lowest (its collapse keeps the first of its address-ordered input).
    key.unresolved = by_sym && leaf && (key.symbol.empty() || key.symbol == "[unknown]");
    if (key.unresolved || !by_sym) key.symbol.clear();
    // Without -s dso, perf's symbol key (its address for unresolved code) collapses the
    // unresolved addresses of every DSO into one entry too, shown by the lowest
    // instruction address (map-relative addresses of two DSOs do not compare).
    if (!by_dso) key.dso.clear();
    auto [it, created] = map.try_emplace(std::move(key));
    auto& e = it->second;
    if (created) e.thread_filtered = he.filtered;
    if (it->first.unresolved && profile::process_ip(*leaf) < e.lowest_ip) {
      e.lowest_ip = profile::process_ip(*leaf);
      e.lowest_address = leaf->map_address;
    }
    e.kind = leaf ? leaf->kind : profile::FrameKind::kUnknown;
    e.period += he.values.self;
    if (leaf) e.dso_path = leaf->dso_path;
    e.resolved = leaf && !it->first.unresolved;
    if (leaf) {
      e.dso = leaf->dso.empty() ? "[unknown]" : leaf->dso;
      e.function = leaf->function;
    }
    e.comm = by_pid ? *final_comm[th.tid] : th.comm;
  }
  // The event's total counts samples a thread filter kept out of the profile (perf's
  // percentages are of all); a profile made without totals falls back to its samples'.
  kept = 0;
  for (const auto& s : p.samples)
    if (s.event == event && sample_kept(p, s, o)) kept += s.period;
  const std::uint64_t sum = h.seen_period.empty() ? 0 : h.seen_period[0];
  total = std::max(sum, event < p.events.size() ? p.events[event].total_period : 0);
  return map;
}

// perf diff's output order for the compute column: rows only in OLD (nothing computed)
// last, by baseline; delta and delta-abs sort every other row by their delta; ratio and
// wdiff sort the rows of both files by their value, then NEW-only rows ("N/A") by their
// period. Equal rows by DSO, its named rows (in the input's order) before its unresolved.
// Two values that order rows: a NaN (--percentage relative of nothing kept) is equal to
// everything, so such rows keep the tie order.
bool differs(double a, double b) { return !std::isnan(a) && !std::isnan(b) && a != b; }

// -o 0 sorts by the baseline first (rows only in NEW last), the rest as above.
void sort_rows(std::vector<DiffRow>& rows, DiffCompute compute, unsigned order,
               const std::vector<std::string>& keys) {
  auto rank = [&](const DiffRow& r) {
    if (!r.delta) return 2;  // only in OLD
    if ((compute == DiffCompute::kRatio || compute == DiffCompute::kWeighted) && !r.ratio)
      return 1;  // only in NEW: "N/A"
    return 0;
  };
  // Equal rows: by the -s keys in order (comm, pid, DSO, symbol), a DSO's unresolved row after its
  // named ones (perf's sort__sym_sort() orders no symbol last), names by name.
  auto tie = [&](const DiffRow& a, const DiffRow& b) {
    for (const auto& key : keys) {
      if (key == "comm" && a.comm != b.comm) return a.comm < b.comm;
      if (key == "pid" && a.pid != b.pid) return a.pid < b.pid;
      if (key == "dso" && a.dso != b.dso) return a.dso < b.dso;
      if (key == "sym" && a.unresolved != b.unresolved) return b.unresolved;
      if (key == "sym" && !a.unresolved && a.symbol != b.symbol) return a.symbol < b.symbol;
    }
    return false;
  };
  std::stable_sort(rows.begin(), rows.end(), [&](const DiffRow& a, const DiffRow& b) {
    if (order == 0 && a.baseline.has_value() != b.baseline.has_value())
      return a.baseline.has_value();
    if (order == 0 && a.baseline && differs(*a.baseline, *b.baseline))
      return *a.baseline > *b.baseline;
    const int ra = rank(a);
    const int rb = rank(b);
    if (ra != rb) return ra < rb;
    // Only in OLD: by baseline; only in NEW ("N/A"): by period; others by the column.
    if (ra == 1 && a.new_period != b.new_period) return a.new_period > b.new_period;
    if (ra == 0) {
      switch (compute) {
        case DiffCompute::kDeltaAbs:
          if (differs(std::fabs(*a.delta), std::fabs(*b.delta)))
            return std::fabs(*a.delta) > std::fabs(*b.delta);
          break;
        case DiffCompute::kDelta:
          if (differs(*a.delta, *b.delta)) return *a.delta > *b.delta;
          break;
        case DiffCompute::kRatio:
          if (differs(*a.ratio, *b.ratio)) return *a.ratio > *b.ratio;
          break;
        case DiffCompute::kWeighted:
          if (*a.wdiff != *b.wdiff) return *a.wdiff > *b.wdiff;
          break;
      }
    }
    if (differs(a.baseline.value_or(0), b.baseline.value_or(0)))
      return a.baseline.value_or(0) > b.baseline.value_or(0);
    return tie(a, b);
  });
}

std::optional<std::uint32_t> event_index(const profile::Profile& p, const std::string& name) {
  for (std::size_t i = 0; i < p.events.size(); ++i) {
    if (p.events[i].name == name) return static_cast<std::uint32_t>(i);
  }
  return std::nullopt;
}

}  // namespace

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

namespace perfx {

// The pairing and layout helpers above (this file's).
using report::event_index;
using report::RowKey;
using report::self_periods;
using report::SelfEntry;
using report::SelfMap;
using report::sort_rows;

Result<void> parse_diff_compute(const std::string& text, DiffOptions& o) {
  if (text == "delta") {
    o.compute = DiffCompute::kDelta;
  } else if (text == "delta-abs") {
    o.compute = DiffCompute::kDeltaAbs;
  } else if (text == "ratio") {
    o.compute = DiffCompute::kRatio;
  } else if (text.rfind("wdiff", 0) == 0) {
    // wdiff:W1,W2, both integers (perf's setup_compute_opt_wdiff())
    long long w1 = 0, w2 = 0;
    char tail = 0;
    if (std::sscanf(text.c_str(), "wdiff:%lld,%lld%c", &w1, &w2, &tail) != 2)
      return fail(Errc::kInvalidArgument, "Failed: wrong weight data, use 'wdiff:w1,w2' (got '{}')",
                  text);
    o.compute = DiffCompute::kWeighted;
    o.weight_old = w1;
    o.weight_new = w2;
  } else {
    return fail(Errc::kInvalidArgument,
                "Failed: '{}' is not computation method (use 'delta','ratio' or 'wdiff')", text);
  }
  return {};
}

Result<void> parse_diff_sort(const std::string& text, DiffOptions& o) {
  // perf's sort keys that need what perfx diff does not pair by yet.
  static constexpr std::string_view kPerfOnly[] = {"parent",
                                                   "cpu",
                                                   "socket",
                                                   "srcline",
                                                   "srcfile",
                                                   "local_weight",
                                                   "weight",
                                                   "transaction",
                                                   "trace",
                                                   "sym_size",
                                                   "dso_size",
                                                   "cgroup",
                                                   "cgroup_id",
                                                   "time",
                                                   "code_page_size",
                                                   "ins_lat",
                                                   "local_ins_lat",
                                                   "p_stage_cyc",
                                                   "local_p_stage_cyc",
                                                   "addr",
                                                   "overhead"};
  std::vector<std::string> keys;
  std::string_view rest = text;
  while (true) {
    const auto comma = rest.find(',');
    std::string key(rest.substr(0, comma));
    if (key == "symbol") key = "sym";
    if (key == "comm" || key == "pid" || key == "dso" || key == "sym") {
      if (std::find(keys.begin(), keys.end(), key) == keys.end()) keys.push_back(key);
    } else if (std::find(std::begin(kPerfOnly), std::end(kPerfOnly), key) != std::end(kPerfOnly)) {
      return fail(
          Errc::kInvalidArgument,
          "perf diff's --sort {} is not supported by perfx yet (comm, pid, dso, symbol are)", key);
    } else {
      return fail(Errc::kInvalidArgument, "Unknown --sort key: `{}'", key);
    }
    if (comma == std::string_view::npos) break;
    rest.remove_prefix(comma + 1);
  }
  o.sort_keys = std::move(keys);
  return {};
}

Result<std::vector<DiffSection>> diff_profiles(const profile::Profile& old_profile,
                                               const profile::Profile& new_profile,
                                               const DiffOptions& options) {
  std::vector<DiffSection> sections;
  bool any_common = false;
  auto listed = [](const std::vector<std::string>& list, const std::string& v) {
    return std::find(list.begin(), list.end(), v) != list.end();
  };
  if (options.order > 1) return fail(Errc::kInvalidArgument, "Order option out of limit.");
  // perf's filtered entries: hidden, still in the totals (but for --percentage relative).
  auto shown = [&](const RowKey&, const SelfEntry& e) {
    if (e.thread_filtered) return false;
    if (!options.dsos.empty() && !listed(options.dsos, e.dso) && !listed(options.dsos, e.dso_path))
      return false;
    return options.symbols.empty() || (e.resolved && listed(options.symbols, e.function));
  };
  auto kept_period = [&](const SelfMap& map) {
    std::uint64_t sum = 0;
    for (const auto& [key, entry] : map)
      if (shown(key, entry)) sum += entry.period;
    return sum;
  };
  // A row's key columns (its values are the caller's).
  auto make_row = [](const RowKey& key, const SelfEntry& e) {
    DiffRow row;
    row.comm = key.comm;
    row.pid = key.pid;
    if (key.pid >= 0) row.comm = e.comm;  // -s pid shows the thread's comm
    row.dso = key.dso.empty() ? e.dso : key.dso;
    row.symbol = row_symbol(key, e);
    row.unresolved = key.unresolved;
    row.kind = e.kind;
    return row;
  };
  for (std::size_t e = 0; e < old_profile.events.size(); ++e) {
    const auto other = event_index(new_profile, old_profile.events[e].name);
    any_common = any_common || other.has_value();
    DiffSection section;
    section.event = old_profile.events[e].name;
    std::uint64_t old_kept = 0, new_kept = 0;
    PERFX_TRY(olds, self_periods(old_profile, static_cast<std::uint32_t>(e), section.old_total,
                                 old_kept, options));
    SelfMap news;
    if (other) {
      PERFX_TRY(n, self_periods(new_profile, *other, section.new_total, new_kept, options));
      news = std::move(n);
    }
    section.old_base = options.relative ? kept_period(olds) : section.old_total;
    section.old_delta_base = options.relative ? old_kept : section.old_total;
    section.new_base = options.relative ? new_kept : section.new_total;
    // perf pairs entries whatever their filters; a row shows when its baseline entry
    // passes them (a NEW-only row: when the NEW entry does). Relative percentages of
    // nothing kept are perf's NaN.
    auto pct = [&](std::uint64_t v, std::uint64_t total) {
      if (total == 0 && !options.relative) return 0.0;
      return 100.0 * static_cast<double>(v) / static_cast<double>(total);
    };
    for (const auto& [key, entry] : olds) {
      if (!shown(key, entry)) continue;
      DiffRow row = make_row(key, entry);
      row.old_period = entry.period;
      row.baseline = pct(entry.period, section.old_base);
      auto it = news.find(key);
      if (it != news.end()) {
        row.new_period = it->second.period;
        row.delta =
            pct(row.new_period, section.new_base) - pct(row.old_period, section.old_delta_base);
        // perf's compute_ratio() and compute_wdiff()
        row.ratio = static_cast<double>(row.new_period) /
                    static_cast<double>(row.old_period != 0 ? row.old_period : 1);
        row.wdiff = static_cast<std::int64_t>(row.new_period) * options.weight_new -
                    static_cast<std::int64_t>(row.old_period) * options.weight_old;
      } else if (options.baseline_only) {
        continue;
      }
      section.rows.push_back(std::move(row));
    }
    if (options.baseline_only) {
      // perf drops the unpaired entries before its output sort, which sums the
      // baselines again: percentages of the paired rows (deltas keep the totals).
      std::uint64_t kept = 0;
      for (const auto& r : section.rows) kept += r.old_period;
      for (auto& r : section.rows) r.baseline = pct(r.old_period, kept);
    }
    for (const auto& [key, entry] : news) {
      if (options.baseline_only) break;
      if (olds.count(key) || !shown(key, entry)) continue;
      DiffRow row = make_row(key, entry);
      row.new_period = entry.period;
      row.delta = pct(entry.period, section.new_base) - pct(0, section.old_delta_base);
      section.rows.push_back(std::move(row));
    }
    sort_rows(section.rows, options.compute, options.order, options.sort_keys);
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

Result<void> write_diff_flamegraph(const Profile& old_profile, const Profile& new_profile,
                                   std::ostream& out, const DiffGraphOptions& options) {
  report::ExportOptions export_options;
  export_options.title = options.title;
  export_options.inverted = options.inverted;
  return report::write_diff_flamegraph_html(old_profile, new_profile, out, export_options);
}

}  // namespace perfx
