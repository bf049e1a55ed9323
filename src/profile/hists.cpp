#include "profile/hists.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <cctype>
#include <regex>
#include <tuple>

namespace perfx::profile {
namespace {

// perf 6.1's sort dimensions in the order sort_dimension__add() tries them (a prefix,
// or the whole name, names the first that starts with it; "sym" is the symbol); "tid"
// and "time" as perfx has them.
constexpr std::pair<std::string_view, SortKey> kPerfOrder[] = {
    {"pid", SortKey::kPid},
    {"comm", SortKey::kComm},
    {"dso", SortKey::kDso},
    {"symbol", SortKey::kSym},
    {"parent", SortKey::kParent},
    {"cpu", SortKey::kCpu},
    {"socket", SortKey::kSocket},
    {"srcline", SortKey::kSrcline},
    {"srcfile", SortKey::kSrcfile},
    {"trace", SortKey::kTrace},
    {"symbol_size", SortKey::kSymbolSize},
    {"dso_size", SortKey::kDsoSize},
    {"time", SortKey::kTime},
    {"tid", SortKey::kTid},
};

// perf's output fields, which --sort also takes (hpp_sort_dimensions): tried after the
// keys, so "p" is pid and "pe" period.
constexpr std::string_view kFieldOrder[] = {
    "overhead",          "overhead_sys",      "overhead_us", "overhead_guest_sys",
    "overhead_guest_us", "overhead_children", "sample",      "period"};

bool iprefix(std::string_view prefix, std::string_view name) {
  if (prefix.empty() || prefix.size() > name.size()) return false;
  for (std::size_t i = 0; i < prefix.size(); ++i)
    if (std::tolower(static_cast<unsigned char>(prefix[i])) != name[i]) return false;
  return true;
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

// perf's sym key (sort__sym_cmp()): the symbol itself, by its start in its DSO, so that
// overloads, whose names print alike without parameters, stay apart; inline frames by
// name and the start of the symbol they were inlined into (_sort__sym_cmp(): inline
// symbols of one name are equal when their ranges overlap); unresolved ones by address
// (map-relative, or the instruction's for a raw entry).
struct SymIdentity {
  enum class Kind : std::uint8_t { kUnresolved, kInlined, kSymbol, kRaw };
  Kind kind = Kind::kUnresolved;
  std::uint64_t dso = 0;       // interned DSO name (inlined, symbol)
  std::uint64_t function = 0;  // interned function name (inlined, symbol)
  std::uint64_t address = 0;   // map address (unresolved), symbol start, or instruction
  friend bool operator==(const SymIdentity&, const SymIdentity&) = default;
};
struct SymIdentityHash {
  std::size_t operator()(const SymIdentity& s) const noexcept {
    return U64VecHash{}({static_cast<std::uint64_t>(s.kind), s.dso, s.function, s.address});
  }
};

// Builds one Hists (see build_hists()).
class Builder {
  struct LazyKey {    // a srcline or srcfile key (see note_group())
    std::size_t key;  // its position in the keys
    // Samples seen per value of the keys before it: 1, or 2 for "more than one".
    std::unordered_map<std::vector<std::uint64_t>, std::uint8_t, U64VecHash> groups;
  };
  struct SampleInfo {
    std::uint32_t stack = 0;
    std::uint32_t thread = 0;
    std::uint32_t cpu = 0;
    std::uint64_t time = 0;                   // the time bucket (SortKey::kTime)
    std::uint32_t parent = 0;                 // parent_of() the stack (SortKey::kParent)
    std::uint32_t trace = Profile::kNoTrace;  // the sample's text (SortKey::kTrace)
  };

 public:
  Builder(Hists& h) : h_(h), p_(*h.profile), o_(h.options) {
    for (std::size_t i = 0; i < o_.keys.size(); ++i) {
      // (perf's trace_output is made as lazily: sort__trace_cmp())
      if (o_.keys[i] == SortKey::kSrcline || o_.keys[i] == SortKey::kSrcfile ||
          o_.keys[i] == SortKey::kTrace)
        lazy_.push_back({i, {}});
    }
  }

  void build() {
    const auto& ev = p_.events[h_.event];
    h_.children = o_.children && ev.has_callchain;
    h_.callchains = ev.has_callchain && o_.callchains;
    h_.callee_children = h_.children && !o_.caller_order.value_or(true);
    h_.kept_period.assign(h_.members, 0);
    h_.kept_samples.assign(h_.members, 0);
    h_.seen_period.assign(h_.members, 0);
    intern_frames();
    if (!o_.ignore_callees.empty() && ev.has_callchain) h_.cuts = ignore_callees_cuts(h_);
    // Group samples by (stack, thread, cpu, time bucket): the last two only when keys.
    struct Group {
      SampleInfo info;
      std::uint64_t period = 0;
      std::uint64_t count = 0;
      std::uint32_t member = 0;  // of the event group (0: the leader, or the event)
    };
    std::vector<Group> groups;
    std::unordered_map<std::vector<std::uint64_t>, std::size_t, U64VecHash> group_of;
    const bool by_cpu = need(SortKey::kCpu) || need(SortKey::kSocket);
    const bool by_time = need(SortKey::kTime);
    const bool by_parent = need(SortKey::kParent) || o_.exclude_other;
    if (by_parent)
      parent_regex_.emplace(o_.parent_regex, std::regex::extended | std::regex::nosubs);
    const bool by_trace = need(SortKey::kTrace) && p_.sample_traces.size() == p_.samples.size();
    std::vector<std::uint64_t> gk(6);
    for (std::size_t si = 0; si < p_.samples.size(); ++si) {
      const auto& s = p_.samples[si];
      const std::uint32_t ev_index = s.event;
      if (ev_index < h_.event || ev_index - h_.event >= h_.members) continue;
      const std::uint32_t member = ev_index - h_.event;
      h_.seen_period[member] += s.period;
      // Without PERF_SAMPLE_CPU every sample is on perf's cpu -1.
      const std::uint32_t cpu = ev.has_cpu ? s.cpu : 0xffffffffu;
      // perf's hist_time(): the sample's time rounded down to --time-quantum.
      const std::uint64_t bucket =
          by_time && o_.time_quantum_ns > 0 ? s.time_ns - s.time_ns % o_.time_quantum_ns : 0;
      const std::uint32_t parent = by_parent ? parent_of(s.stack) : kNoParent;
      // -x: perf adds no entry for a sample without a parent (it stays in the totals).
      if (o_.exclude_other && parent == kNoParent) continue;
      const std::uint32_t trace = by_trace ? p_.sample_traces[si] : Profile::kNoTrace;
      gk = {s.stack, s.thread, by_cpu ? cpu : 0u, bucket, member, trace};
      auto [git, gnew] = group_of.try_emplace(gk, groups.size());
      if (gnew)
        groups.push_back(
            Group{SampleInfo{s.stack, s.thread, cpu, bucket, parent, trace}, 0, 0, member});
      auto& g = groups[git->second];
      g.period += s.period;
      g.count += s.count;
    }
    // perf creates hist entries in sample order, and an entry keeps the filter verdict of
    // the sample that created it: the groups are in the order of their first sample.
    for (const Group& g : groups) add_group(g.info, g.member, g.period, g.count);
    finish_lookups();
  }

 private:
  void intern_frames() {
    frame_dso_.resize(p_.frames.size());
    frame_sym_.resize(p_.frames.size());
    frame_raw_sym_.resize(p_.frames.size());
    frame_srcline_.resize(p_.frames.size());
    frame_srcfile_.resize(p_.frames.size());
    const bool srcline = need(SortKey::kSrcline);
    const bool srcfile = need(SortKey::kSrcfile);
    for (std::size_t i = 0; i < p_.frames.size(); ++i) {
      const auto& f = p_.frames[i];
      frame_dso_[i] = dsos_.id(f.dso);
      SymIdentity sym;
      if (unresolved(f)) {
        sym.address = f.map_address;
      } else {
        sym.kind = f.inlined ? SymIdentity::Kind::kInlined : SymIdentity::Kind::kSymbol;
        sym.dso = frame_dso_[i];
        sym.function = names_.id(f.function);
        sym.address = f.inlined ? inlined_into(i) : f.map_address - f.symbol_offset;
      }
      frame_sym_[i] = sym_id(sym);
      if (raw_frame(f)) frame_raw_sym_[i] = sym_id({SymIdentity::Kind::kRaw, 0, 0, process_ip(f)});
      if (srcline) frame_srcline_[i] = strs_.id(frame_srcline(f, o_.full_source_path));
      if (srcfile) frame_srcfile_[i] = strs_.id(frame_srcfile(f, o_.full_source_path));
    }
  }

  // The start of the symbol inline frame `i` was expanded from: load_profile() puts a
  // location's inline frames right after its own frame (same address); 0 when not so.
  [[nodiscard]] std::uint64_t inlined_into(std::size_t i) const {
    const auto& f = p_.frames[i];
    for (std::size_t j = i; j-- > 0;) {
      const auto& g = p_.frames[j];
      if (g.map_address != f.map_address || g.mapping != f.mapping) break;
      if (!g.inlined) return g.map_address - g.symbol_offset;
    }
    return 0;
  }

  std::uint64_t sym_id(const SymIdentity& s) {
    return syms_.try_emplace(s, syms_.size()).first->second;
  }

  // One (stack, thread, cpu, time, member) group of samples.
  void add_group(const SampleInfo& si, std::uint32_t m, std::uint64_t period, std::uint64_t count) {
    const auto& stack = p_.stacks[si.stack];
    // The leaf: last non-inlined frame (--ignore-callees: the frame the cut kept).
    std::size_t leaf = stack.size();
    for (std::size_t i = stack.size(); i-- > 0;) {
      if (!p_.frames[stack[i]].inlined) {
        leaf = i;
        break;
      }
    }
    if (si.stack < h_.cuts.size() && h_.cuts[si.stack].self != StackCut::kNoCut)
      leaf = h_.cuts[si.stack].self;
    const bool thread_kept = thread_passes(p_.threads[si.thread]);
    if (leaf == stack.size()) {
      if (!o_.keep_frameless) return;
      HistEntry& e = entry_for(kNoFrame, si, !thread_kept, '.', false, count);
      add_self(e, m, period, count);
      return;
    }
    const auto& leaf_frame = p_.frames[stack[leaf]];
    // perf report drops such a sample before its histograms, whose statistics are the
    // header's sample count and event count.
    if (o_.hide_unresolved && unresolved(leaf_frame)) {
      if (m == 0) {
        h_.hidden_period += period;
        h_.hidden_samples += count;
      }
      return;
    }
    // perf's thread filter marks the sample's entries like --dsos/--symbols do (and an
    // entry keeps the verdict of the sample that created it).
    const bool filtered = !passes_filters(leaf_frame) || !thread_kept;
    // The leaf's entry always gets the sample (perf adds it from the sample's own ip);
    // the other frames only within --max-stack.
    const auto [lo, hi] = shown_range(h_, si.stack);
    // perf's addr_location starts as the sample's (its leaf's level) and is refilled
    // from each callchain entry in turn; an entry without a map keeps the level left by
    // the one before it (fill_callchain_info() leaves it alone).
    char level = leaf_frame.kind == FrameKind::kKernel ? 'k' : '.';
    HistEntry& le = entry_for(stack[leaf], si, filtered, level, false, count);
    add_self(le, m, period, count, leaf_frame.kind == FrameKind::kKernel);
    const auto leaf_idx = static_cast<std::uint32_t>(&le - h_.entries.data());
    values_of(le, m).children += period;
    // The call graphs are the leader's (the first event of a group).
    const bool chains = h_.callchains && m == 0;
    if (chains) add_chain_value(le.chains[ChainPart{si.stack, 0}], period, count);
    if (!h_.children) return;
    // Chain lengths as perf's cursor has them: a sample_only frame is not in it.
    hidden_.assign(1, 0);
    for (const auto fi : stack)
      hidden_.push_back(hidden_.back() + (p_.frames[fi].sample_only ? 1 : 0));
    auto chain_len = [&](std::size_t from, std::size_t to) {
      return to - from - (hidden_[to] - hidden_[from]);
    };
    le.max_depth = std::max(le.max_depth, chain_len(lo, hi));
    seen_.clear();
    seen_.push_back(leaf_idx);
    // perf walks its callchain cursor in display order and gives each entry the rest of
    // the chain from that frame on (once per sample, for the first occurrence): in
    // caller order the frame and its callees (the leaf: the whole chain), in callee
    // order the frame and its callers.
    for (std::size_t n = 0; n < stack.size(); ++n) {
      const std::size_t i = h_.callee_children ? stack.size() - 1 - n : n;
      if (i != leaf && (i < lo || i >= hi)) continue;
      const auto& f = p_.frames[stack[i]];
      // perf's callchain holds inline frames (append_inlines()), and for an address whose
      // DWARF names its function otherwise, that name instead of the symbol's.
      if (f.sample_only) continue;
      if (o_.hide_unresolved && unresolved(f)) continue;
      level = level_of(f, level);
      // perf fills these entries from its callchain nodes, whose address is the
      // instruction's own (fill_callchain_info()): an unresolved frame in a mapped DSO
      // (a stripped binary) is then another entry than the sample's map-relative one,
      // also for the leaf (perf shows both rows).
      HistEntry& e = entry_for(stack[i], si, filtered, level, raw_frame(f), count);
      const auto idx = static_cast<std::uint32_t>(&e - h_.entries.data());
      if (std::find(seen_.begin(), seen_.end(), idx) != seen_.end()) continue;
      seen_.push_back(idx);
      values_of(e, m).children += period;
      if (!chains) continue;
      std::uint32_t part = 0;  // 0 = the whole chain
      if (idx != leaf_idx) {
        part = static_cast<std::uint32_t>(h_.callee_children ? i + 1 : i);
        e.max_depth =
            std::max(e.max_depth, h_.callee_children ? chain_len(lo, i + 1) : chain_len(i, hi));
      }
      add_chain_value(e.chains[ChainPart{si.stack, part}], period, count);
    }
  }

  static void add_chain_value(ChainValue& v, std::uint64_t period, std::uint64_t count) {
    v.period += period;
    v.count += count;
  }

  void add_self(HistEntry& e, std::uint32_t m, std::uint64_t period, std::uint64_t count,
                bool kernel = false) {
    values_of(e, m).self += period;
    if (kernel) values_of(e, m).self_sys += period;
    values_of(e, m).samples += count;
    // perf counts a sample as kept when its leaf's entry is (hists__inc_nr_samples()
    // with he->filtered): that entry may have been made, and filtered, by an earlier
    // sample whose leaf failed the filter (a kernel leaf in children mode).
    if (!e.filtered) {
      h_.kept_period[m] += period;
      h_.kept_samples[m] += count;
    }
  }

  static HistValues& values_of(HistEntry& e, std::uint32_t m) {
    return m == 0 ? e.values : e.others[m - 1];
  }

  // perf's machine__resolve() filters: the sample's own (leaf) DSO, short or long name,
  // and symbol.
  [[nodiscard]] bool passes_filters(const Frame& f) const {
    if (!o_.dsos.empty() && std::find(o_.dsos.begin(), o_.dsos.end(), f.dso) == o_.dsos.end() &&
        std::find(o_.dsos.begin(), o_.dsos.end(), f.dso_path) == o_.dsos.end())
      return false;
    if (!o_.symbols.empty() && (unresolved(f) || std::find(o_.symbols.begin(), o_.symbols.end(),
                                                           f.function) == o_.symbols.end()))
      return false;
    return true;
  }

  // --comms, --pid, --tid (perf's thread__is_filtered()).
  [[nodiscard]] bool thread_passes(const Thread& t) const {
    return o_.thread_filter.keeps(t.comm, t.pid, t.tid);
  }

  // perf's parent (--sort parent, -p): the first function of the sample's callchain, in
  // the order the call graph shows it (callers first with --children or -G), whose name
  // matches the --parent regex; kNoParent ("[other]") when none does.
  std::uint32_t parent_of(std::uint32_t stack_index) {
    constexpr std::uint32_t kUnknown = kNoParent - 1;
    if (stack_index >= stack_parent_.size()) stack_parent_.resize(p_.stacks.size(), kUnknown);
    std::uint32_t& cached = stack_parent_[stack_index];
    if (cached != kUnknown) return cached;
    cached = kNoParent;
    const auto& stack = p_.stacks[stack_index];
    const bool caller_first =
        o_.caller_order.value_or(o_.children && p_.events[h_.event].has_callchain);
    for (std::size_t n = 0; n < stack.size(); ++n) {
      const auto& f = p_.frames[stack[caller_first ? n : stack.size() - 1 - n]];
      if (f.inlined || unresolved(f)) continue;
      if (std::regex_search(f.function, *parent_regex_)) {
        const auto id = static_cast<std::uint32_t>(parent_names_.id(f.function));
        if (id == h_.parents.size()) h_.parents.push_back(f.function);
        cached = id;
        break;
      }
    }
    return cached;
  }

  [[nodiscard]] bool need(SortKey k) const {
    return std::find(o_.keys.begin(), o_.keys.end(), k) != o_.keys.end();
  }

  // perf's hist level of a frame: 'k' in a kernel map, '.' in any other; a frame without
  // a map has none of its own and shows `inherited` (the caller's rule above).
  static char level_of(const Frame& f, char inherited) {
    if (f.mapping < 0 && unresolved(f)) return inherited;
    return f.kind == FrameKind::kKernel ? 'k' : '.';
  }

  // An unresolved frame of a mapped DSO: its callchain entries (--children) are keyed and
  // shown by its instruction address (HistEntry::raw).
  [[nodiscard]] static bool raw_frame(const Frame& f) {
    return unresolved(f) && process_ip(f) != f.map_address;
  }

  // `count`: the recorded samples this one stands for (Sample::count).
  HistEntry& entry_for(std::uint32_t frame, const SampleInfo& si, bool filtered, char level,
                       bool raw, std::uint64_t count) {
    key_buf_.clear();
    const auto& th = p_.threads[si.thread];
    const bool frameless = frame == kNoFrame;
    for (SortKey k : o_.keys) {
      switch (k) {
        case SortKey::kComm:
          key_buf_.push_back(comms_.id(th.comm));
          break;
        case SortKey::kPid:  // perf 6.1's "pid" key is the thread (sort__thread_cmp)
        case SortKey::kTid:
          key_buf_.push_back(static_cast<std::uint32_t>(th.tid));
          break;
        case SortKey::kDso:
          key_buf_.push_back(frameless ? ~std::uint64_t{0} : frame_dso_[frame]);
          break;
        case SortKey::kSym:
          key_buf_.push_back(frameless ? ~std::uint64_t{0}
                             : raw     ? frame_raw_sym_[frame]
                                       : frame_sym_[frame]);
          break;
        case SortKey::kSrcline:
          key_buf_.push_back(frameless ? ~std::uint64_t{0} : frame_srcline_[frame]);
          break;
        case SortKey::kSrcfile:
          key_buf_.push_back(frameless ? ~std::uint64_t{0} : frame_srcfile_[frame]);
          break;
        case SortKey::kCpu:
          key_buf_.push_back(si.cpu);
          break;
        case SortKey::kTime:
          key_buf_.push_back(si.time);
          break;
        case SortKey::kParent:
          key_buf_.push_back(si.parent);
          break;
        case SortKey::kSocket:
          key_buf_.push_back(static_cast<std::uint32_t>(socket_of(h_, si.cpu)));
          break;
        case SortKey::kSymbolSize:  // perf's sort__sym_size_cmp(): the size alone
          key_buf_.push_back(frameless ? 0 : p_.frames[frame].symbol_size);
          break;
        case SortKey::kDsoSize:  // perf's sort__dso_size_cmp(): the map's size alone
          key_buf_.push_back(frameless ? 0 : map_size(*h_.profile, p_.frames[frame]));
          break;
        case SortKey::kTrace:
          key_buf_.push_back(si.trace);
          break;
        case SortKey::kIpcNull:
          key_buf_.push_back(0);
          break;
      }
    }
    for (auto& lazy : lazy_) note_group(lazy, count);
    auto [it, ins] = index_.try_emplace(key_buf_, h_.entries.size());
    if (ins) {
      HistEntry e;
      e.key = key_buf_;
      e.frame = frame;
      e.thread = si.thread;
      e.cpu = si.cpu;
      e.time = si.time;
      e.parent = si.parent;
      e.trace = si.trace;
      if (h_.members > 1) e.others.assign(h_.members - 1, HistValues{});
      e.filtered = filtered;
      e.level = level;
      e.raw = raw;
      h_.entries.push_back(std::move(e));
    }
    return h_.entries[it->second];
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

  // HistEntry::looked_up from the groups note_group() saw.
  void finish_lookups() {
    if (lazy_.empty()) return;
    for (auto& e : h_.entries) {
      for (const auto& lazy : lazy_) {
        prefix_buf_.assign(e.key.begin(), e.key.begin() + static_cast<std::ptrdiff_t>(lazy.key));
        const auto g = lazy.groups.find(prefix_buf_);
        if (g == lazy.groups.end() || g->second < 2) e.looked_up &= ~(std::uint32_t{1} << lazy.key);
      }
    }
  }

  Hists& h_;
  const Profile& p_;
  const HistOptions& o_;
  Interner dsos_, names_, strs_, comms_, parent_names_;
  std::unordered_map<SymIdentity, std::uint64_t, SymIdentityHash> syms_;
  std::optional<std::regex> parent_regex_;   // --parent, when a sample's parent is needed
  std::vector<std::uint32_t> stack_parent_;  // parent_of() per stack
  std::vector<std::uint64_t> frame_dso_, frame_sym_, frame_srcline_, frame_srcfile_;
  std::vector<std::uint64_t> frame_raw_sym_;  // sym key of a raw_frame()'s callchain entries
  std::vector<LazyKey> lazy_;
  std::vector<std::uint64_t> prefix_buf_;  // note_group()'s lookup key
  std::unordered_map<std::vector<std::uint64_t>, std::size_t, U64VecHash> index_;
  std::vector<std::uint64_t> key_buf_;
  std::vector<std::uint32_t> seen_;  // entries given the current sample (children)
  std::vector<std::size_t> hidden_;  // sample_only frames before each index of the stack
};

int num(std::int64_t x, std::int64_t y) { return x < y ? -1 : (x > y ? 1 : 0); }

// perf's __hpp__sort() for a group: the members' values in order after the leader's
// (equal leaders); 0 when all are equal.
int members_first(const HistEntry& a, const HistEntry& b) {
  for (std::size_t i = 0; i < a.others.size() && i < b.others.size(); ++i)
    if (a.others[i].self != b.others[i].self) return a.others[i].self > b.others[i].self ? -1 : 1;
  return 0;
}

// perf's sort functions for equal overheads: each key in order, names ascending.
int tie_break(const Hists& h, const HistEntry& a, const HistEntry& b) {
  for (std::size_t c = 0; c < h.options.keys.size(); ++c)
    if (const int r = compare_key(h, c, a, b); r != 0) return r;
  return 0;
}

// The -F/-s fields in order: values highest first, keys by compare_key().
int compare_fields(const Hists& h, const std::vector<HistField>& fields, const HistEntry& a,
                   const HistEntry& b) {
  auto desc = [](std::uint64_t x, std::uint64_t y) { return x > y ? -1 : (x < y ? 1 : 0); };
  for (const HistField& f : fields) {
    int r = 0;
    switch (f.kind) {
      case HistField::Kind::kSelf:
        r = desc(a.values.self, b.values.self);
        break;
      case HistField::Kind::kChildren:
        r = desc(a.values.children, b.values.children);
        break;
      case HistField::Kind::kSamples:
        r = desc(a.values.samples, b.values.samples);
        break;
      case HistField::Kind::kKey: {
        const auto& keys = h.options.keys;
        const auto c =
            static_cast<std::size_t>(std::find(keys.begin(), keys.end(), f.key) - keys.begin());
        if (c < keys.size()) r = compare_key(h, c, a, b);
        break;
      }
    }
    if (r != 0) return r;
  }
  return tie_break(h, a, b);
}

}  // namespace

// The order perf gives siblings of equal period: that of its rb_root_in, where a new
// node goes left of those it compares greater to (append_chain_children()), so
// descending by match_chain(): inline frames by name, symbols by DSO, then start,
// other frames by DSO, then address. perf compares DSOs by pointer: here by their
// mapping's index, which is as arbitrary (siblings of equal period from two DSOs may
// come in the other order).

bool before_at_equal_period(const Profile& p, const CallNode& a, const CallNode& b) {
  const auto& fa = p.frames[a.frame];
  const auto& fb = p.frames[b.frame];
  const bool symbols = !unresolved(fa) && !unresolved(fb);
  if (symbols && (fa.inlined || fb.inlined)) return a.name > b.name;
  if (fa.mapping != fb.mapping) return fa.mapping > fb.mapping;
  if (symbols) return fa.address - fa.symbol_offset > fb.address - fb.symbol_offset;
  return process_ip(fa) > process_ip(fb);
}

namespace {

void sort_tree(const Profile& p, CallNode& node) {
  std::sort(node.kids.begin(), node.kids.end(), [&](const CallNode& a, const CallNode& b) {
    return a.period != b.period ? a.period > b.period : before_at_equal_period(p, a, b);
  });
  for (auto& k : node.kids) sort_tree(p, k);
}

// A frame's name in a call graph: perf's "%#" PRIx64 of the instruction address for an
// unresolved one (callchain_list__sym_name(): cl->ip, not the map-relative one the
// Symbol column shows; "0" for a zero address).
// With the address or srcline key, perf adds the frame's srcline after the name
// (callchain_list__sym_name()).
std::string chain_name(const Frame& f, CallKey key) {
  if (unresolved(f)) {
    const std::uint64_t ip = process_ip(f);
    return ip == 0 ? std::string("0") : fmt::format("{:#x}", ip);
  }
  std::string name = f.function;
  if (key != CallKey::kFunction && f.mapping >= 0)
    name += " " + chain_srcline(f, key == CallKey::kAddress);
  return f.inlined ? name + " (inlined)" : name;
}

struct ChainLink {
  std::string name;
  std::uint32_t frame = 0;
};

// The callchain of a part for display, leaf first (callee order) unless caller order.
std::vector<ChainLink> chain_links(const Hists& h, ChainPart chain, CallKey key) {
  const Profile& p = *h.profile;
  const auto& st = p.stacks[chain.stack];
  const std::size_t part = chain.part;
  const auto [lo, hi] = shown_range(h, chain.stack);  // --max-stack
  std::vector<ChainLink> links;
  auto add = [&](std::size_t i) {
    if (p.frames[st[i]].sample_only) return;  // (its inline frame stands for it)
    if (h.options.hide_unresolved && unresolved(p.frames[st[i]])) return;
    links.push_back({chain_name(p.frames[st[i]], key), st[i]});
  };
  if (h.callee_children && part != 0) {  // stack[part-1] and its callers
    for (std::size_t i = part; i-- > lo;) add(i);
    return links;
  }
  for (std::size_t i = hi; i-- > std::max(part, lo);) add(i);
  if (h.options.caller_order.value_or(h.children)) std::reverse(links.begin(), links.end());
  return links;
}

// perf's match_chain(): by name (function, srcline), or by the frame itself (one per
// DSO and address) for the address key.
void add_chain(CallNode& root, const std::vector<ChainLink>& links, const ChainValue& value,
               CallKey key) {
  CallNode* cur = &root;
  for (const auto& link : links) {
    CallNode* next = nullptr;
    for (auto& k : cur->kids)
      if (key == CallKey::kAddress ? k.frame == link.frame : k.name == link.name) next = &k;
    if (next == nullptr) {
      cur->kids.push_back(CallNode{link.name, 0, 0, link.frame, {}});
      next = &cur->kids.back();
    }
    next->period += value.period;
    next->count += value.count;
    cur = next;
  }
  cur->hit += value.period;
  cur->hit_count += value.count;
}

}  // namespace

std::optional<SortKey> sort_key_named(std::string_view name) noexcept {
  if (name == "sym") return SortKey::kSym;
  for (const auto& [n, k] : kPerfOrder)
    if (iprefix(name, n)) return k;
  return std::nullopt;
}

std::optional<std::string_view> sort_field_named(std::string_view name) noexcept {
  for (const auto& [n, k] : kPerfOrder)
    if (iprefix(name, n)) return std::nullopt;
  for (const auto f : kFieldOrder)
    if (iprefix(name, f)) return f;
  return std::nullopt;
}

std::string_view sort_key_name(SortKey key) noexcept {
  if (key == SortKey::kSym) return "sym";
  for (const auto& [n, k] : kPerfOrder)
    if (k == key) return n;
  return {};
}

// perf's __get_srcline() with GNU addr2line: the line when there is one; "??:0" when
// addr2line names a function but no line ("??:?", which perf reads as file "??", line
// 0); else the symbol and offset, or the DSO and address for an unresolved one.
std::string frame_srcline(const Frame& f, bool full_path) {
  if (!f.file.empty() && f.line > 0)
    return fmt::format("{}:{}", full_path ? f.file : basename(f.file), f.line);
  if (f.addr2line_function) return "??:0";
  if (!unresolved(f)) return fmt::format("{}+{}", f.function, f.symbol_offset);
  if (f.mapping >= 0) return fmt::format("{}[{:x}]", f.dso, f.map_address);
  return "??:0";
}

std::string frame_srcfile(const Frame& f, bool full_path) {
  if (f.file.empty()) return {};
  return full_path ? f.file : basename(f.file);
}

Hists build_hists(const Profile& profile, const HistOptions& options, std::uint32_t event,
                  std::uint32_t members) {
  Hists h;
  h.profile = &profile;
  h.options = options;
  h.event = event;
  h.members = std::max<std::uint32_t>(members, 1);
  if (event >= profile.events.size()) return h;
  Builder(h).build();
  return h;
}

std::uint64_t map_size(const Profile& p, const Frame& f) {
  if (f.mapping < 0 || static_cast<std::size_t>(f.mapping) >= p.mappings.size()) return 0;
  const auto& m = p.mappings[static_cast<std::size_t>(f.mapping)];
  return m.limit - m.start;
}

int socket_of(const Hists& h, std::uint32_t cpu) {
  const Profile& p = *h.profile;
  if (!p.events[h.event].has_cpu || cpu >= p.cpu_sockets.size()) return -1;
  return p.cpu_sockets[cpu];
}

std::pair<std::size_t, std::size_t> shown_range(const Hists& h, std::uint32_t stack) {
  const Profile& p = *h.profile;
  const auto& st = p.stacks[stack];
  if (stack < h.cuts.size() && h.cuts[stack].self != StackCut::kNoCut)
    return {h.cuts[stack].lo, h.cuts[stack].hi};  // (within the --max-stack range)
  if (!h.options.max_stack) return {0, st.size()};
  // perf reads the first N callchain entries in display order: the N nearest the leaf in
  // callee order, the N nearest the root in caller order (inline frames not counted).
  const std::size_t limit = *h.options.max_stack;
  std::size_t n = 0;
  if (h.options.caller_order.value_or(h.children)) {
    for (std::size_t i = 0; i < st.size(); ++i) {
      if (p.frames[st[i]].inlined) continue;
      if (++n > limit) return {0, i};
    }
    return {0, st.size()};
  }
  for (std::size_t i = st.size(); i-- > 0;) {
    if (p.frames[st[i]].inlined) continue;
    if (++n > limit) return {i + 1, st.size()};
  }
  return {0, st.size()};
}

int compare_key(const Hists& h, std::size_t c, const HistEntry& a, const HistEntry& b) {
  const Profile& p = *h.profile;
  const auto& fa = p.frames[a.frame];
  const auto& fb = p.frames[b.frame];
  const auto& ta = p.threads[a.thread];
  const auto& tb = p.threads[b.thread];
  int r = 0;
  switch (h.options.keys[c]) {
    case SortKey::kComm:
      r = ta.comm.compare(tb.comm);
      break;
    case SortKey::kPid:
    case SortKey::kTid:
      r = num(ta.tid, tb.tid);
      break;
    case SortKey::kDso:
      // perf's sort__dso_sort(): an entry without a map (perf's "[unknown]") after the
      // others (cmp_null).
      if ((fa.dso == "[unknown]") != (fb.dso == "[unknown]"))
        r = fa.dso == "[unknown]" ? 1 : -1;
      else
        r = fa.dso.compare(fb.dso);
      break;
    case SortKey::kSym:
      // perf's sort__sym_sort(): unresolved after resolved (cmp_null).
      if (unresolved(fa) != unresolved(fb))
        r = unresolved(fa) ? 1 : -1;
      else if (unresolved(fa))
        r = num(static_cast<std::int64_t>(shown_address(fa, a.raw)),
                static_cast<std::int64_t>(shown_address(fb, b.raw)));
      else
        r = fa.function.compare(fb.function);
      break;
    case SortKey::kCpu:
      r = num(a.cpu, b.cpu);
      break;
    case SortKey::kSocket:
      r = num(socket_of(h, a.cpu), socket_of(h, b.cpu));
      break;
    case SortKey::kParent:  // perf's sort__parent_cmp(): [other] last, names ascending
      if ((a.parent == kNoParent) != (b.parent == kNoParent))
        r = a.parent == kNoParent ? 1 : -1;
      else if (a.parent != kNoParent)
        r = h.parents[a.parent].compare(h.parents[b.parent]);
      break;
    case SortKey::kTime:  // earlier first (as perf 6.1 orders equal entries)
      r = num(static_cast<std::int64_t>(a.time), static_cast<std::int64_t>(b.time));
      break;
    case SortKey::kSrcline:
      r = frame_srcline(fa, h.options.full_source_path)
              .compare(frame_srcline(fb, h.options.full_source_path));
      break;
    case SortKey::kSrcfile:
      r = frame_srcfile(fa, h.options.full_source_path)
              .compare(frame_srcfile(fb, h.options.full_source_path));
      break;
    case SortKey::kSymbolSize:  // perf: smaller first
      r = num(static_cast<std::int64_t>(fa.symbol_size), static_cast<std::int64_t>(fb.symbol_size));
      break;
    case SortKey::kDsoSize:
      r = num(static_cast<std::int64_t>(map_size(p, fa)),
              static_cast<std::int64_t>(map_size(p, fb)));
      break;
    case SortKey::kTrace:  // perf's sort__trace_cmp(): the texts (shown ascending)
      if (a.trace != b.trace)
        r = a.trace == Profile::kNoTrace   ? 1
            : b.trace == Profile::kNoTrace ? -1
                                           : p.traces[a.trace].compare(p.traces[b.trace]);
      break;
    case SortKey::kIpcNull:
      break;
  }
  return r;
}

std::vector<const HistEntry*> sorted_entries(const Hists& h, const HistOrder& order) {
  std::vector<const HistEntry*> rows;
  for (const auto& e : h.entries)
    if (!e.filtered) rows.push_back(&e);
  const Profile& p = *h.profile;
  const bool by_acc = order.by_children && h.children;
  if (!order.fields.empty()) {
    // -s with -F: perf sorts by the -s keys first, then by the fields in their order
    // (perf_hpp__append_sort_keys()), each as its own sort function.
    std::sort(rows.begin(), rows.end(), [&](const HistEntry* a, const HistEntry* b) {
      return compare_fields(h, order.fields, *a, *b) < 0;
    });
    return rows;
  }
  std::sort(rows.begin(), rows.end(), [&](const HistEntry* a, const HistEntry* b) {
    // (perf's __hpp__sort_acc() compares the leader's children only, not a group's.)
    if (by_acc && a->values.children != b->values.children)
      return a->values.children > b->values.children;
    // perf's __hpp__sort_acc(): of a thread's entries of equal children period, the one
    // given the longer chain first (a caller above its callees; -g callee: the reverse).
    if (by_acc && h.callchains && a->max_depth != b->max_depth &&
        p.threads[a->thread].tid == p.threads[b->thread].tid)
      return h.callee_children ? a->max_depth < b->max_depth : a->max_depth > b->max_depth;
    return compare_by_self(h, *a, *b) < 0;
  });
  return rows;
}

int compare_by_self(const Hists& h, const HistEntry& a, const HistEntry& b) {
  if (a.values.self != b.values.self) return a.values.self > b.values.self ? -1 : 1;
  if (const int r = members_first(a, b); r != 0) return r;
  return tie_break(h, a, b);
}

std::string chain_srcline(const Frame& f, bool show_addr) {
  if (!f.file.empty() && f.line > 0) return fmt::format("{}:{}", basename(f.file), f.line);
  if (f.addr2line_function || !show_addr) return "??:0";
  if (!unresolved(f)) return fmt::format("+{}", f.symbol_offset);
  return fmt::format("{}[{:x}]", f.dso, f.map_address);
}

CallNode call_tree(const Hists& h, const HistEntry& e, CallKey key) {
  std::vector<std::pair<ChainPart, ChainValue>> chains(e.chains.begin(), e.chains.end());
  std::sort(chains.begin(), chains.end(), [](const auto& a, const auto& b) {
    if (a.second.period != b.second.period) return a.second.period > b.second.period;
    return std::tie(a.first.stack, a.first.part) < std::tie(b.first.stack, b.first.part);
  });
  CallNode root;
  for (const auto& [chain, value] : chains) {
    root.period += value.period;
    root.count += value.count;
    add_chain(root, chain_links(h, chain, key), value, key);
  }
  sort_tree(*h.profile, root);
  return root;
}

}  // namespace perfx::profile
