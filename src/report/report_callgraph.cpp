#include "report/report_callgraph.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <string>
#include <vector>

namespace perfx::report {
namespace {

std::string pct(double v) { return fmt::format("{:.2f}%", v); }

class GraphPrinter {
 public:
  GraphPrinter(std::ostream& out, double total, double threshold)
      : out_(out), total_(total), threshold_(threshold) {}

  // perf's callchain threshold: a chain is shown when its period reaches the event's
  // total times the threshold percentage, cut to an integer (output_resort()'s u64
  // min_callchain_hits): with 350 samples and 0.5%, one sample is enough.
  [[nodiscard]] bool above(std::uint64_t period) const {
    return static_cast<double>(period) >= std::floor(total_ * threshold_ / 100.0);
  }
  [[nodiscard]] std::string percent(std::uint64_t v) const {
    return pct(100.0 * static_cast<double>(v) / total_);
  }

  // perf's graph layout: a path without branches continues on the next line at the same
  // indent; at a branch every child gets "|--pct--name" ("--pct--" for the last one).
  // Children come in perf's order (profile::call_tree()).
  void graph(const profile::CallNode& node, const std::string& prefix) const {
    std::vector<const profile::CallNode*> kids;
    for (const auto& k : node.kids)
      if (above(k.period)) kids.push_back(&k);
    if (kids.size() == 1 && kids[0]->period == node.period) {
      out_ << prefix << kids[0]->name << "\n";
      graph(*kids[0], prefix);
      return;
    }
    for (std::size_t i = 0; i < kids.size(); ++i) {
      const profile::CallNode* k = kids[i];
      const bool last = i + 1 == kids.size();
      out_ << prefix << "|          \n";
      out_ << prefix << (last ? " --" : "|--") << percent(k->period) << "--" << k->name << "\n";
      graph(*k, prefix + (last ? "           " : "|          "));
    }
  }

  // perf's sort_chain_flat(): every node where chains end (hit >= the threshold), as the
  // path from the root. Ordered by hit, descending (equal hits: by path).
  struct FlatChain {
    std::vector<std::string> path;
    std::uint64_t hit = 0;
    std::uint64_t cumulative = 0;
  };
  void collect_flat(const profile::CallNode& node, std::vector<std::string>& path,
                    std::vector<FlatChain>& flat) const {
    for (const auto& k : node.kids) {
      path.push_back(k.name);
      if (k.hit > 0 && above(k.hit)) flat.push_back(FlatChain{path, k.hit, k.period});
      collect_flat(k, path, flat);
      path.pop_back();
    }
  }

  void flat(const profile::CallNode& root, bool folded) const {
    std::vector<FlatChain> chains;
    std::vector<std::string> path;
    collect_flat(root, path, chains);
    std::stable_sort(chains.begin(), chains.end(), [](const FlatChain& a, const FlatChain& b) {
      return a.hit != b.hit ? a.hit > b.hit : a.path < b.path;
    });
    if (folded) {
      // perf prints a folded chain's own hits; a flat one's cumulative period.
      for (const auto& c : chains) {
        std::string line;
        for (std::size_t i = 0; i < c.path.size(); ++i) line += (i ? ";" : "") + c.path[i];
        out_ << percent(c.hit) << " " << line << "\n";
      }
      out_ << "\n";
      return;
    }
    for (const auto& c : chains) {
      out_ << "           " << percent(c.cumulative) << "\n";
      for (const auto& n : c.path) out_ << "                " << n << "\n";
    }
  }

 private:
  std::ostream& out_;
  double total_;
  double threshold_;
};

}  // namespace

void print_call_graph(std::ostream& out, const profile::CallNode& root, GraphMode mode,
                      double total, double threshold) {
  if (mode == GraphMode::kNone) return;
  const GraphPrinter p(out, total, threshold);
  if (mode == GraphMode::kFolded || mode == GraphMode::kFlat) {
    p.flat(root, mode == GraphMode::kFolded);
    return;
  }
  if (!p.above(root.period)) return;
  // perf leaves chains under the threshold out of the graph, and prints no blank line
  // for a graph with nothing in it (a leaf's entry whose callees are all below it).
  if (std::none_of(root.kids.begin(), root.kids.end(),
                   [&](const profile::CallNode& k) { return p.above(k.period); }))
    return;
  // The first node hangs off "---"; everything below is indented under it.
  if (root.kids.size() == 1) {
    out << "            |\n";
    const profile::CallNode& first = root.kids[0];
    out << "            ---" << first.name << "\n";
    p.graph(first, "               ");
  } else {
    p.graph(root, "            ");
  }
  out << "\n";
}

}  // namespace perfx::report
