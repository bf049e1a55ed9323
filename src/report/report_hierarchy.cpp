#include "report/report_hierarchy.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <string>

namespace perfx::report {
namespace {

constexpr std::size_t kIndent = 3;  // perf's HIERARCHY_INDENT

// An entry of one level: the first entry below it gives its key values, `sum` its
// values summed over the entries below (perf's hierarchy entries).
struct Node {
  const profile::HistEntry* first = nullptr;
  profile::HistEntry sum;
  std::vector<Node> kids;
};

void add_values(profile::HistEntry& to, const profile::HistEntry& e) {
  to.values.self += e.values.self;
  to.values.samples += e.values.samples;
  to.values.children += e.values.children;
  to.others.resize(e.others.size());
  for (std::size_t m = 0; m < e.others.size(); ++m) {
    to.others[m].self += e.others[m].self;
    to.others[m].samples += e.others[m].samples;
    to.others[m].children += e.others[m].children;
  }
}

class HierarchyPrinter {
 public:
  HierarchyPrinter(std::ostream& out, const HierarchyInput& in)
      : out_(out), in_(in), style_(graph_style(in.options)) {
    for (std::size_t k = 0; k < in.hists.options.keys.size(); ++k)
      if (in.columns.shows_key(k)) levels_.push_back(k);
  }

  void print() {
    if (levels_.empty()) return;
    Node root;
    for (const auto* e : in_.rows) insert(root, *e);
    sort(root);
    for (const auto& n : root.kids) print(n, 0);
  }

 private:
  void insert(Node& root, const profile::HistEntry& e) {
    Node* cur = &root;
    for (std::size_t d = 0; d < levels_.size(); ++d) {
      Node* next = nullptr;
      for (auto& k : cur->kids)
        if (profile::compare_key(in_.hists, levels_[d], *k.first, e) == 0) next = &k;
      if (next == nullptr) {
        Node n;
        n.first = &e;
        n.sum = e;
        n.sum.values = {};
        n.sum.others.assign(e.others.size(), {});
        cur->kids.push_back(std::move(n));
        next = &cur->kids.back();
      }
      add_values(next->sum, e);
      cur = next;
    }
  }

  // Each level by overhead, descending; equal ones by the keys (perf's
  // hierarchy_insert_output_entry(): "rec_hot" before "swapper", "[kernel.kallsyms]"
  // before "libc.so.6").
  void sort(Node& n) const {
    std::stable_sort(n.kids.begin(), n.kids.end(), [&](const Node& a, const Node& b) {
      return profile::compare_by_self(in_.hists, a.sum, b.sum) < 0;
    });
    for (auto& k : n.kids) sort(k);
  }

  [[nodiscard]] bool below_limit(const Node& n) const {
    return in_.options.percent_limit > 0 &&
           in_.columns.shown_percent(n.sum) < in_.options.percent_limit;
  }

  void print(const Node& n, std::size_t depth) {
    if (below_limit(n)) return;
    const bool leaf = depth + 1 == levels_.size();
    out_ << std::string(depth * kIndent, ' ') << in_.columns.values_text(n.sum)
         << std::string((levels_.size() - 1) * kIndent, ' ') << "  "
         << in_.columns.key_text(*n.first, levels_[depth]) << "\n";
    if (leaf) {
      if (in_.graphs && !n.first->chains.empty())
        print_call_graph(out_, *in_.hists.profile,
                         profile::call_tree(in_.hists, *n.first, call_key(in_.options.graph_key)),
                         style_, in_.total, n.first->values.self);
      return;
    }
    // perf: "no entry >= x%" when no entry below reaches the percent limit.
    if (n.kids.empty() || below_limit(n.kids.front())) {
      out_ << std::string((levels_.size() + depth) * kIndent, ' ')
           << std::string(in_.columns.values_width() + 4, ' ')
           << fmt::format("no entry >= {:.2f}%\n", in_.options.percent_limit);
    }
    for (const auto& k : n.kids) print(k, depth + 1);
  }

  std::ostream& out_;
  const HierarchyInput& in_;
  GraphStyle style_;
  std::vector<std::size_t> levels_;  // the keys shown, one per level
};

}  // namespace

void print_hierarchy(std::ostream& out, const HierarchyInput& in) {
  if (!in.options.quiet) out << "# " << in.columns.hierarchy_header();
  HierarchyPrinter p(out, in);
  p.print();
}

}  // namespace perfx::report
