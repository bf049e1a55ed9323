// perf diff's stdio table (write_diff_table()): the columns of -c, -p, -F/--formula and
// the -s keys, aligned or joined by -t, as perf diff 6.1 prints them.
#include <algorithm>
#include <string>
#include <string_view>
#include <vector>

#include <fmt/format.h>

#include "report/diff.hpp"
#include "report/export_util.hpp"

namespace perfx {
namespace {

enum class ColKind : std::uint8_t {
  kBaseline,
  kBasePeriod,
  kCompute,
  kFormula,
  kPeriod,
  kComm,
  kPid,
  kDso,
  kSym
};

// A column: header, width, right-aligned (the values' side in the spaced layout).
struct Column {
  ColKind kind;
  std::string_view header;
  std::size_t width;
  bool right;
};

// The compute column: perf's header and width per -c.
Column compute_column(DiffCompute c) {
  switch (c) {
    case DiffCompute::kDeltaAbs:
      break;
    case DiffCompute::kDelta:
      return {ColKind::kCompute, "Delta", 7, true};
    case DiffCompute::kRatio:
      return {ColKind::kCompute, "Ratio", 14, true};
    case DiffCompute::kWeighted:
      return {ColKind::kCompute, "Weighted diff", 14, true};
  }
  return {ColKind::kCompute, "Delta Abs", 9, true};
}

// perf's formula_fprintf(): how the -c column of a row was computed.
std::string formula(const DiffRow& r, const DiffSection& s, const DiffOptions& o) {
  switch (o.compute) {
    case DiffCompute::kDeltaAbs:
    case DiffCompute::kDelta:
      return fmt::format("({} * 100 / {}) - ({} * 100 / {})", r.new_period, s.new_base,
                         r.old_period, s.old_base);
    case DiffCompute::kRatio:
      return fmt::format("{} / {}", r.new_period, r.old_period);
    case DiffCompute::kWeighted:
      return fmt::format("({} * {}) - ({} * {})", r.new_period, o.weight_new, r.old_period,
                         o.weight_old);
  }
  return {};
}

// The compute column's cell. perf leaves it empty when the entry has no pair in NEW (and
// prints "-0.00%" / "+0.00%" for tiny changes, as printf's "%+4.2F%%" does); ratio and
// wdiff are "N/A" for a row only NEW has. -t takes perf's plain entry path
// (hpp__entry_pair()), which leaves a zero wdiff and a ratio of 0 blank; the aligned table
// (its colour path) prints them.
std::string compute_cell(const DiffRow& r, const DiffOptions& o, bool separated) {
  if (!r.delta) return {};
  switch (o.compute) {
    case DiffCompute::kDeltaAbs:
    case DiffCompute::kDelta:
      return fmt::format("{:+.2f}%", *r.delta);
    case DiffCompute::kRatio:
      if (!r.ratio) return "N/A";
      return separated && !(*r.ratio > 0.0) ? "" : fmt::format("{:14.6f}", *r.ratio);
    case DiffCompute::kWeighted:
      if (!r.wdiff) return "N/A";
      return separated && *r.wdiff == 0 ? "" : fmt::format("{:14}", *r.wdiff);
  }
  return {};
}

// The columns of a section: Baseline, -p's Base period, the -c column, --formula,
// -p's Period, then the -s keys (perf's sort__setup_elide(): a filter of one value makes
// its column redundant).
std::vector<Column> columns(const DiffSection& section, const DiffOptions& o,
                            const std::vector<std::string>& symbols) {
  std::vector<Column> cols{{ColKind::kBaseline, "Baseline", 8, true}};
  if (o.periods) cols.push_back({ColKind::kBasePeriod, "Base period", 14, true});
  cols.push_back(compute_column(o.compute));
  if (o.formula) cols.push_back({ColKind::kFormula, "Formula", 70, true});
  if (o.periods) cols.push_back({ColKind::kPeriod, "Period", 14, true});
  for (const auto& key : o.sort_keys) {
    std::size_t w = 0;
    if (key == "comm" && o.thread_filter.comms.size() != 1) {
      w = std::string_view("Command").size();
      for (const auto& r : section.rows) w = std::max(w, r.comm.size());
      cols.push_back({ColKind::kComm, "Command", w, false});
    } else if (key == "pid") {
      w = std::string_view("    Pid:Command").size();
      for (const auto& r : section.rows) w = std::max(w, 8 + r.comm.size());
      cols.push_back({ColKind::kPid, "    Pid:Command", w, false});
    } else if (key == "dso" && o.dsos.size() != 1) {
      w = std::string_view("Shared Object").size();
      for (const auto& r : section.rows) w = std::max(w, r.dso.size());
      cols.push_back({ColKind::kDso, "Shared Object", w, false});
    } else if (key == "sym" && o.symbols.size() != 1) {
      w = std::string_view("Symbol").size();
      for (const auto& s : symbols) w = std::max(w, s.size());
      cols.push_back({ColKind::kSym, "Symbol", w, false});
    }
  }
  return cols;
}

// One row's cells, in the columns' order.
std::vector<std::string> cells_of(const DiffRow& r, const std::string& symbol,
                                  const DiffSection& section, const std::vector<Column>& cols,
                                  const DiffOptions& o) {
  const std::string& sep = o.field_separator;
  const bool separated = !sep.empty();
  // -t: the separator's first character turned into '.' inside names.
  auto named = [&](std::string name) {
    if (separated) std::replace(name.begin(), name.end(), sep.front(), '.');
    return name;
  };
  std::vector<std::string> cells;
  for (const Column& k : cols) {
    switch (k.kind) {
      case ColKind::kBaseline:
        cells.push_back(!r.baseline ? std::string()
                        : separated ? fmt::format("{:.2f}", *r.baseline)
                                    : fmt::format("{:.2f}%", *r.baseline));
        break;
      case ColKind::kBasePeriod:
        cells.push_back(fmt::format("{}", r.old_period));
        break;
      case ColKind::kCompute:
        cells.push_back(compute_cell(r, o, separated));
        break;
      case ColKind::kFormula:
        cells.push_back(r.delta ? formula(r, section, o) : std::string());
        break;
      case ColKind::kPeriod:
        cells.push_back(r.delta ? fmt::format("{}", r.new_period) : "");
        break;
      case ColKind::kComm:
        cells.push_back(named(r.comm));
        break;
      case ColKind::kPid:
        cells.push_back(named(fmt::format("{:>7}:{}", r.pid, r.comm)));
        break;
      case ColKind::kDso:
        cells.push_back(named(r.dso));
        break;
      case ColKind::kSym:
        cells.push_back(named(symbol));
        break;
    }
  }
  return cells;
}

}  // namespace

Result<void> write_diff_table(const std::vector<DiffSection>& sections, std::ostream& out,
                              const DiffOptions& options) {
  std::string text;
  bool first = true;
  // -t: perf's field_sep layout: columns joined by it, no dot rule, values as printed
  // ("59.17" without its %, "%+4.2F%%" deltas) and padded after them.
  const std::string& sep = options.field_separator;
  const bool separated = !sep.empty();
  const std::string gap = separated ? sep : std::string("  ");
  for (const auto& section : sections) {
    if (!first && !options.quiet) text += "\n";
    first = false;
    std::vector<std::string> symbols;
    for (const auto& r : section.rows)
      symbols.push_back((r.kind == profile::FrameKind::kKernel ? "[k] " : "[.] ") + r.symbol);
    const std::vector<Column> cols = columns(section, options, symbols);
    if (!options.quiet) {
      std::string head = "# Baseline";
      std::string dots = "# ........";
      for (std::size_t c = 1; c < cols.size(); ++c) {
        const Column& k = cols[c];
        head += gap + (k.right ? fmt::format("{:>{}}", k.header, k.width)
                               : fmt::format("{:<{}}", k.header, k.width));
        dots += "  " + std::string(k.width, '.');
      }
      fmt::format_to(std::back_inserter(text), "# Event '{}'\n#\n{}\n", section.event, head);
      if (!separated) text += dots + "\n#\n";
    }
    // A row: the spaced layout right-aligns values (the first column 10 wide: "  %8s"),
    // the separated one pads every cell after it; a last Symbol column is not padded.
    for (std::size_t i = 0; i < section.rows.size(); ++i) {
      const auto cells = cells_of(section.rows[i], symbols[i], section, cols, options);
      std::string line;
      for (std::size_t c = 0; c < cells.size(); ++c) {
        const Column& k = cols[c];
        if (c > 0) line += gap;
        if (c + 1 == cells.size() && k.kind == ColKind::kSym)
          line += cells[c];
        else if (k.right && !separated)
          line += fmt::format("{:>{}}", cells[c], c == 0 ? k.width + 2 : k.width);
        else
          line += fmt::format("{:<{}}", cells[c], k.width);
      }
      text += line;
      text += '\n';
    }
  }
  return report::detail::write_all(out, text);
}

}  // namespace perfx
