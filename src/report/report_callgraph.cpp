#include "report/report_callgraph.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <string>
#include <vector>

namespace perfx::report {
namespace {

using profile::CallNode;

// One node of perf's callchain radix tree: a run of frames without a branch or a chain
// ending inside it (call_tree() keeps a node per frame).
struct Run {
  std::vector<const CallNode*> frames;
  [[nodiscard]] const CallNode& first() const { return *frames.front(); }
  [[nodiscard]] const CallNode& last() const { return *frames.back(); }
  [[nodiscard]] std::uint64_t cumul() const { return first().period; }
  [[nodiscard]] std::uint64_t cumul_count() const { return first().count; }
  // perf's children_hit / children_count: what goes on below the run.
  [[nodiscard]] std::uint64_t children_hit() const { return last().period - last().hit; }
  [[nodiscard]] std::uint64_t children_count() const { return last().count - last().hit_count; }
};

Run run_from(const CallNode& start) {
  Run r;
  const CallNode* n = &start;
  r.frames.push_back(n);
  while (n->hit == 0 && n->kids.size() == 1) {
    n = &n->kids.front();
    r.frames.push_back(n);
  }
  return r;
}

class GraphPrinter {
 public:
  GraphPrinter(std::ostream& out, const GraphStyle& style, std::uint64_t total)
      : out_(out),
        style_(style),
        total_(total),
        // perf's output_resort(): u64 min_callchain_hits = total * (min_percent / 100).
        min_hit_(static_cast<std::uint64_t>(static_cast<double>(total) * (style.threshold / 100))) {
  }

  // perf's sorted children of a node: the graph's (or flat's) threshold, or fractal's
  // share of the node's callees (ceil()), in call_tree()'s order (period, then perf's).
  [[nodiscard]] std::vector<Run> kids(const CallNode& last, std::uint64_t children_hit) const {
    const std::uint64_t min_hit =
        style_.mode == GraphMode::kFractal
            ? static_cast<std::uint64_t>(
                  std::ceil(static_cast<double>(children_hit) * (style_.threshold / 100.0)))
            : min_hit_;
    std::vector<Run> out;
    for (const auto& k : last.kids)
      if (k.period >= min_hit) out.push_back(run_from(k));
    return out;
  }

  // perf's callchain_node__fprintf_value(): folded shows the chain's own hits.
  [[nodiscard]] std::string value(std::uint64_t period, std::uint64_t count,
                                  std::uint64_t total) const {
    switch (style_.value) {
      case CallGraphValue::kPeriod:
        return std::to_string(period);
      case CallGraphValue::kCount:
        return std::to_string(count);
      case CallGraphValue::kPercent:
        break;
    }
    const double pct =
        total != 0 ? static_cast<double>(period) * 100.0 / static_cast<double>(total) : 0.0;
    return fmt::format("{:.2f}%", pct);
  }

  // perf's callchain__fprintf_graph().
  void graph(const CallNode& root, std::uint64_t entry_period) {
    std::vector<Run> top = kids(root, root.period - root.hit);
    std::uint64_t children_count = root.count - root.hit_count;
    std::uint64_t total = total_;
    // One chain as wide as the entry: no percentage, and its run hangs off "---".
    if (top.size() == 1 && top[0].cumul() == entry_period) {
      const Run& r = top[0];
      bool printed = false;
      std::uint32_t n = 0;
      for (std::size_t i = 0; i < r.frames.size(); ++i) {
        if (i == 0 && style_.skip_first_frame) continue;
        if (!printed) {
          out_ << kMargin << "|\n" << kMargin << "---";
          margin_ = 3;
          printed = true;
        } else {
          margin();
        }
        out_ << r.frames[i]->name << "\n";
        wrote_ = true;
        if (++n == style_.print_limit) break;
      }
      children_count = r.children_count();
      top = kids(r.last(), r.children_hit());
    }
    if (style_.mode == GraphMode::kFractal) total = entry_period;
    level(top, total, children_count, 1, 1);
    if (wrote_) out_ << "\n";  // no blank line after a graph that printed nothing
  }

  // perf's sort_chain_flat(): each chain end (a node with hits over the threshold), by
  // hits, descending; equal hits in the order of its walk (callees first, siblings in
  // the order of perf's rb_root_in).
  void chains(const profile::Profile& profile, const CallNode& root) {
    struct Chain {
      std::vector<std::string> path;
      const CallNode* end = nullptr;
    };
    std::vector<Chain> found;
    std::vector<std::string> path;
    auto walk = [&](auto& self, const CallNode& node) -> void {
      std::vector<const CallNode*> kids;
      for (const auto& k : node.kids) kids.push_back(&k);
      std::stable_sort(kids.begin(), kids.end(), [&](const CallNode* a, const CallNode* b) {
        return profile::before_at_equal_period(profile, *a, *b);
      });
      for (const CallNode* k : kids) {
        path.push_back(k->name);
        self(self, *k);
        if (k->hit > 0 && k->hit >= min_hit_) found.push_back({path, k});
        path.pop_back();
      }
    };
    walk(walk, root);
    std::stable_sort(found.begin(), found.end(),
                     [](const Chain& a, const Chain& b) { return a.end->hit > b.end->hit; });
    std::uint32_t n = 0;
    for (const auto& c : found) {
      if (style_.mode == GraphMode::kFolded) {
        out_ << value(c.end->hit, c.end->hit_count, total_) << " ";
        for (std::size_t i = 0; i < c.path.size(); ++i) out_ << (i ? ";" : "") << c.path[i];
        out_ << "\n";
      } else {
        out_ << "           " << value(c.end->period, c.end->count, total_) << "\n";
        for (const auto& name : c.path) out_ << "                " << name << "\n";
        out_ << "\n";
      }
      if (++n == style_.print_limit) break;
    }
  }

 private:
  static constexpr std::string_view kMargin = "            ";

  void margin() const { out_ << kMargin << std::string(margin_, ' '); }

  // perf's ipchain__fprintf_graph_line(): the separator line above a branch.
  void bar_line(int depth, std::uint64_t mask) const {
    margin();
    for (int i = 0; i < depth; ++i) out_ << ((mask >> i & 1) != 0 ? "|          " : "           ");
    out_ << "\n";
  }

  // perf's ipchain__fprintf_graph(): a frame of a run; the first carries the value.
  void frame_line(const std::string& name, bool first, const std::string& val, int depth,
                  std::uint64_t mask) {
    margin();
    for (int i = 0; i < depth; ++i) {
      out_ << ((mask >> i & 1) != 0 ? "|" : " ");
      if (first && i == depth - 1)
        out_ << "--" << val << "--";
      else
        out_ << "          ";
    }
    out_ << name << "\n";
    wrote_ = true;
  }

  // perf's __callchain__fprintf_graph(): the branches of one level.
  void level(const std::vector<Run>& runs, std::uint64_t total, std::uint64_t children_count,
             int depth, std::uint64_t mask) {
    const bool fractal = style_.mode == GraphMode::kFractal;
    std::uint64_t remaining = total;
    std::uint64_t counted = 0;
    std::uint64_t new_mask = mask;
    std::uint32_t n = 0;
    for (std::size_t i = 0; i < runs.size(); ++i) {
      const Run& r = runs[i];
      remaining -= r.cumul();
      counted += r.cumul_count();
      // The last branch closes its pipe, unless fractal's "[...]" follows.
      if (i + 1 == runs.size() && (!fractal || remaining == 0))
        new_mask &= ~(std::uint64_t{1} << (depth - 1));
      bar_line(depth, mask);
      const std::string val = value(r.cumul(), r.cumul_count(), total);
      for (std::size_t f = 0; f < r.frames.size(); ++f)
        frame_line(r.frames[f]->name, f == 0, val, depth, new_mask);
      level(kids(r.last(), r.children_hit()), fractal ? r.children_hit() : total,
            r.children_count(), depth + 1, new_mask | std::uint64_t{1} << depth);
      if (++n == style_.print_limit) break;
    }
    // fractal: the callees under the threshold, as one "[...]" branch.
    if (fractal && remaining != 0 && remaining != total) {
      std::uint64_t rest_count = 0;
      if (style_.value == CallGraphValue::kCount) {
        if (runs.empty() || children_count <= counted) return;
        rest_count = children_count - counted;
      }
      new_mask &= ~(std::uint64_t{1} << (depth - 1));
      frame_line("[...]", true, value(remaining, rest_count, total), depth, new_mask);
    }
  }

  std::ostream& out_;
  const GraphStyle& style_;
  std::uint64_t total_;
  std::uint64_t min_hit_;
  std::size_t margin_ = 0;
  bool wrote_ = false;
};

}  // namespace

profile::CallKey call_key(CallGraphKey k) {
  switch (k) {
    case CallGraphKey::kAddress:
      return profile::CallKey::kAddress;
    case CallGraphKey::kSrcline:
      return profile::CallKey::kSrcline;
    case CallGraphKey::kFunction:
      break;
  }
  return profile::CallKey::kFunction;
}

GraphStyle graph_style(const ReportOptions& o) {
  GraphStyle s;
  s.mode = o.graph;
  s.threshold = o.graph_threshold;
  s.print_limit = o.graph_print_limit;
  s.value = o.graph_value;
  // perf: field_order == NULL && sort_order starts with "sym".
  s.skip_first_frame =
      o.sort_given && o.fields.empty() && !o.sort.empty() && o.sort.front().starts_with("sym");
  return s;
}

void print_call_graph(std::ostream& out, const profile::Profile& profile, const CallNode& tree,
                      const GraphStyle& style, std::uint64_t total, std::uint64_t entry_period) {
  GraphPrinter p(out, style, total);
  switch (style.mode) {
    case GraphMode::kNone:
      return;
    case GraphMode::kFlat:
    case GraphMode::kFolded:
      p.chains(profile, tree);
      return;
    case GraphMode::kGraph:
    case GraphMode::kFractal:
      p.graph(tree, entry_period);
      return;
  }
}

}  // namespace perfx::report
