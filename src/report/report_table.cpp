#include "report/report_table.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <regex>
#include <unordered_map>

#include "core/c_hex.hpp"
#include "core/error_format.hpp"

namespace perfx::report {
namespace {

enum class Key : std::uint8_t {
  kComm,
  kPid,
  kTid,
  kDso,
  kSym,
  kSrcline,
  kSrcfile,
  kCpu,
  kTime,
  kParent,
  kSocket
};

struct KeyInfo {
  std::string_view name;
  Key key;
  std::string_view header;
};
constexpr KeyInfo kKeys[] = {
    {"comm", Key::kComm, "Command"},
    {"pid", Key::kPid, "    Pid:Command"},  // perf's se_header, right-aligned pid
    {"tid", Key::kTid, "Tid:Command"},
    {"dso", Key::kDso, "Shared Object"},
    {"sym", Key::kSym, "Symbol"},
    {"srcline", Key::kSrcline, "Source:Line"},
    {"srcfile", Key::kSrcfile, "Source File"},
    {"cpu", Key::kCpu, "CPU"},
    {"time", Key::kTime, "Time"},
    {"parent", Key::kParent, "Parent symbol"},
    {"socket", Key::kSocket, "Socket"},
};

const KeyInfo* find_key(std::string_view name) {
  for (const auto& k : kKeys)
    if (k.name == name) return &k;
  return nullptr;
}

std::string basename(const std::string& p) {
  auto s = p.rfind('/');
  return s == std::string::npos ? p : p.substr(s + 1);
}

// Interns strings to small ids so entry keys are integer tuples.
class Interner {
 public:
  std::uint64_t id(const std::string& s) {
    auto [it, ins] = ids_.try_emplace(s, names_.size());
    if (ins) names_.push_back(s);
    return it->second;
  }
  [[nodiscard]] const std::string& name(std::uint64_t id) const { return names_[id]; }

 private:
  std::unordered_map<std::string, std::uint64_t> ids_;
  std::vector<std::string> names_;
};

struct U64VecHash {
  std::size_t operator()(const std::vector<std::uint64_t>& v) const noexcept {
    std::size_t h = 0xcbf29ce484222325ULL;
    for (auto x : v) h = (h ^ x) * 0x100000001b3ULL;
    return h;
  }
};

struct Entry {
  std::vector<std::uint64_t> key;
  // perf's hist_entry::filtered: set by the --dsos/--symbols test of the sample (its leaf)
  // that created the entry; later samples add their periods but do not change it.
  bool filtered = false;
  std::uint64_t self = 0;
  std::uint64_t acc = 0;
  std::uint64_t nr_samples = 0;
  // An event group's other members (perf's linked hists): their self, children and
  // sample counts, member 1 first; empty outside a group.
  std::vector<std::uint64_t> m_self, m_acc, m_samples;
  std::uint32_t frame = 0;   // a representative frame
  std::uint32_t thread = 0;  // a representative thread
  std::uint32_t cpu = 0;
  std::uint64_t time = 0;    // the time bucket (sort key time)
  std::uint64_t parent = 0;  // the parent's name id, or "none" (sort key parent)
  // The "[k]"/"[.]" marker, fixed by the sample that created the entry (see level_of()).
  char level = '.';
  // Callchains for -g output: (stack << 16 | first frame shown) -> period.
  std::unordered_map<std::uint64_t, std::uint64_t> chains;
  // The longest chain given to the entry (perf's callchain_root::max_depth), in frames.
  std::size_t max_depth = 0;
  // An unresolved frame reached through a callchain with --children: perf keys and shows
  // it by its instruction address, not the map-relative one (see add_sample()).
  bool raw = false;
};

std::string pct(double v) { return fmt::format("{:.2f}%", v); }

constexpr std::size_t kTimeWidth = 12;  // the time sort key's column

}  // namespace

// perf's __get_srcline() with GNU addr2line: the line when there is one; "??:0" when
// addr2line names a function but no line ("??:?", which perf reads as file "??", line
// 0); else the symbol and offset, or the DSO and address for an unresolved one.
std::string frame_srcline(const profile::Frame& f, bool full_path) {
  if (!f.file.empty() && f.line > 0)
    return fmt::format("{}:{}", full_path ? f.file : basename(f.file), f.line);
  if (f.addr2line_function) return "??:0";
  if (f.function != "[unknown]") return fmt::format("{}+{}", f.function, f.symbol_offset);
  if (f.mapping >= 0) return fmt::format("{}[{:x}]", f.dso, f.map_address);
  return "??:0";
}

Result<void> validate_sort_keys(const std::vector<std::string>& keys) {
  if (keys.empty()) return fail(Errc::kInvalidArgument, "--sort needs at least one key");
  for (const auto& k : keys) {
    if (k != "overhead" && find_key(k) == nullptr)
      return fail(Errc::kInvalidArgument,
                  "unknown sort key '{}' (valid: comm, pid, tid, dso, sym, srcline, srcfile, cpu, "
                  "time, parent, socket)",
                  k);
  }
  return {};
}

namespace {

constexpr std::string_view kValueFields[] = {"overhead", "overhead_children", "sample", "period"};

bool is_value_field(std::string_view f) {
  return std::find(std::begin(kValueFields), std::end(kValueFields), f) != std::end(kValueFields);
}

// perf's sort__setup_elide(): a filter with one value makes its column redundant; perf
// prints "# dso: X" instead (the entries are still keyed by it).
const std::vector<std::string>* elide_list(Key k, const ReportOptions& o) {
  const std::vector<std::string>* list = nullptr;
  if (k == Key::kComm) list = &o.thread_filter.comms;
  if (k == Key::kDso) list = &o.dsos;
  if (k == Key::kSym) list = &o.symbols;
  return list != nullptr && list->size() == 1 ? list : nullptr;
}

// The entry keys: the sort keys, then -F keys the sort keys lack ("overhead" adds none).
std::vector<Key> entry_keys(const ReportOptions& o) {
  std::vector<Key> keys;
  auto add = [&](const std::string& name) {
    const KeyInfo* ki = find_key(name);
    if (ki != nullptr && std::find(keys.begin(), keys.end(), ki->key) == keys.end())
      keys.push_back(ki->key);
  };
  for (const auto& k : o.sort) add(k);
  for (const auto& f : o.fields) add(f);
  return keys;
}

}  // namespace

std::vector<std::string> sort_keys_of_fields(const std::vector<std::string>& fields) {
  std::vector<std::string> keys;
  for (const auto& f : fields)
    if (find_key(f) != nullptr) keys.push_back(f);
  if (keys.empty()) keys.emplace_back("overhead");
  return keys;
}

Result<void> validate_fields(const std::vector<std::string>& fields) {
  for (const auto& f : fields) {
    if (!is_value_field(f) && find_key(f) == nullptr)
      return fail(Errc::kInvalidArgument,
                  "Unknown --fields key: `{}' (valid: overhead, overhead_children, sample, period, "
                  "comm, pid, tid, dso, sym, srcline, srcfile, cpu)",
                  f);
  }
  return {};
}

namespace {

class EventReport {
  struct LazyKey {    // a srcline or srcfile key (see note_group())
    std::size_t key;  // its position in keys_
    // Samples seen per value of the keys before it: 1, or 2 for "more than one".
    std::unordered_map<std::vector<std::uint64_t>, std::uint8_t, U64VecHash> groups;
  };

 public:
  // The report of event `event`, or of the group of `members` events it leads.
  EventReport(const profile::Profile& p, const ReportOptions& o, std::uint32_t event,
              std::uint32_t members = 1, std::string group_name = {}, bool in_group = false)
      : p_(p),
        o_(o),
        event_(event),
        members_(members),
        group_name_(std::move(group_name)),
        in_group_(in_group),
        keys_(entry_keys(o)),
        kept_period_(members, 0),
        kept_samples_(members, 0) {
    for (std::size_t i = 0; i < keys_.size(); ++i) {
      if (keys_[i] == Key::kSrcline || keys_[i] == Key::kSrcfile) lazy_.push_back({i, {}});
    }
  }

  void build() {
    const auto& ev = p_.events[event_];
    children_ = o_.children && ev.has_callchain;
    want_chains_ = ev.has_callchain && o_.graph != GraphMode::kNone;
    callee_children_ = children_ && !o_.caller_order.value_or(true);
    // Per-frame key parts.
    frame_dso_.resize(p_.frames.size());
    frame_sym_.resize(p_.frames.size());
    frame_raw_sym_.resize(p_.frames.size());
    frame_srcline_.resize(p_.frames.size());
    frame_srcfile_.resize(p_.frames.size());
    for (std::size_t i = 0; i < p_.frames.size(); ++i) {
      const auto& f = p_.frames[i];
      frame_dso_[i] = dsos_.id(f.dso);
      // perf's sym key (sort__sym_cmp()): the symbol itself, by its start in its DSO, so
      // that overloads, whose names print alike without parameters, stay apart; inline
      // frames by name. Unresolved: the address.
      if (f.function == "[unknown]") {
        frame_sym_[i] = syms_.id(fmt::format("\x01{:x}", f.map_address));
      } else if (f.inlined) {
        frame_sym_[i] = syms_.id(f.dso + '\x02' + f.function);
      } else {
        frame_sym_[i] = syms_.id(
            fmt::format("{}\x02{}\x03{:x}", f.dso, f.function, f.map_address - f.symbol_offset));
      }
      if (raw_frame(f)) frame_raw_sym_[i] = syms_.id(fmt::format("\x04{:x}", f.address));
      if (need(Key::kSrcline)) frame_srcline_[i] = strs_.id(frame_srcline(f, o_.full_source_path));
      if (need(Key::kSrcfile)) frame_srcfile_[i] = strs_.id(srcfile_of(f));
    }
    // Group samples by (stack, thread, cpu, time bucket): the last two only when keys.
    struct Group {
      SampleInfo info;
      std::uint64_t period = 0;
      std::uint64_t count = 0;
      std::size_t first = 0;     // index of its first sample: perf's processing order
      std::uint32_t member = 0;  // of the event group (0: the leader, or the event)
    };
    std::vector<Group> groups;
    std::unordered_map<std::vector<std::uint64_t>, std::size_t, U64VecHash> group_of;
    const bool by_cpu = need(Key::kCpu) || need(Key::kSocket);
    const bool by_time = need(Key::kTime);
    const bool by_parent = need(Key::kParent) || o_.exclude_other;
    if (by_parent)
      parent_regex_.emplace(o_.parent_regex, std::regex::extended | std::regex::nosubs);
    std::vector<std::uint64_t> gk(5);
    for (std::size_t si_idx = 0; si_idx < p_.samples.size(); ++si_idx) {
      const auto& s = p_.samples[si_idx];
      const std::uint32_t ev_index = s.event;
      if (ev_index < event_ || ev_index - event_ >= members_) continue;
      const std::uint32_t member = ev_index - event_;
      // Without PERF_SAMPLE_CPU every sample is on perf's cpu -1.
      const std::uint32_t cpu = ev.has_cpu ? s.cpu : 0xffffffffu;
      // perf's hist_time(): the sample's time rounded down to --time-quantum.
      const std::uint64_t bucket =
          by_time && o_.time_quantum_ns > 0 ? s.time_ns - s.time_ns % o_.time_quantum_ns : 0;
      const std::uint64_t parent = by_parent ? parent_of(s.stack) : kNoParent;
      // -x: perf adds no entry for a sample without a parent (it stays in the totals).
      if (o_.exclude_other && parent == kNoParent) continue;
      gk = {s.stack, s.thread, by_cpu ? cpu : 0u, bucket, member};
      auto [git, gnew] = group_of.try_emplace(gk, groups.size());
      if (gnew)
        groups.push_back(
            Group{SampleInfo{s.stack, s.thread, cpu, bucket, parent}, 0, 0, si_idx, member});
      auto& g = groups[git->second];
      g.period += s.period;
      g.count += s.count;
    }
    // perf creates hist entries in sample order, and an entry keeps the filter verdict of
    // the sample that created it: the groups are in the order of their first sample.
    std::vector<std::uint32_t> seen;
    for (const Group& g : groups) {
      const SampleInfo& si = g.info;
      const auto& stack = p_.stacks[si.stack];
      // The leaf: last non-inlined frame.
      std::size_t leaf = stack.size();
      for (std::size_t i = stack.size(); i-- > 0;) {
        if (!p_.frames[stack[i]].inlined) {
          leaf = i;
          break;
        }
      }
      if (leaf == stack.size()) continue;
      const auto& leaf_frame = p_.frames[stack[leaf]];
      // perf report drops such a sample before its histograms, whose statistics are the
      // header's sample count and event count.
      if (o_.hide_unresolved && unresolved(leaf_frame)) {
        if (g.member == 0) {
          hidden_period_ += g.period;
          hidden_samples_ += g.count;
        }
        continue;
      }
      const std::uint32_t m = g.member;
      // perf's thread filter marks the sample's entries like --dsos/--symbols do (and an
      // entry keeps the verdict of the sample that created it).
      const bool filtered = !passes_filters(leaf_frame) || !thread_passes(p_.threads[si.thread]);
      // The leaf's entry always gets the sample (perf adds it from the sample's own ip);
      // the other frames only within --max-stack.
      const auto [lo, hi] = shown_range(si.stack);
      // perf's addr_location starts as the sample's (its leaf's level) and is refilled
      // from each callchain entry in turn; an entry without a map keeps the level left by
      // the one before it (fill_callchain_info() leaves it alone).
      char level = leaf_frame.kind == profile::FrameKind::kKernel ? 'k' : '.';
      Entry& le = entry_for(stack[leaf], si, filtered, level, false, g.count);
      self_of(le, m) += g.period;
      samples_of(le, m) += g.count;
      // perf counts a sample as kept when its leaf's entry is (hists__inc_nr_samples()
      // with he->filtered): that entry may have been made, and filtered, by an earlier
      // sample whose leaf failed the filter (a kernel leaf in children mode).
      if (!le.filtered) {
        kept_period_[m] += g.period;
        kept_samples_[m] += g.count;
      }
      const auto leaf_idx = static_cast<std::uint32_t>(&le - entries_.data());
      const std::uint64_t chain_base = static_cast<std::uint64_t>(si.stack) << 16;
      acc_of(le, m) += g.period;
      // The call graphs are the leader's (the first event of a group).
      const bool chains = want_chains_ && m == 0;
      if (chains) le.chains[chain_base] += g.period;
      if (!children_) continue;
      le.max_depth = std::max(le.max_depth, hi - lo);
      seen.clear();
      seen.push_back(leaf_idx);
      // perf walks its callchain cursor in display order and gives each entry the rest of
      // the chain from that frame on (once per sample, for the first occurrence): in
      // caller order the frame and its callees (the leaf: the whole chain), in callee
      // order the frame and its callers.
      for (std::size_t n = 0; n < stack.size(); ++n) {
        const std::size_t i = callee_children_ ? stack.size() - 1 - n : n;
        if (i != leaf && (i < lo || i >= hi)) continue;
        if (p_.frames[stack[i]].inlined) continue;
        if (o_.hide_unresolved && unresolved(p_.frames[stack[i]])) continue;
        level = level_of(p_.frames[stack[i]], level);
        // perf fills these entries from its callchain nodes, whose address is the
        // instruction's own (fill_callchain_info()): an unresolved frame in a mapped DSO
        // (a stripped binary) is then another entry than the sample's map-relative one,
        // also for the leaf (perf shows both rows).
        Entry& e =
            entry_for(stack[i], si, filtered, level, raw_frame(p_.frames[stack[i]]), g.count);
        const auto idx = static_cast<std::uint32_t>(&e - entries_.data());
        if (std::find(seen.begin(), seen.end(), idx) != seen.end()) continue;
        seen.push_back(idx);
        acc_of(e, m) += g.period;
        if (!chains) continue;
        std::uint64_t part = 0;  // 0 = the whole chain
        if (idx != leaf_idx) {
          part = callee_children_ ? (i + 1) & 0xffffu : i & 0xffffu;
          e.max_depth = std::max(e.max_depth, callee_children_ ? i + 1 - lo : hi - i);
        }
        e.chains[chain_base | part] += g.period;
      }
    }
  }

  void print(std::ostream& out) {
    const auto& ev = p_.events[event_];
    const std::uint64_t total_period =
        o_.relative_percentage ? kept_period_[0] : ev.total_period - hidden_period_;
    const double total = static_cast<double>(total_period);
    // The entries the --dsos/--symbols filters let through (perf's hist_entry::filtered).
    std::vector<const Entry*> rows;
    for (const auto& e : entries_)
      if (!e.filtered) rows.push_back(&e);
    setup_columns();
    const bool by_acc = children_ && std::find_if(cols_.begin(), cols_.end(), [](const Col& c) {
                                       return c.kind == ColKind::kChildren;
                                     }) != cols_.end();
    if (o_.sort_keys_first) {
      // -s with -F: perf sorts by the -s keys first, then by the fields in their order
      // (perf_hpp__append_sort_keys()), each as its own sort function.
      std::sort(rows.begin(), rows.end(), [&](const Entry* a, const Entry* b) {
        return compare_sort_then_fields(*a, *b) < 0;
      });
    } else
      std::sort(rows.begin(), rows.end(), [&](const Entry* a, const Entry* b) {
        // (perf's __hpp__sort_acc() compares the leader's children only, not a group's.)
        if (by_acc && a->acc != b->acc) return a->acc > b->acc;
        // perf's __hpp__sort_acc(): of a thread's entries of equal children period, the one
        // given the longer chain first (a caller above its callees; -g callee: the reverse).
        if (by_acc && want_chains_ && a->max_depth != b->max_depth &&
            p_.threads[a->thread].tid == p_.threads[b->thread].tid)
          return callee_children_ ? a->max_depth < b->max_depth : a->max_depth > b->max_depth;
        if (a->self != b->self) return a->self > b->self;
        if (const int r = members_first(a->m_self, b->m_self); r != 0) return r < 0;
        return tie_break(*a, *b) < 0;
      });
    // --entries (perf top's screen): the first rows over the percent limit, which alone
    // size the columns (hists__output_recalc_col_len()).
    // --percent-limit: an entry's shown share (children or self) below it.
    auto below_limit = [&](const Entry* e) {
      const double shown =
          total > 0 ? 100.0 * static_cast<double>(by_acc ? e->acc : e->self) / total : 0.0;
      return o_.percent_limit > 0 && shown < o_.percent_limit;
    };
    if (o_.max_entries > 0) {
      std::vector<const Entry*> first;
      for (const auto* e : rows) {
        if (first.size() == o_.max_entries) break;
        if (!below_limit(e)) first.push_back(e);
      }
      rows = std::move(first);
    }
    // Column widths over all entries (as perf's hists__calc_col_len).
    for (auto& col : cols_) {
      if (col.kind != ColKind::kKey) continue;
      std::size_t w = header_of(keys_[col.key]).size();
      // perf sizes CPU by its header only ("-001" for no CPU field overflows it), and
      // Command by the comm each thread had last (thread__comm_len()): a row of an
      // earlier, longer comm is cut to it ("perf-ex" for perf-exec before the exec).
      if (keys_[col.key] == Key::kComm) {
        for (const auto* e : rows) w = std::max(w, last_comm(p_.threads[e->thread].tid).size());
      } else if (keys_[col.key] == Key::kTime) {
        w = kTimeWidth;  // perf's HISTC_TIME: 12, whatever the times
      } else if (keys_[col.key] != Key::kCpu && keys_[col.key] != Key::kSocket) {
        for (const auto* e : rows)
          if (found_early(col.key, *e)) w = std::max(w, cell_text(*e, col.key).size());
      }
      // perf's hists__set_unres_dso_col_len(): an entry without a symbol widens Shared
      // Object to an address's 16 digits (not with --dsos or a field separator).
      if (keys_[col.key] == Key::kDso && w < 16 && o_.dsos.empty() && o_.field_separator.empty() &&
          std::any_of(rows.begin(), rows.end(),
                      [&](const Entry* e) { return unresolved(p_.frames[e->frame]); }))
        w = 16;
      col.width = w;
    }
    const bool separated = !o_.field_separator.empty();
    if (!o_.quiet) {
      std::uint64_t n =
          o_.relative_percentage ? kept_samples_[0] : ev.total_samples - hidden_samples_;
      std::uint64_t shown_period = total_period;
      for (std::uint32_t m = 1; m < members_; ++m) {  // a group's header sums its members
        n += o_.relative_percentage ? kept_samples_[m] : p_.events[event_ + m].total_samples;
        shown_period += member_total(m);
      }
      char unit = ' ';
      if (n > 1000) {
        n /= 1000;
        unit = 'K';
      }
      if (n > 1000) {
        n /= 1000;
        unit = 'M';
      }
      if (n > 1000) {
        n /= 1000;
        unit = 'G';
      }
      if (members_ > 1)
        out << "# Samples: " << n << unit << " of events '" << group_text() << "'";
      else
        out << "# Samples: " << n << unit << (in_group_ ? " of events '" : " of event '") << ev.name
            << "'";
      if (!o_.time_slices.empty()) out << " (time slices: " << o_.time_slices << ")";
      out << "\n";
      out << "# Event count (approx.): " << shown_period << "\n#\n";
      std::string hdr = "#";
      std::string dots = "#";
      for (std::size_t c = 0; c < cols_.size(); ++c) {
        const Col& col = cols_[c];
        const std::string_view sep = c == 0      ? std::string_view(" ")
                                     : separated ? std::string_view(o_.field_separator)
                                                 : std::string_view("  ");
        hdr += sep;
        dots += sep;
        if (col.kind == ColKind::kKey)
          hdr += fmt::format("{:<{}}", col.header, col.width);
        else
          hdr += fmt::format("{:>{}}", col.header, col.width);
        dots += std::string(col.width, '.');
      }
      // perf prints no dot rule (nor the "#" under it) with a field separator.
      if (separated)
        out << hdr << "\n";
      else
        out << hdr << "\n" << dots << "\n#\n";
    }
    auto percent = [&](std::uint64_t v) {
      return pct(total > 0 ? 100.0 * static_cast<double>(v) / total : 0.0);
    };
    for (const auto* e : rows) {
      if (below_limit(e)) continue;
      std::string line = separated ? "" : " ";
      for (std::size_t c = 0; c < cols_.size(); ++c) {
        const Col& col = cols_[c];
        if (separated) {
          if (c > 0) line += o_.field_separator;
          line += separated_cell(*e, col, c + 1 == cols_.size(), percent);
          continue;
        }
        line += " ";
        if (c > 0) line += " ";
        switch (col.kind) {
          case ColKind::kChildren:
            line += fmt::format("{:>8}", children_ ? percent(e->acc) : std::string("N/A"));
            for (std::uint32_t m = 1; m < members_; ++m)
              line += fmt::format(
                  "{:>8}", children_ ? member_percent(m, e->m_acc[m - 1]) : std::string("N/A"));
            break;
          case ColKind::kSelf:
            line += fmt::format("{:>8}", percent(e->self));
            for (std::uint32_t m = 1; m < members_; ++m)
              line += fmt::format("{:>8}", member_percent(m, e->m_self[m - 1]));
            break;
          case ColKind::kSamples:
            line += fmt::format("{:>12}", e->nr_samples);
            for (std::uint32_t m = 1; m < members_; ++m)
              line += fmt::format("{:>12}", e->m_samples[m - 1]);
            break;
          case ColKind::kPeriod:
            line += fmt::format("{:>12}", e->self);  // perf: the self period
            for (std::uint32_t m = 1; m < members_; ++m)
              line += fmt::format("{:>12}", e->m_self[m - 1]);
            break;
          case ColKind::kKey:
            line += key_cell(cell_text(*e, col.key), col, c + 1 == cols_.size());
            break;
        }
      }
      out << line << "\n";
      if (want_chains_ && !e->chains.empty()) print_chains(out, *e, total);
    }
    out << "\n\n";
  }

 private:
  enum class ColKind : std::uint8_t { kChildren, kSelf, kSamples, kPeriod, kKey };
  struct Col {
    ColKind kind = ColKind::kKey;
    std::size_t key = 0;  // index into keys_ for kKey
    std::string header;
    std::size_t width = 8;
  };

  // A cell with -t (perf's field_sep): a value as " %.2f%%" / " %llu" padded after it to
  // the column width (hist_entry__snprintf_alignment()); a key as without -t, the
  // separator's first character in it turned into '.' (repsep_snprintf()).
  template <typename Percent>
  [[nodiscard]] std::string separated_cell(const Entry& e, const Col& col, bool last,
                                           const Percent& percent) const {
    std::string v;
    switch (col.kind) {
      case ColKind::kChildren:
        v = " " + (children_ ? percent(e.acc) : std::string("N/A"));
        break;
      case ColKind::kSelf:
        v = " " + percent(e.self);
        break;
      case ColKind::kSamples:
        v = fmt::format(" {}", e.nr_samples);
        break;
      case ColKind::kPeriod:
        v = fmt::format(" {}", e.self);
        break;
      case ColKind::kKey:
        v = cell_text(e, col.key);
        std::replace(v.begin(), v.end(), o_.field_separator.front(), '.');
        return key_cell(std::move(v), col, last);
    }
    return fmt::format("{:<{}}", v, col.width);
  }

  // A key column's cell: perf pads every column but the last to its width; the last one
  // shows its key's own format (sort.c's se_snprintf): Command, Shared Object, Pid, Tid,
  // Parent, CPU and Socket pad themselves ("%-*.*s", "%*.*d"), Symbol does not, and Time,
  // Source:Line and Source File are cut to the column, unpadded ("%-.*s"): a time under
  // 10,000 s is narrower than its 12-wide column. Commands, source lines and files are
  // cut to the column wherever they are.
  [[nodiscard]] std::string key_cell(std::string v, const Col& col, bool last) const {
    const Key k = keys_[col.key];
    if (last && k == Key::kSym) return v;
    if (last && (k == Key::kSrcline || k == Key::kSrcfile || k == Key::kTime))
      return fmt::format("{:.{}}", v, col.width);
    if (k == Key::kComm || k == Key::kSrcline || k == Key::kSrcfile)
      return fmt::format("{:<{}.{}}", v, col.width, col.width);
    return fmt::format("{:<{}}", v, col.width);
  }

  // perf's output fields: -F as given (then the sort keys it lacks), else Children + Self
  // (or Overhead), -n's Samples and the sort keys. Keys of one-value filters are elided.
  void setup_columns() {
    cols_.clear();
    auto add_key = [&](Key k) {
      if (elide_list(k, o_) != nullptr) return;
      for (const auto& c : cols_)
        if (c.kind == ColKind::kKey && keys_[c.key] == k) return;
      const auto idx =
          static_cast<std::size_t>(std::find(keys_.begin(), keys_.end(), k) - keys_.begin());
      cols_.push_back(Col{ColKind::kKey, idx, header_of(k), 0});
    };
    if (o_.fields.empty()) {
      if (children_) {
        cols_.push_back(Col{ColKind::kChildren, 0, "Children", 8});
        cols_.push_back(Col{ColKind::kSelf, 0, "Self", 8});
      } else {
        cols_.push_back(Col{ColKind::kSelf, 0, "Overhead", 8});
      }
      if (o_.show_nr_samples) cols_.push_back(Col{ColKind::kSamples, 0, "Samples", 12});
      if (o_.show_total_period) cols_.push_back(Col{ColKind::kPeriod, 0, "Period", 12});
    } else {
      for (const auto& f : o_.fields) {
        if (f == "overhead")
          cols_.push_back(Col{ColKind::kSelf, 0, "Overhead", 8});
        else if (f == "overhead_children")
          cols_.push_back(Col{ColKind::kChildren, 0, "Children", 8});
        else if (f == "sample")
          cols_.push_back(Col{ColKind::kSamples, 0, "Samples", 12});
        else if (f == "period")
          cols_.push_back(Col{ColKind::kPeriod, 0, "Period", 12});
        else if (const KeyInfo* ki = find_key(f))
          add_key(ki->key);
      }
    }
    for (Key k : keys_) add_key(k);
    // A group's value columns hold one value per member, each as wide as one.
    for (auto& c : cols_)
      if (c.kind != ColKind::kKey) c.width *= members_;
  }

  // A member's total: its event's, or with --percentage relative what passed the filters.
  [[nodiscard]] std::uint64_t member_total(std::uint32_t m) const {
    return o_.relative_percentage ? kept_period_[m] : p_.events[event_ + m].total_period;
  }
  // A member's share of its own total (perf's group columns).
  [[nodiscard]] std::string member_percent(std::uint32_t m, std::uint64_t v) const {
    const auto total = member_total(m);
    return pct(total > 0 ? 100.0 * static_cast<double>(v) / static_cast<double>(total) : 0.0);
  }
  // perf's evsel__group_desc(): "anon group { cpu-clock, task-clock }".
  [[nodiscard]] std::string group_text() const {
    std::string out = group_name_.empty() ? std::string("anon group") : group_name_;
    out += " { ";
    for (std::uint32_t m = 0; m < members_; ++m) {
      if (m > 0) out += ", ";
      out += p_.events[event_ + m].name;
    }
    return out + " }";
  }

  static bool unresolved(const profile::Frame& f) { return f.function == "[unknown]"; }

  // perf's machine__resolve() filters: the sample's own (leaf) DSO, short or long name,
  // and symbol.
  [[nodiscard]] bool passes_filters(const profile::Frame& f) const {
    if (!o_.dsos.empty() && std::find(o_.dsos.begin(), o_.dsos.end(), f.dso) == o_.dsos.end() &&
        std::find(o_.dsos.begin(), o_.dsos.end(), f.dso_path) == o_.dsos.end())
      return false;
    if (!o_.symbols.empty() && (unresolved(f) || std::find(o_.symbols.begin(), o_.symbols.end(),
                                                           f.function) == o_.symbols.end()))
      return false;
    return true;
  }

  // --comms, --pid, --tid (perf's thread__is_filtered()).
  [[nodiscard]] bool thread_passes(const profile::Thread& t) const {
    return o_.thread_filter.keeps(t.comm, t.pid, t.tid);
  }

  // --max-stack: the frames [first, last) of the stack that count. perf reads the first N
  // callchain entries in display order: the N nearest the leaf in callee order, the N
  // nearest the root in caller order (inline frames not counted).
  [[nodiscard]] std::pair<std::size_t, std::size_t> shown_range(std::uint32_t stack) const {
    const auto& st = p_.stacks[stack];
    if (!o_.max_stack) return {0, st.size()};
    const std::size_t limit = *o_.max_stack;
    std::size_t n = 0;
    if (o_.caller_order.value_or(children_)) {
      for (std::size_t i = 0; i < st.size(); ++i) {
        if (p_.frames[st[i]].inlined) continue;
        if (++n > limit) return {0, i};
      }
      return {0, st.size()};
    }
    for (std::size_t i = st.size(); i-- > 0;) {
      if (p_.frames[st[i]].inlined) continue;
      if (++n > limit) return {i + 1, st.size()};
    }
    return {0, st.size()};
  }

  struct SampleInfo {
    std::uint32_t stack = 0;
    std::uint32_t thread = 0;
    std::uint32_t cpu = 0;
    std::uint64_t time = 0;    // the time bucket (Key::kTime)
    std::uint64_t parent = 0;  // parent_of() the stack (Key::kParent)
  };

  // A member's values of an entry (member 0: the event, or the group's leader).
  static std::uint64_t& self_of(Entry& e, std::uint32_t m) {
    return m == 0 ? e.self : e.m_self[m - 1];
  }
  static std::uint64_t& acc_of(Entry& e, std::uint32_t m) {
    return m == 0 ? e.acc : e.m_acc[m - 1];
  }
  static std::uint64_t& samples_of(Entry& e, std::uint32_t m) {
    return m == 0 ? e.nr_samples : e.m_samples[m - 1];
  }
  // perf's __hpp__sort() for a group: the members' values in order after the leader's
  // (equal leaders); 0 when all are equal.
  [[nodiscard]] static int members_first(const std::vector<std::uint64_t>& a,
                                         const std::vector<std::uint64_t>& b) {
    for (std::size_t i = 0; i < a.size() && i < b.size(); ++i)
      if (a[i] != b[i]) return a[i] > b[i] ? -1 : 1;
    return 0;
  }

  // perf's parent (--sort parent, -p): the first function of the sample's callchain, in
  // the order the call graph shows it (callers first with --children or -G), whose name
  // matches the --parent regex; kNoParent ("[other]") when none does.
  static constexpr std::uint64_t kNoParent = ~std::uint64_t{0};
  std::uint64_t parent_of(std::uint32_t stack_index) {
    if (stack_index >= stack_parent_.size()) stack_parent_.resize(p_.stacks.size(), kUnknown);
    std::uint64_t& cached = stack_parent_[stack_index];
    if (cached != kUnknown) return cached;
    cached = kNoParent;
    const auto& stack = p_.stacks[stack_index];
    const bool caller_first = o_.caller_order.value_or(children_);
    for (std::size_t n = 0; n < stack.size(); ++n) {
      const auto& f = p_.frames[stack[caller_first ? n : stack.size() - 1 - n]];
      if (f.inlined || unresolved(f)) continue;
      if (std::regex_search(f.function, *parent_regex_)) {
        cached = strs_.id(f.function);
        break;
      }
    }
    return cached;
  }
  static constexpr std::uint64_t kUnknown = kNoParent - 1;

  // The socket of a sample's CPU from the recording's CPU topology (perf's
  // env->cpu[cpu].socket_id); -1 without a CPU field or a topology for that CPU.
  [[nodiscard]] int socket_of(std::uint32_t cpu) const {
    if (!p_.events[event_].has_cpu || cpu >= p_.cpu_sockets.size()) return -1;
    return p_.cpu_sockets[cpu];
  }

  [[nodiscard]] bool need(Key k) const {
    return std::find(keys_.begin(), keys_.end(), k) != keys_.end();
  }

  static std::string header_of(Key k) {
    for (const auto& ki : kKeys)
      if (ki.key == k) return std::string(ki.header);
    return {};
  }

  // perf's hist level of a frame: 'k' in a kernel map, '.' in any other; a frame without
  // a map has none of its own and shows `inherited` (the caller's rule above).
  static char level_of(const profile::Frame& f, char inherited) {
    if (f.mapping < 0 && unresolved(f)) return inherited;
    return f.kind == profile::FrameKind::kKernel ? 'k' : '.';
  }

  // `count`: the recorded samples this one stands for (Sample::count).
  Entry& entry_for(std::uint32_t frame, const SampleInfo& si, bool filtered, char level, bool raw,
                   std::uint64_t count) {
    key_buf_.clear();
    const auto& th = p_.threads[si.thread];
    for (Key k : keys_) {
      switch (k) {
        case Key::kComm:
          key_buf_.push_back(comms_.id(th.comm));
          break;
        case Key::kPid:  // perf 6.1's "pid" key is the thread (sort__thread_cmp)
          key_buf_.push_back(static_cast<std::uint32_t>(th.tid));
          break;
        case Key::kTid:
          key_buf_.push_back(static_cast<std::uint32_t>(th.tid));
          break;
        case Key::kDso:
          key_buf_.push_back(frame_dso_[frame]);
          break;
        case Key::kSym:
          key_buf_.push_back(raw ? frame_raw_sym_[frame] : frame_sym_[frame]);
          break;
        case Key::kSrcline:
          key_buf_.push_back(frame_srcline_[frame]);
          break;
        case Key::kSrcfile:
          key_buf_.push_back(frame_srcfile_[frame]);
          break;
        case Key::kCpu:
          key_buf_.push_back(si.cpu);
          break;
        case Key::kTime:
          key_buf_.push_back(si.time);
          break;
        case Key::kParent:
          key_buf_.push_back(si.parent);
          break;
        case Key::kSocket:
          key_buf_.push_back(static_cast<std::uint32_t>(socket_of(si.cpu)));
          break;
      }
    }
    for (auto& lazy : lazy_) note_group(lazy, count);
    auto [it, ins] = index_.try_emplace(key_buf_, entries_.size());
    if (ins) {
      Entry e;
      e.key = key_buf_;
      e.frame = frame;
      e.thread = si.thread;
      e.cpu = si.cpu;
      e.time = si.time;
      e.parent = si.parent;
      if (members_ > 1) {
        e.m_self.assign(members_ - 1, 0);
        e.m_acc.assign(members_ - 1, 0);
        e.m_samples.assign(members_ - 1, 0);
      }
      e.filtered = filtered;
      e.level = level;
      e.raw = raw;
      entries_.push_back(std::move(e));
    }
    return entries_[it->second];
  }

  // perf 6.1 looks an entry's source line or file up only when adding a sample compares
  // it with an entry of the same earlier keys (sort__srcline_cmp(), sort__srcfile_cmp());
  // the column is sized before the rest are looked up, so only entries of groups that
  // had more than one sample widen it (a lone sample's line is cut to the column).
  void note_group(LazyKey& lazy, std::uint64_t count) {
    // Per sample and frame: the prefix buffer is reused; the map copies it when new.
    prefix_buf_.assign(key_buf_.begin(), key_buf_.begin() + static_cast<std::ptrdiff_t>(lazy.key));
    auto [g, added] = lazy.groups.try_emplace(prefix_buf_, std::uint8_t{1});
    if (!added || count > 1) g->second = 2;
  }
  // Whether the entry's value of key `key` widens its column: always, but for a srcline
  // or srcfile key only when perf looked it up before sizing (note_group()).
  [[nodiscard]] bool found_early(std::size_t key, const Entry& e) const {
    for (const auto& lazy : lazy_) {
      if (lazy.key != key) continue;
      std::vector<std::uint64_t> prefix(e.key.begin(),
                                        e.key.begin() + static_cast<std::ptrdiff_t>(key));
      const auto g = lazy.groups.find(prefix);
      return g != lazy.groups.end() && g->second > 1;
    }
    return true;
  }

  // An unresolved frame of a mapped DSO: its callchain entries (--children) are keyed and
  // shown by its instruction address (Entry::raw).
  [[nodiscard]] static bool raw_frame(const profile::Frame& f) {
    return unresolved(f) && f.address != f.map_address;
  }
  // The address an unresolved entry is shown and ordered by.
  [[nodiscard]] static std::uint64_t shown_address(const profile::Frame& f, bool raw) {
    return raw ? f.address : f.map_address;
  }
  [[nodiscard]] static std::string sym_text(const profile::Frame& f, char level, bool raw) {
    if (unresolved(f))
      return fmt::format("[{}] {}", level, core::c_alt_hex18(shown_address(f, raw)));
    return fmt::format("[{}] {}", level, f.function);
  }

  // -s keys, then -F fields, in order: values highest first, keys by compare_key().
  [[nodiscard]] int compare_sort_then_fields(const Entry& a, const Entry& b) const {
    auto desc = [](std::uint64_t x, std::uint64_t y) { return x > y ? -1 : (x < y ? 1 : 0); };
    auto by = [&](const std::string& name) {
      if (name == "overhead" || name == "period") return desc(a.self, b.self);
      if (name == "overhead_children") return desc(a.acc, b.acc);
      if (name == "sample") return desc(a.nr_samples, b.nr_samples);
      const KeyInfo* ki = find_key(name);
      if (ki == nullptr) return 0;
      const auto c =
          static_cast<std::size_t>(std::find(keys_.begin(), keys_.end(), ki->key) - keys_.begin());
      return c < keys_.size() ? compare_key(c, a, b) : 0;
    };
    for (const auto& k : o_.sort)
      if (const int r = by(k); r != 0) return r;
    for (const auto& f : o_.fields)
      if (const int r = by(f); r != 0) return r;
    return tie_break(a, b);
  }

  // perf's sort functions for equal overheads: each key in order, names ascending.
  [[nodiscard]] int tie_break(const Entry& a, const Entry& b) const {
    for (std::size_t c = 0; c < keys_.size(); ++c)
      if (const int r = compare_key(c, a, b); r != 0) return r;
    return 0;
  }

  // perf's sort function of key `c` (keys_[c]): < 0 when `a` comes first.
  [[nodiscard]] int compare_key(std::size_t c, const Entry& a, const Entry& b) const {
    const auto& fa = p_.frames[a.frame];
    const auto& fb = p_.frames[b.frame];
    const auto& ta = p_.threads[a.thread];
    const auto& tb = p_.threads[b.thread];
    auto num = [](std::int64_t x, std::int64_t y) { return x < y ? -1 : (x > y ? 1 : 0); };
    int r = 0;
    switch (keys_[c]) {
      case Key::kComm:
        r = ta.comm.compare(tb.comm);
        break;
      case Key::kPid:
        r = num(ta.tid, tb.tid);
        break;
      case Key::kTid:
        r = num(ta.tid, tb.tid);
        break;
      case Key::kDso:
        // perf's sort__dso_sort(): an entry without a map (perf's "[unknown]") after the
        // others (cmp_null).
        if ((fa.dso == "[unknown]") != (fb.dso == "[unknown]"))
          r = fa.dso == "[unknown]" ? 1 : -1;
        else
          r = fa.dso.compare(fb.dso);
        break;
      case Key::kSym:
        // perf's sort__sym_sort(): unresolved after resolved (cmp_null).
        if (unresolved(fa) != unresolved(fb))
          r = unresolved(fa) ? 1 : -1;
        else if (unresolved(fa))
          r = num(static_cast<std::int64_t>(shown_address(fa, a.raw)),
                  static_cast<std::int64_t>(shown_address(fb, b.raw)));
        else
          r = fa.function.compare(fb.function);
        break;
      case Key::kCpu:
        r = num(a.cpu, b.cpu);
        break;
      case Key::kSocket:
        r = num(socket_of(a.cpu), socket_of(b.cpu));
        break;
      case Key::kParent:  // perf's sort__parent_cmp(): [other] last, names ascending
        if ((a.parent == kNoParent) != (b.parent == kNoParent))
          r = a.parent == kNoParent ? 1 : -1;
        else if (a.parent != kNoParent)
          r = strs_.name(a.parent).compare(strs_.name(b.parent));
        break;
      case Key::kTime:  // earlier first (as perf 6.1 orders equal entries)
        r = num(static_cast<std::int64_t>(a.time), static_cast<std::int64_t>(b.time));
        break;
      default:
        r = cell_text(a, c).compare(cell_text(b, c));
        break;
    }
    return r;
  }

  [[nodiscard]] std::string cell_text(const Entry& e, std::size_t c) const {
    const auto& f = p_.frames[e.frame];
    const auto& th = p_.threads[e.thread];
    switch (keys_[c]) {
      case Key::kComm:
        return th.comm;
      case Key::kPid:  // perf: thread id and the thread's last comm
        return fmt::format("{:>7}:{}", th.tid, last_comm(th.tid));
      case Key::kTid:
        return fmt::format("{:>7}:{}", th.tid, th.comm);
      case Key::kDso:
        return f.dso;
      case Key::kSym:
        return sym_text(f, e.level, e.raw);
      case Key::kSrcline:
        return frame_srcline(f, o_.full_source_path);
      case Key::kSrcfile:
        return srcfile_of(f);
      case Key::kParent:
        return e.parent == kNoParent ? std::string("[other]") : strs_.name(e.parent);
      case Key::kSocket: {  // perf's "%*.*d": the column's width, three digits
        const int socket = socket_of(e.cpu);
        return fmt::format(
            "{:>6}", socket < 0 ? fmt::format("-{:03}", -socket) : fmt::format("{:03}", socket));
      }
      case Key::kTime:  // perf's timestamp__scnprintf_usec(), cut to the column ("%-.*s")
        return fmt::format("{}.{:06}", e.time / 1000000000u, e.time % 1000000000u / 1000u)
            .substr(0, kTimeWidth);
      case Key::kCpu:
        // perf's "%*.*d" of sample->cpu, which is -1 when the event has no CPU field.
        if (!p_.events[event_].has_cpu) return "-001";
        return fmt::format("{:03}", e.cpu);
    }
    return {};
  }

  [[nodiscard]] std::string srcfile_of(const profile::Frame& f) const {
    if (f.file.empty()) return {};
    return o_.full_source_path ? f.file : basename(f.file);
  }

  // The comm a thread had last (perf prints thread__comm_str() at the end): threads are
  // in first-sample order, a comm change adds a later entry for the same tid.
  [[nodiscard]] const std::string& last_comm(std::int32_t tid) const {
    if (last_comm_.empty())
      for (const auto& t : p_.threads) last_comm_[t.tid] = &t.comm;
    return *last_comm_.at(tid);
  }

  [[nodiscard]] std::string frame_name(std::uint32_t fi) const {
    const auto& f = p_.frames[fi];
    // perf's "%#" PRIx64 of the instruction address (callchain_list__sym_name(): cl->ip,
    // not the map-relative one the Symbol column shows): "0" for a zero address.
    if (unresolved(f)) return f.address == 0 ? std::string("0") : fmt::format("{:#x}", f.address);
    return f.inlined ? f.function + " (inlined)" : f.function;
  }

  // The callchain of a stack for display, leaf first (callee order) unless caller order.
  // A node of a callchain as perf shows it, and a frame of it (for sibling order).
  struct ChainLink {
    std::string name;
    std::uint32_t frame = 0;
  };
  [[nodiscard]] std::vector<ChainLink> chain_names(std::uint64_t chain) const {
    const auto stack = static_cast<std::uint32_t>(chain >> 16);
    const auto& st = p_.stacks[stack];
    const std::size_t part = chain & 0xffffu;
    const auto [lo, hi] = shown_range(stack);  // --max-stack
    std::vector<ChainLink> names;
    auto add = [&](std::size_t i) {
      if (o_.hide_unresolved && unresolved(p_.frames[st[i]])) return;
      names.push_back({frame_name(st[i]), st[i]});
    };
    if (callee_children_ && part != 0) {  // stack[part-1] and its callers
      for (std::size_t i = part; i-- > lo;) add(i);
      return names;
    }
    for (std::size_t i = hi; i-- > std::max(part, lo);) add(i);
    const bool caller = o_.caller_order.value_or(children_);
    if (caller) std::reverse(names.begin(), names.end());
    return names;
  }

  // perf's callchain tree: chains merged by function (perf's default callchain key), not
  // by address or stack. `period` is the node's cumulative period (chains through it),
  // `hit` the period of the chains that end at it.
  struct Node {
    std::string name;
    std::uint64_t period = 0;
    std::vector<Node> kids;
    std::uint64_t hit = 0;
    std::uint32_t frame = 0;  // the first frame merged into it
  };

  // The order perf gives siblings of equal period: that of its rb_root_in, where a new
  // node goes left of those it compares greater to (append_chain_children()), so
  // descending by match_chain(): inline frames by name, symbols by DSO, then start,
  // other frames by DSO, then address. perf compares DSOs by pointer: here by their
  // mapping's index, which is as arbitrary (siblings of equal period from two DSOs may
  // come in the other order).
  [[nodiscard]] bool before_at_equal_period(const Node& a, const Node& b) const {
    const auto& fa = p_.frames[a.frame];
    const auto& fb = p_.frames[b.frame];
    const bool symbols = !unresolved(fa) && !unresolved(fb);
    if (symbols && (fa.inlined || fb.inlined)) return a.name > b.name;
    if (fa.mapping != fb.mapping) return fa.mapping > fb.mapping;
    if (symbols) return fa.address - fa.symbol_offset > fb.address - fb.symbol_offset;
    return fa.address > fb.address;
  }

  // perf's callchain threshold: a chain is shown when its period reaches the event's
  // total times the threshold percentage, cut to an integer (output_resort()'s u64
  // min_callchain_hits): with 350 samples and 0.5%, one sample is enough.
  [[nodiscard]] bool above_threshold(std::uint64_t period, double total) const {
    return static_cast<double>(period) >= std::floor(total * o_.graph_threshold / 100.0);
  }

  // perf's sort_chain_flat(): every node where chains end (hit >= the threshold), as the
  // path from the root. Ordered by hit, descending (equal hits: by path).
  struct FlatChain {
    std::vector<std::string> path;
    std::uint64_t hit = 0;
    std::uint64_t cumulative = 0;
  };
  void collect_flat(const Node& node, std::vector<std::string>& path, double total,
                    std::vector<FlatChain>& out) const {
    for (const auto& k : node.kids) {
      path.push_back(k.name);
      if (k.hit > 0 && above_threshold(k.hit, total))
        out.push_back(FlatChain{path, k.hit, k.period});
      collect_flat(k, path, total, out);
      path.pop_back();
    }
  }

  static void add_chain(Node& root, const std::vector<ChainLink>& names, std::size_t from,
                        std::uint64_t period) {
    Node* cur = &root;
    for (std::size_t i = from; i < names.size(); ++i) {
      Node* next = nullptr;
      for (auto& k : cur->kids)
        if (k.name == names[i].name) next = &k;
      if (next == nullptr) {
        cur->kids.push_back(Node{names[i].name, 0, {}, 0, names[i].frame});
        next = &cur->kids.back();
      }
      next->period += period;
      cur = next;
    }
    cur->hit += period;
  }

  // perf's graph layout: a path without branches continues on the next line at the same
  // indent; at a branch every child gets "|--pct--name" ("--pct--" for the last one).
  void print_graph(std::ostream& out, const Node& node, const std::string& prefix,
                   double total) const {
    std::vector<const Node*> kids;
    for (const auto& k : node.kids)
      if (above_threshold(k.period, total)) kids.push_back(&k);
    std::sort(kids.begin(), kids.end(), [&](const Node* a, const Node* b) {
      return a->period != b->period ? a->period > b->period : before_at_equal_period(*a, *b);
    });
    if (kids.size() == 1 && kids[0]->period == node.period) {
      out << prefix << kids[0]->name << "\n";
      print_graph(out, *kids[0], prefix, total);
      return;
    }
    for (std::size_t i = 0; i < kids.size(); ++i) {
      const Node* k = kids[i];
      const bool last = i + 1 == kids.size();
      out << prefix << "|          \n";
      out << prefix << (last ? " --" : "|--") << pct(100.0 * static_cast<double>(k->period) / total)
          << "--" << k->name << "\n";
      print_graph(out, *k, prefix + (last ? "           " : "|          "), total);
    }
  }

  void print_chains(std::ostream& out, const Entry& e, double total) const {
    std::vector<std::pair<std::uint64_t, std::uint64_t>> chains(e.chains.begin(), e.chains.end());
    std::sort(chains.begin(), chains.end(), [](const auto& a, const auto& b) {
      return a.second != b.second ? a.second > b.second : a.first < b.first;
    });
    Node root{"", 0, {}};
    for (const auto& [chain, period] : chains) {
      root.period += period;
      add_chain(root, chain_names(chain), 0, period);
    }
    if (o_.graph == GraphMode::kFolded || o_.graph == GraphMode::kFlat) {
      std::vector<FlatChain> flat;
      std::vector<std::string> path;
      collect_flat(root, path, total, flat);
      std::stable_sort(flat.begin(), flat.end(), [](const FlatChain& a, const FlatChain& b) {
        return a.hit != b.hit ? a.hit > b.hit : a.path < b.path;
      });
      if (o_.graph == GraphMode::kFolded) {
        // perf prints a folded chain's own hits; a flat one's cumulative period.
        for (const auto& c : flat) {
          std::string line;
          for (std::size_t i = 0; i < c.path.size(); ++i) line += (i ? ";" : "") + c.path[i];
          out << pct(100.0 * static_cast<double>(c.hit) / total) << " " << line << "\n";
        }
        out << "\n";
        return;
      }
      for (const auto& c : flat) {
        out << "           " << pct(100.0 * static_cast<double>(c.cumulative) / total) << "\n";
        for (const auto& n : c.path) out << "                " << n << "\n";
      }
      return;
    }
    if (!above_threshold(root.period, total)) return;
    // perf leaves chains under the threshold out of the graph, and prints no blank line
    // for a graph with nothing in it (a leaf's entry whose callees are all below it).
    if (std::none_of(root.kids.begin(), root.kids.end(),
                     [&](const Node& k) { return above_threshold(k.period, total); }))
      return;
    // The first node hangs off "---"; everything below is indented under it.
    if (root.kids.size() == 1) {
      out << "            |\n";
      const Node& first = root.kids[0];
      out << "            ---" << first.name << "\n";
      print_graph(out, first, "               ", total);
    } else {
      print_graph(out, root, "            ", total);
    }
    out << "\n";
  }

  const profile::Profile& p_;
  const ReportOptions& o_;
  std::uint32_t event_;
  std::uint32_t members_ = 1;  // events in the report: a group's, from event_ on
  std::string group_name_;
  bool in_group_ = false;  // one event of a group shown alone (--no-group): "of events"
  std::vector<Key> keys_;
  bool children_ = false;
  bool want_chains_ = false;
  bool callee_children_ = false;  // -g ...,callee with --children
  Interner dsos_, syms_, strs_, comms_;
  std::optional<std::regex> parent_regex_;   // --parent, when a sample's parent is needed
  std::vector<std::uint64_t> stack_parent_;  // parent_of() per stack
  std::vector<std::uint64_t> frame_dso_, frame_sym_, frame_srcline_, frame_srcfile_;
  std::vector<std::uint64_t> frame_raw_sym_;  // sym key of a raw_frame()'s callchain entries
  std::vector<LazyKey> lazy_;
  std::vector<std::uint64_t> prefix_buf_;  // note_group()'s lookup key
  mutable std::unordered_map<std::int32_t, const std::string*> last_comm_;
  std::vector<Entry> entries_;
  std::unordered_map<std::vector<std::uint64_t>, std::size_t, U64VecHash> index_;
  std::vector<std::uint64_t> key_buf_;
  std::vector<Col> cols_;
  // Per member (the event, or a group's leader first): samples that pass --dsos/--symbols
  // (relative %).
  std::vector<std::uint64_t> kept_period_, kept_samples_;
  std::uint64_t hidden_period_ = 0;  // --hide-unresolved: samples left out of the totals
  std::uint64_t hidden_samples_ = 0;
};

}  // namespace

Result<void> write_report(std::ostream& out, const profile::Profile& profile,
                          const ReportOptions& options) {
  PERFX_CHECK(validate_sort_keys(options.sort));
  PERFX_CHECK(validate_fields(options.fields));
  if (options.header_hint && !options.quiet)
    out << "# To display the perf.data header info, please use --header/--header-only "
           "options.\n#\n";
  // perf's sort__setup_elide(): "# dso: X" for a one-value filter of a shown key.
  for (Key k : entry_keys(options)) {
    if (const auto* list = elide_list(k, options)) {
      const std::string_view name = k == Key::kSym ? "symbol" : (k == Key::kDso ? "dso" : "comm");
      out << "# " << name << ": " << list->front() << "\n";
    }
  }
  // perf's evlist__tty_browse_hists(): the "#" after this line is its own, not a
  // section's (sections after the first start at "# Samples").
  if (!options.quiet) out << "#\n# Total Lost Samples: " << profile.lost_samples << "\n#\n";
  for (std::uint32_t ev = 0; ev < profile.events.size(); ++ev) {
    const profile::EventGroup* group = nullptr;
    bool in_group = false;  // perf says "of events" for a group's leader, even alone
    for (const auto& g : profile.event_groups) {
      if (ev == g.leader) in_group = true;  // perf's evsel__is_group_event(): a leader
      if (options.group && g.leader == ev && g.members > 1 &&
          g.members <= profile.events.size() - ev)
        group = &g;
    }
    const std::uint32_t members = group != nullptr ? group->members : 1;
    std::uint64_t samples = 0;
    for (std::uint32_t m = 0; m < members; ++m) samples += profile.events[ev + m].total_samples;
    if (samples > 0) {
      EventReport r(profile, options, ev, members, group != nullptr ? group->name : std::string(),
                    in_group);
      r.build();
      r.print(out);
    }
    ev += members - 1;
  }
  if (!out) return fail(Errc::kIo, "writing the report failed");
  return {};
}

}  // namespace perfx::report
