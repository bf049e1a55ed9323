#include "report/top_screen.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <sstream>

#include "report/report_table.hpp"

namespace perfx::report {
namespace {

// The header line and the dashes under it (perf_top__header_snprintf()).
std::string header_text(const TopScreen& s) {
  const double n = s.samples > 0 ? static_cast<double>(s.samples) : 1.0;
  const std::size_t win = s.width > 1 ? s.width - 1 : 1;
  std::string out = fmt::format(
      "   PerfTop:{:8.0f} irqs/sec  kernel:{:4.1f}%  exact: {:4.1f}% lost: {}/{} drop: 0/0 "
      "[{}], {}\n",
      s.samples_per_sec, s.samples > 0 ? 100.0 * static_cast<double>(s.kernel_samples) / n : 0.0,
      s.samples > 0 ? 100.0 * static_cast<double>(s.exact_samples) / n : 0.0, s.lost, s.lost_total,
      s.event, s.target);
  out += std::string(win, '-');
  out += "\n\n";
  return out;
}

}  // namespace

std::string top_screen_text(const TopScreen& s, const std::vector<profile::LiveRow>& rows,
                            const std::vector<profile::LiveKey>& keys) {
  using profile::LiveKey;
  const std::size_t win = s.width > 1 ? s.width - 1 : 1;
  std::string out = header_text(s);

  std::uint64_t total = 0;
  for (const auto& r : rows) total += r.period;
  auto share = [&](const profile::LiveRow& r) {
    return total > 0 ? 100.0 * static_cast<double>(r.period) / static_cast<double>(total) : 0.0;
  };
  std::vector<const profile::LiveRow*> shown;
  for (const auto& r : rows) {
    if (shown.size() >= s.max_rows) break;
    if (s.percent_limit > 0 && share(r) < s.percent_limit) continue;
    shown.push_back(&r);
  }
  auto cell = [](const profile::LiveRow& r, LiveKey k) -> std::string {
    switch (k) {
      case LiveKey::kComm:
        return r.comm;
      case LiveKey::kPid:
        return fmt::format("{:>7}:{}", r.tid, r.comm);
      case LiveKey::kDso:
        return r.dso;
      case LiveKey::kSym:
        return r.symbol;
    }
    return {};
  };
  // Column widths: the header names' (not printed) and the rows shown.
  std::vector<std::size_t> widths;
  for (const LiveKey k : keys) {
    std::size_t w = k == LiveKey::kComm ? 7 : k == LiveKey::kPid ? 15 : k == LiveKey::kDso ? 13 : 6;
    for (const auto* r : shown) {
      w = std::max(w, cell(*r, k).size());
      if (k == LiveKey::kDso && !r->resolved) w = std::max<std::size_t>(w, 16);
    }
    widths.push_back(w);
  }
  for (const auto* r : shown) {
    std::string line = fmt::format("  {:>8}", fmt::format("{:.2f}%", share(*r)));
    for (std::size_t i = 0; i < keys.size(); ++i) {
      line += "  ";
      if (i + 1 == keys.size() && keys[i] == LiveKey::kSym)
        line += cell(*r, keys[i]);
      else
        line += fmt::format("{:<{}}", cell(*r, keys[i]), widths[i]);
    }
    if (line.size() >= win) line.resize(win - 1);  // perf's snprintf into the window
    out += line;
    out += '\n';
  }
  return out;
}

std::string top_chain_screen_text(const TopScreen& s, const profile::Profile& profile,
                                  const std::vector<profile::LiveKey>& keys, bool children) {
  ReportOptions ro;
  ro.sort.clear();
  for (const auto k : keys) ro.sort.emplace_back(profile::live_key_name(k));
  ro.children = children;
  ro.quiet = true;
  ro.percent_limit = s.percent_limit;
  ro.max_entries = s.max_rows;
  // perf cuts the entry lines to the window (hists__fprintf()'s max_cols), not the
  // callchain lines under them.
  ro.max_cols = s.width > 1 ? s.width - 1 : 1;
  std::ostringstream text;
  std::string out = header_text(s);
  if (profile.samples.empty() || !write_report(text, profile, ro)) return out;
  // The report's trailing blank lines are not shown.
  std::string body = text.str();
  while (body.size() >= 2 && body.ends_with("\n\n")) body.pop_back();
  return out + body;
}

}  // namespace perfx::report
