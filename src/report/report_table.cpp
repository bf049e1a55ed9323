#include "report/report_table.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <unordered_map>

namespace perfx::report {
namespace {

enum class Key : std::uint8_t { kComm, kPid, kTid, kDso, kSym, kSrcline, kSrcfile, kCpu };

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
  std::uint64_t self = 0;
  std::uint64_t acc = 0;
  std::uint64_t nr_samples = 0;
  std::uint32_t frame = 0;   // a representative frame
  std::uint32_t thread = 0;  // a representative thread
  std::uint32_t cpu = 0;
  // Callchains for -g output: (stack << 16 | first frame shown) -> period.
  std::unordered_map<std::uint64_t, std::uint64_t> chains;
};

std::string pct(double v) { return fmt::format("{:.2f}%", v); }

}  // namespace

std::string frame_srcline(const profile::Frame& f) {
  if (!f.file.empty() && f.line > 0) return fmt::format("{}:{}", basename(f.file), f.line);
  if (f.function != "[unknown]") return fmt::format("{}+{}", f.function, f.symbol_offset);
  return "??:0";
}

Result<void> validate_sort_keys(const std::vector<std::string>& keys) {
  if (keys.empty()) return fail(Errc::kInvalidArgument, "--sort needs at least one key");
  for (const auto& k : keys) {
    if (find_key(k) == nullptr)
      return fail(Errc::kInvalidArgument,
                  "unknown sort key '{}' (valid: comm, pid, tid, dso, sym, srcline, srcfile, cpu)",
                  k);
  }
  return {};
}

namespace {

class EventReport {
 public:
  EventReport(const profile::Profile& p, const ReportOptions& o, std::uint32_t event)
      : p_(p), o_(o), event_(event) {
    for (const auto& k : o.sort) keys_.push_back(find_key(k)->key);
  }

  void build() {
    const auto& ev = p_.events[event_];
    children_ = o_.children && ev.has_callchain;
    want_chains_ = ev.has_callchain && o_.graph != GraphMode::kNone;
    callee_children_ = children_ && !o_.caller_order.value_or(true);
    // Per-frame key parts.
    frame_dso_.resize(p_.frames.size());
    frame_sym_.resize(p_.frames.size());
    frame_srcline_.resize(p_.frames.size());
    frame_srcfile_.resize(p_.frames.size());
    for (std::size_t i = 0; i < p_.frames.size(); ++i) {
      const auto& f = p_.frames[i];
      frame_dso_[i] = dsos_.id(f.dso);
      frame_sym_[i] = f.function == "[unknown]" ? syms_.id(fmt::format("\x01{:x}", f.map_address))
                                                : syms_.id(f.dso + '\x02' + f.function);
      if (need(Key::kSrcline)) frame_srcline_[i] = strs_.id(frame_srcline(f));
      if (need(Key::kSrcfile)) frame_srcfile_[i] = strs_.id(f.file.empty() ? "" : basename(f.file));
    }
    // Group samples by (stack, thread, cpu).
    struct Group {
      std::uint64_t period = 0;
      std::uint64_t count = 0;
    };
    std::unordered_map<std::uint64_t, Group> groups;
    const bool by_cpu = need(Key::kCpu);
    for (const auto& s : p_.samples) {
      if (s.event != event_) continue;
      // Without PERF_SAMPLE_CPU every sample is on perf's cpu -1.
      const std::uint32_t cpu = ev.has_cpu ? s.cpu : 0xffffffffu;
      const std::uint64_t gk =
          (static_cast<std::uint64_t>(s.stack) * 1000003ULL + s.thread) * 4099ULL +
          (by_cpu ? cpu : 0u);
      auto& g = groups[gk];
      g.period += s.period;
      g.count += s.count;
      sample_info_.try_emplace(gk, SampleInfo{s.stack, s.thread, cpu});
    }
    std::vector<std::uint32_t> seen;
    for (const auto& [gk, g] : groups) {
      const SampleInfo& si = sample_info_[gk];
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
      Entry& le = entry_for(stack[leaf], si);
      le.self += g.period;
      le.nr_samples += g.count;
      const auto leaf_idx = static_cast<std::uint32_t>(&le - entries_.data());
      const std::uint64_t chain_base = static_cast<std::uint64_t>(si.stack) << 16;
      if (!children_) {
        le.acc += g.period;
        if (want_chains_) le.chains[chain_base] += g.period;
        continue;
      }
      seen.clear();
      // perf walks its callchain cursor in display order and gives each entry the rest of
      // the chain from that frame on (once per sample, for the first occurrence): in
      // caller order the frame and its callees (the leaf: the whole chain), in callee
      // order the frame and its callers.
      for (std::size_t n = 0; n < stack.size(); ++n) {
        const std::size_t i = callee_children_ ? stack.size() - 1 - n : n;
        if (p_.frames[stack[i]].inlined) continue;
        Entry& e = entry_for(stack[i], si);
        const auto idx = static_cast<std::uint32_t>(&e - entries_.data());
        if (std::find(seen.begin(), seen.end(), idx) != seen.end()) continue;
        seen.push_back(idx);
        e.acc += g.period;
        if (!want_chains_) continue;
        std::uint64_t part = 0;  // 0 = the whole chain
        if (idx != leaf_idx) part = callee_children_ ? (i + 1) & 0xffffu : i & 0xffffu;
        e.chains[chain_base | part] += g.period;
      }
    }
  }

  void print(std::ostream& out) {
    const auto& ev = p_.events[event_];
    const double total = static_cast<double>(ev.total_period);
    // Filters on dso / symbol.
    std::vector<const Entry*> rows;
    for (const auto& e : entries_) {
      const auto& f = p_.frames[e.frame];
      if (!o_.dsos.empty() && std::find(o_.dsos.begin(), o_.dsos.end(), f.dso) == o_.dsos.end() &&
          std::find(o_.dsos.begin(), o_.dsos.end(), f.dso_path) == o_.dsos.end())
        continue;
      if (!o_.symbols.empty() &&
          std::find(o_.symbols.begin(), o_.symbols.end(), f.function) == o_.symbols.end())
        continue;
      rows.push_back(&e);
    }
    std::sort(rows.begin(), rows.end(), [&](const Entry* a, const Entry* b) {
      const auto va = children_ ? a->acc : a->self;
      const auto vb = children_ ? b->acc : b->self;
      if (va != vb) return va > vb;
      if (a->self != b->self) return a->self > b->self;
      return tie_break(*a, *b) < 0;
    });
    // Column widths over all entries (as perf's hists__calc_col_len).
    std::vector<std::size_t> width;
    for (std::size_t c = 0; c < keys_.size(); ++c) {
      std::size_t w = header_of(keys_[c]).size();
      // perf sizes CPU by its header only ("-001" for no CPU field overflows it).
      if (keys_[c] != Key::kCpu)
        for (const auto* e : rows) w = std::max(w, cell_text(*e, c).size());
      width.push_back(w);
    }
    std::uint64_t n = ev.total_samples;
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
    out << "#\n# Samples: " << n << unit << " of event '" << ev.name << "'";
    if (!o_.time_slices.empty()) out << " (time slices: " << o_.time_slices << ")";
    out << "\n";
    out << "# Event count (approx.): " << ev.total_period << "\n#\n";
    std::string hdr = "#";
    std::string dots = "#";
    if (children_) {
      hdr += " Children      Self";
      dots += " ........  ........";
    } else {
      hdr += " Overhead";
      dots += " ........";
    }
    if (o_.show_nr_samples) {
      hdr += "       Samples";
      dots += "  ............";
    }
    for (std::size_t c = 0; c < keys_.size(); ++c) {
      hdr += "  " + fmt::format("{:<{}}", header_of(keys_[c]), width[c]);
      dots += "  " + std::string(width[c], '.');
    }
    out << hdr << "\n" << dots << "\n#\n";
    for (const auto* e : rows) {
      const double shown =
          total > 0 ? 100.0 * static_cast<double>(children_ ? e->acc : e->self) / total : 0.0;
      if (o_.percent_limit > 0 && shown < o_.percent_limit) continue;
      std::string line = "  ";
      const double self_pct = total > 0 ? 100.0 * static_cast<double>(e->self) / total : 0.0;
      if (children_) {
        const double acc_pct = total > 0 ? 100.0 * static_cast<double>(e->acc) / total : 0.0;
        line += fmt::format("{:>8}  {:>8}", pct(acc_pct), pct(self_pct));
      } else {
        line += fmt::format("{:>8}", pct(self_pct));
      }
      if (o_.show_nr_samples) line += fmt::format("  {:>12}", e->nr_samples);
      for (std::size_t c = 0; c < keys_.size(); ++c) {
        // perf pads every column but a last "Symbol" one.
        if (c + 1 == keys_.size() && keys_[c] == Key::kSym)
          line += "  " + cell_text(*e, c);
        else
          line += "  " + fmt::format("{:<{}}", cell_text(*e, c), width[c]);
      }
      out << line << "\n";
      if (want_chains_ && !e->chains.empty()) print_chains(out, *e, total);
    }
    out << "\n\n";
  }

 private:
  struct SampleInfo {
    std::uint32_t stack = 0;
    std::uint32_t thread = 0;
    std::uint32_t cpu = 0;
  };

  [[nodiscard]] bool need(Key k) const {
    return std::find(keys_.begin(), keys_.end(), k) != keys_.end();
  }

  static std::string header_of(Key k) {
    for (const auto& ki : kKeys)
      if (ki.key == k) return std::string(ki.header);
    return {};
  }

  Entry& entry_for(std::uint32_t frame, const SampleInfo& si) {
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
          key_buf_.push_back(frame_sym_[frame]);
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
      }
    }
    auto [it, ins] = index_.try_emplace(key_buf_, entries_.size());
    if (ins) {
      Entry e;
      e.key = key_buf_;
      e.frame = frame;
      e.thread = si.thread;
      e.cpu = si.cpu;
      entries_.push_back(std::move(e));
    }
    return entries_[it->second];
  }

  [[nodiscard]] std::string sym_text(const profile::Frame& f) const {
    const char level = f.kind == profile::FrameKind::kKernel ? 'k' : '.';
    // perf's "%#018llx": C drops the "0x" of a zero.
    if (f.function == "[unknown]")
      return f.map_address == 0 ? fmt::format("[{}] {:016x}", level, 0)
                                : fmt::format("[{}] {:#018x}", level, f.map_address);
    return fmt::format("[{}] {}", level, f.function);
  }

  // perf's sort functions for equal overheads: each key in order, names ascending.
  [[nodiscard]] int tie_break(const Entry& a, const Entry& b) const {
    const auto& fa = p_.frames[a.frame];
    const auto& fb = p_.frames[b.frame];
    const auto& ta = p_.threads[a.thread];
    const auto& tb = p_.threads[b.thread];
    auto num = [](std::int64_t x, std::int64_t y) { return x < y ? -1 : (x > y ? 1 : 0); };
    for (std::size_t c = 0; c < keys_.size(); ++c) {
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
          r = fa.dso.compare(fb.dso);
          break;
        case Key::kSym:
          if (fa.function == "[unknown]" || fb.function == "[unknown]")
            r = num(static_cast<std::int64_t>(fa.map_address),
                    static_cast<std::int64_t>(fb.map_address));
          else
            r = fa.function.compare(fb.function);
          break;
        case Key::kCpu:
          r = num(a.cpu, b.cpu);
          break;
        default:
          r = cell_text(a, c).compare(cell_text(b, c));
          break;
      }
      if (r != 0) return r;
    }
    return 0;
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
        return sym_text(f);
      case Key::kSrcline:
        return frame_srcline(f);
      case Key::kSrcfile:
        return f.file.empty() ? std::string() : basename(f.file);
      case Key::kCpu:
        // perf's "%*.*d" of sample->cpu, which is -1 when the event has no CPU field.
        if (!p_.events[event_].has_cpu) return "-001";
        return fmt::format("{:03}", e.cpu);
    }
    return {};
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
    // perf's "%#" PRIx64: "0" for a zero address.
    if (f.function == "[unknown]")
      return f.map_address == 0 ? std::string("0") : fmt::format("{:#x}", f.map_address);
    return f.inlined ? f.function + " (inlined)" : f.function;
  }

  // The callchain of a stack for display, leaf first (callee order) unless caller order.
  [[nodiscard]] std::vector<std::string> chain_names(std::uint64_t chain) const {
    const auto& st = p_.stacks[static_cast<std::uint32_t>(chain >> 16)];
    const std::size_t part = chain & 0xffffu;
    std::vector<std::string> names;
    if (callee_children_ && part != 0) {  // stack[part-1] and its callers
      for (std::size_t i = part; i-- > 0;) names.push_back(frame_name(st[i]));
      return names;
    }
    for (std::size_t i = st.size(); i-- > part;) names.push_back(frame_name(st[i]));
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
  };

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
      if (k.hit > 0 && 100.0 * static_cast<double>(k.hit) / total >= o_.graph_threshold)
        out.push_back(FlatChain{path, k.hit, k.period});
      collect_flat(k, path, total, out);
      path.pop_back();
    }
  }

  static void add_chain(Node& root, const std::vector<std::string>& names, std::size_t from,
                        std::uint64_t period) {
    Node* cur = &root;
    for (std::size_t i = from; i < names.size(); ++i) {
      Node* next = nullptr;
      for (auto& k : cur->kids)
        if (k.name == names[i]) next = &k;
      if (next == nullptr) {
        cur->kids.push_back(Node{names[i], 0, {}});
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
      if (100.0 * static_cast<double>(k.period) / total >= o_.graph_threshold) kids.push_back(&k);
    std::sort(kids.begin(), kids.end(),
              [](const Node* a, const Node* b) { return a->period > b->period; });
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
    if (100.0 * static_cast<double>(root.period) / total < o_.graph_threshold) return;
    // The first node hangs off "---"; everything below is indented under it.
    if (root.kids.empty()) return;
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
  std::vector<Key> keys_;
  bool children_ = false;
  bool want_chains_ = false;
  bool callee_children_ = false;  // -g ...,callee with --children
  Interner dsos_, syms_, strs_, comms_;
  std::vector<std::uint64_t> frame_dso_, frame_sym_, frame_srcline_, frame_srcfile_;
  std::unordered_map<std::uint64_t, SampleInfo> sample_info_;
  mutable std::unordered_map<std::int32_t, const std::string*> last_comm_;
  std::vector<Entry> entries_;
  std::unordered_map<std::vector<std::uint64_t>, std::size_t, U64VecHash> index_;
  std::vector<std::uint64_t> key_buf_;
};

}  // namespace

Result<void> write_report(std::ostream& out, const profile::Profile& profile,
                          const ReportOptions& options) {
  PERFX_CHECK(validate_sort_keys(options.sort));
  if (options.header_hint)
    out << "# To display the perf.data header info, please use --header/--header-only "
           "options.\n#\n";
  out << "#\n# Total Lost Samples: " << profile.lost_samples << "\n";
  for (std::uint32_t ev = 0; ev < profile.events.size(); ++ev) {
    if (profile.events[ev].total_samples == 0) continue;
    EventReport r(profile, options, ev);
    r.build();
    r.print(out);
  }
  if (!out) return fail(Errc::kIo, "writing the report failed");
  return {};
}

}  // namespace perfx::report
