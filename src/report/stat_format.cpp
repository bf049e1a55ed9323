#include "report/stat_format.hpp"

#include <linux/perf_event.h>

#include <algorithm>
#include <cmath>
#include <cstdlib>

#include <fmt/format.h>
#include <fmt/printf.h>

#include "report/export_util.hpp"

// Defined in namespace perfx: declared public in perfx/stat.hpp.
namespace perfx {
namespace {

constexpr int kMetricLen = 35;  // perf's METRIC_LEN
constexpr int kUnitWidth = 4;   // perf's default unit_width

// printf's "'" flag: `sep` between each group of three digits of the integer part.
std::string grouped(std::string number, const std::string& sep) {
  if (sep.empty()) return number;
  std::size_t begin = number.find_first_of("0123456789");
  if (begin == std::string::npos) return number;
  std::size_t end = number.find_first_not_of("0123456789", begin);
  if (end == std::string::npos) end = number.size();
  for (std::size_t i = end; i > begin + 3; i -= 3) number.insert(i - 3, sep);
  return number;
}

bool is_clock(std::uint32_t type, std::uint64_t config) {
  return type == PERF_TYPE_SOFTWARE &&
         (config == PERF_COUNT_SW_TASK_CLOCK || config == PERF_COUNT_SW_CPU_CLOCK);
}

bool is_hw(const StatEntry& e, std::uint64_t config) {
  return e.type == PERF_TYPE_HARDWARE && e.config == config;
}

bool counted(const StatEntry& e) { return e.supported && e.time_running > 0 && e.time_enabled > 0; }

bool same_key(const StatEntry& a, const StatEntry& b) {
  return a.cpu == b.cpu && a.tid == b.tid && a.comm == b.comm && a.place == b.place &&
         a.cgroup == b.cgroup;
}

/// The mean value of the counted peers (same CPU/thread) matching `pred`, or 0: perf's
/// shadow stats average every event of a kind (task-clock and cpu-clock both, say).
template <typename Pred>
double peer_value(const StatReport& r, const StatEntry& self, Pred pred) {
  double sum = 0;
  int n = 0;
  for (const StatEntry& e : r.entries) {
    if (same_key(e, self) && counted(e) && pred(e)) {
      sum += e.value;
      ++n;
    }
  }
  return n == 0 ? 0 : sum / n;
}

template <typename Pred>
bool has_peer(const StatReport& r, const StatEntry& self, Pred pred) {
  for (const StatEntry& e : r.entries) {
    if (same_key(e, self) && counted(e) && pred(e)) return true;
  }
  return false;
}

StatMetric metric(double value, std::string unit, std::string format) {
  StatMetric m;
  m.present = true;
  m.value = value;
  m.unit = std::move(unit);
  m.format = std::move(format);
  return m;
}

StatMetric blank_metric(std::string unit) {
  StatMetric m;
  m.present = true;
  m.blank = true;
  m.unit = std::move(unit);
  return m;
}

std::string json_escape(std::string_view s) {
  std::string out;
  report::detail::append_json_escaped(out, s);
  return out;
}

double running_pct(const StatEntry& e) {
  if (e.time_running == e.time_enabled || e.time_enabled == 0) return 100.0;
  return 100.0 * e.time_running / e.time_enabled;
}

std::string csv_metric_value(const StatMetric& m) {
  // perf's print_metric_csv: printf with the text format, then keep the leading run of
  // digits and dots ("  12.34%" -> "12.34").
  const std::string buf = fmt::sprintf(m.format, m.value);
  std::size_t b = 0;
  while (b < buf.size() && buf[b] == ' ') ++b;
  std::size_t e = b;
  while (e < buf.size() && ((buf[e] >= '0' && buf[e] <= '9') || buf[e] == '.')) ++e;
  return buf.substr(b, e - b);
}

// perf's aggr_printout() for the per-socket/die/core/node modes: the aggregate's name
// (the last number left-aligned in the text layout) and its number of CPUs.
std::string place_prefix(StatAggr a, const StatEntry& e, const StatFormatOptions& o) {
  const CpuPlace& p = e.place;
  std::string head;  // the name up to its last number
  int last = 0;      // that number
  int width = 5;     // the text layout's width of it
  const char* key = "socket";
  switch (a) {
    case StatAggr::kPerDie:
      head = fmt::format("S{}-D", p.socket);
      last = p.die;
      width = 8;
      key = "die";
      break;
    case StatAggr::kPerCore:
      head = fmt::format("S{}-D{}-C", p.socket, p.die);
      last = p.core;
      width = 8;
      key = "core";
      break;
    case StatAggr::kPerNode:
      head = "N";
      last = p.node;
      key = "node";
      break;
    default:
      head = "S";
      last = p.socket;
      break;
  }
  if (o.layout == StatLayout::kJson)
    return fmt::format("\"{}\" : \"{}{}\", \"aggregate-number\" : {}, ", key, head, last,
                       e.aggr_cpus);
  if (o.layout == StatLayout::kCsv)
    return fmt::format("{}{}{}{}{}", head, last, o.csv_sep, e.aggr_cpus, o.csv_sep);
  return fmt::sprintf("%s%-*d %4d ", head, width, last, e.aggr_cpus);
}

std::string aggr_prefix(const StatReport& r, const StatEntry& e, const StatFormatOptions& o) {
  switch (r.aggr) {
    case StatAggr::kGlobal:
      return {};
    case StatAggr::kPerCpu:
      if (o.layout == StatLayout::kJson) return fmt::format("\"cpu\" : \"{}\", ", e.cpu);
      if (o.layout == StatLayout::kCsv) return fmt::format("CPU{}{}", e.cpu, o.csv_sep);
      return fmt::sprintf("CPU%-7d ", e.cpu);
    case StatAggr::kPerThread:
      if (o.layout == StatLayout::kJson) {
        return fmt::format("\"thread\" : \"{}-{}\", ", json_escape(e.comm), e.tid);
      }
      if (o.layout == StatLayout::kCsv) return fmt::format("{}-{}{}", e.comm, e.tid, o.csv_sep);
      return fmt::sprintf("%16s-%-8d ", e.comm, e.tid);
    case StatAggr::kPerSocket:
    case StatAggr::kPerDie:
    case StatAggr::kPerCore:
    case StatAggr::kPerNode:
      return place_prefix(r.aggr, e, o);
  }
  return {};
}

std::string format_line(const StatReport& r, std::size_t i, const StatFormatOptions& o,
                        const std::string& prefix, double wall_ns) {
  const StatEntry& e = r.entries[i];
  const StatUnit u = stat_unit(e.type, e.config);
  const bool ok = counted(e);
  const StatMetric m = ok ? compute_metric(r, i, wall_ns) : StatMetric{};
  const double shown = e.value * u.scale;
  const bool fractional = std::floor(u.scale) != u.scale;
  const char* mark = e.supported ? "<not counted>" : "<not supported>";
  const double run = e.time_running;
  const double pct = running_pct(e);
  std::string s = prefix + aggr_prefix(r, e, o);
  const std::string& cgroup = e.cgroup.empty() ? r.cgroup : e.cgroup;

  if (o.layout == StatLayout::kJson) {
    s = "{" + s;
    if (ok) {
      s += fmt::sprintf("\"counter-value\" : \"%f\", ", shown);
    } else {
      s += fmt::format("\"counter-value\" : \"{}\", ", mark);
    }
    s += fmt::format("\"unit\" : \"{}\", \"event\" : \"{}\", ", u.unit, json_escape(e.name));
    if (!cgroup.empty()) s += fmt::format("\"cgroup\" : \"{}\", ", json_escape(cgroup));
    if (r.runs > 1) s += fmt::sprintf("\"variance\" : %.2f, ", e.noise_pct);
    s += fmt::sprintf("\"event-runtime\" : %.0f, \"pcnt-running\" : %.2f, ", run, pct);
    if (m.present) {
      s += fmt::sprintf("\"metric-value\" : %f, \"metric-unit\" : \"%s\"", m.blank ? 0.0 : m.value,
                        m.unit);
    } else {
      s += "\"metric-value\" : 0.000000, \"metric-unit\" : \"\"";
    }
    return s + "}\n";
  }

  if (o.layout == StatLayout::kCsv) {
    const std::string& sep = o.csv_sep;
    if (ok) {
      s += fmt::sprintf(fractional ? "%.2f" : "%.0f", shown);
    } else {
      s += mark;
    }
    s += sep + u.unit + sep + e.name;
    if (!cgroup.empty()) s += sep + cgroup;
    if (r.runs > 1) s += sep + fmt::sprintf("%.2f%%", e.noise_pct);
    s += sep + fmt::sprintf("%.0f", run) + sep + fmt::sprintf("%.2f", pct);
    if (m.present && !m.blank) {
      std::string unit = m.unit;
      while (!unit.empty() && unit.front() == ' ') unit.erase(0, 1);
      s += sep + csv_metric_value(m) + sep + unit;
    } else {
      s += sep + sep;
    }
    return s + "\n";
  }

  // Text.
  if (ok) {
    s += fmt::sprintf("%18s",
                      grouped(fmt::sprintf(fractional ? "%.2f" : "%.0f", shown), o.thousands_sep));
    s += " " + fmt::sprintf("%-*s", kUnitWidth, u.unit) + " ";
    s += fmt::sprintf("%-32s", e.name);
    if (!cgroup.empty()) s += " " + cgroup;
    if (m.present && !m.blank) {
      const std::string v = fmt::sprintf(m.format, m.value);
      const int n = 3 + static_cast<int>(v.size());
      s += " # " + v + " " + fmt::sprintf("%-*s", std::abs(kMetricLen - n - 1), m.unit);
    } else {
      s += fmt::sprintf("%-*s", kMetricLen, "");
    }
  } else {
    s += fmt::sprintf("%18s", mark);
    s += " " + fmt::sprintf("%-*s", kUnitWidth, u.unit) + " ";
    s += fmt::sprintf("%-25s", e.name);
    if (!cgroup.empty()) s += " " + cgroup;
    s += fmt::sprintf("%-*s", kMetricLen, "");
  }
  if (r.runs > 1 && e.noise_pct != 0) s += fmt::sprintf("  ( +-%6.2f%% )", e.noise_pct);
  if (run != e.time_enabled && e.time_enabled > 0) s += fmt::sprintf("  (%.2f%%)", pct);
  return s + "\n";
}

int precision_for(double sd) {
  // perf's get_precision(): digits needed to show the first significant digit of sd.
  if (sd > 1) return 0;
  if (sd <= 0) return 7;
  return static_cast<int>(std::lround(std::ceil(-std::log10(sd))));
}

}  // namespace

StatUnit stat_unit(std::uint32_t type, std::uint64_t config) {
  if (is_clock(type, config)) return StatUnit{"msec", 1e-6};
  if (type == kStatToolType) return StatUnit{"ns", 1.0};
  return StatUnit{"", 1.0};
}

StatMetric compute_metric(const StatReport& r, std::size_t index, double wall_ns) {
  const StatEntry& e = r.entries.at(index);
  auto clock_pred = [](const StatEntry& p) { return is_clock(p.type, p.config); };
  if (is_clock(e.type, e.config)) {
    if (wall_ns > 0) return metric(e.value / wall_ns, "CPUs utilized", "%8.3f");
    return {};
  }
  const double nsecs = peer_value(r, e, clock_pred);
  if (is_hw(e, PERF_COUNT_HW_CPU_CYCLES)) {
    if (nsecs > 0) return metric(e.value / nsecs, "GHz", "%8.3f");
    return blank_metric("Ghz");
  }
  if (is_hw(e, PERF_COUNT_HW_INSTRUCTIONS)) {
    const double cycles =
        peer_value(r, e, [](const StatEntry& p) { return is_hw(p, PERF_COUNT_HW_CPU_CYCLES); });
    if (cycles > 0) return metric(e.value / cycles, "insn per cycle", "%7.2f ");
    return blank_metric("insn per cycle");
  }
  if (is_hw(e, PERF_COUNT_HW_BRANCH_MISSES)) {
    const double branches = peer_value(
        r, e, [](const StatEntry& p) { return is_hw(p, PERF_COUNT_HW_BRANCH_INSTRUCTIONS); });
    if (branches > 0) return metric(100.0 * e.value / branches, "of all branches", "%7.2f%%");
    return blank_metric("of all branches");
  }
  if (is_hw(e, PERF_COUNT_HW_CACHE_MISSES)) {
    const double refs = peer_value(
        r, e, [](const StatEntry& p) { return is_hw(p, PERF_COUNT_HW_CACHE_REFERENCES); });
    if (refs > 0) return metric(100.0 * e.value / refs, "of all cache refs", "%7.2f%%");
    return blank_metric("of all cache refs");
  }
  constexpr std::uint64_t kL1dReadMiss = PERF_COUNT_HW_CACHE_L1D |
                                         (PERF_COUNT_HW_CACHE_OP_READ << 8) |
                                         (PERF_COUNT_HW_CACHE_RESULT_MISS << 16);
  constexpr std::uint64_t kL1dReadAccess = PERF_COUNT_HW_CACHE_L1D |
                                           (PERF_COUNT_HW_CACHE_OP_READ << 8) |
                                           (PERF_COUNT_HW_CACHE_RESULT_ACCESS << 16);
  if (e.type == PERF_TYPE_HW_CACHE && e.config == kL1dReadMiss) {
    const double loads = peer_value(r, e, [](const StatEntry& p) {
      return p.type == PERF_TYPE_HW_CACHE && p.config == kL1dReadAccess;
    });
    if (loads > 0) {
      return metric(100.0 * e.value / loads, "of all L1-dcache accesses", "%7.2f%%");
    }
    return blank_metric("of all L1-dcache accesses");
  }
  if (has_peer(r, e, clock_pred)) {
    double ratio = nsecs > 0 ? 1e9 * e.value / nsecs : 0;
    std::string unit = "/sec";
    if (ratio >= 1e9) {
      ratio /= 1e9;
      unit = "G/sec";
    } else if (ratio >= 1e6) {
      ratio /= 1e6;
      unit = "M/sec";
    } else if (ratio >= 1e3) {
      ratio /= 1e3;
      unit = "K/sec";
    }
    return metric(ratio, unit, "%8.3f");
  }
  return {};
}

namespace {

// perf's print_table() (--table): each run's wall time, its difference from the mean and
// a bar of one '#' plus one per 5% off, then the "Final result" caption.
std::string run_table(const StatReport& r, int precision, double avg) {
  const std::string first = fmt::sprintf(" %17.*f", precision, avg);
  const std::string indent(first.find_first_not_of(' '), ' ');
  std::string out = indent + "# Table of individual measurements:\n";
  for (double ns : r.run_elapsed_ns) {
    const double run = ns / 1e9;
    const int n = 1 + std::abs(static_cast<int>(100.0 * (run - avg) / run) / 5);
    out += fmt::sprintf(" %17.*f (%+.*f) ", precision, run, precision, run - avg);
    out += std::string(static_cast<std::size_t>(n), '#') + "\n";
  }
  return out + "\n" + indent + "# Final result:\n";
}

// perf's valid_only_metric(): rates are left out of --metric-only.
bool metric_only_unit(const std::string& unit) {
  return unit.find("/sec") == std::string::npos && unit.find("CPUs utilized") == std::string::npos;
}

// --metric-only's two lines: the units (perf's print_metric_header(), "%*s ") and the
// values (print_metric_only()); a counter not counted prints an empty value cell.
std::string metric_only_lines(const StatReport& r) {
  constexpr std::size_t kMetricOnlyLen = 20;  // perf's METRIC_ONLY_LEN
  std::string units, values;
  for (std::size_t i = 0; i < r.entries.size(); ++i) {
    if (!counted(r.entries[i])) {
      values += fmt::sprintf("%*s ", kMetricOnlyLen, "");
      continue;
    }
    const StatMetric m = compute_metric(r, i, r.elapsed_ns);
    if (!m.present || !metric_only_unit(m.unit)) continue;
    const std::size_t width = std::max(kMetricOnlyLen, m.unit.size() + 1);
    units += fmt::sprintf("%*s ", kMetricOnlyLen, m.unit);
    values +=
        fmt::sprintf("%*s ", width, m.blank ? std::string() : fmt::sprintf(m.format, m.value));
  }
  return units + "\n" + values + "\n";
}

}  // namespace

std::string format_stat(const StatReport& r, const StatFormatOptions& o) {
  return format_stat_summary(r, o, false);
}

std::string format_stat_summary(const StatReport& r, const StatFormatOptions& o, bool csv_summary) {
  std::string out;
  const bool text = o.layout == StatLayout::kText;
  if (text) {
    out += "\n Performance counter stats for " + r.target;
    if (r.runs > 1) out += fmt::format(" ({} runs)", r.runs);
    out += ":\n\n";
  }
  const std::string prefix = csv_summary && o.layout == StatLayout::kCsv
                                 ? fmt::sprintf("%16s%s", "summary", o.csv_sep)
                                 : std::string();
  if (text && o.metric_only) {
    out += metric_only_lines(r);
  } else {
    for (std::size_t i = 0; i < r.entries.size(); ++i)
      out += format_line(r, i, o, prefix, r.elapsed_ns);
  }
  if (text) {
    if (!r.entries.empty()) out += "\n";  // perf's print_footer(): not for a null run (-n)
    const double avg = r.elapsed_ns / 1e9;
    if (r.runs <= 1) {
      out += fmt::sprintf(" %17.9f seconds time elapsed", avg);
      if (r.show_rusage) {
        out += "\n\n";
        out += fmt::sprintf(" %17.9f seconds user\n", r.user_s);
        out += fmt::sprintf(" %17.9f seconds sys\n", r.sys_s);
      }
    } else {
      const double sd = r.elapsed_stddev_ns / 1e9;
      const int precision = precision_for(sd) + 2;
      if (r.table && r.run_elapsed_ns.size() > 1) out += run_table(r, precision, avg);
      out += fmt::sprintf(" %17.*f +- %.*f seconds time elapsed", precision, avg, precision, sd);
      const double pct = avg != 0 ? 100.0 * sd / avg : 0;
      if (pct != 0) out += fmt::sprintf("  ( +-%6.2f%% )", pct);
    }
    out += "\n\n";
  }
  return out;
}

namespace {

// perf's interval column header of each aggregation mode.
const char* interval_header(StatAggr a) {
  switch (a) {
    case StatAggr::kPerCpu:
      return "#           time CPU                    counts unit events\n";
    case StatAggr::kPerThread:
      return "#           time             comm-pid                  counts unit events\n";
    case StatAggr::kPerSocket:
      return "#           time socket cpus             counts unit events\n";
    case StatAggr::kPerDie:
      return "#           time die          cpus             counts unit events\n";
    case StatAggr::kPerCore:
      return "#           time core            cpus             counts unit events\n";
    case StatAggr::kPerNode:
      return "#           time node   cpus             counts unit events\n";
    case StatAggr::kGlobal:
      break;
  }
  return "#           time             counts unit events\n";
}

}  // namespace

std::string format_stat_interval(const StatReport& r, const StatFormatOptions& o, double time_s,
                                 bool column_header) {
  std::string out;
  if (column_header && o.layout == StatLayout::kText) {
    out += interval_header(r.aggr);
  }
  std::string prefix;
  if (o.layout == StatLayout::kJson) {
    prefix = fmt::sprintf("\"interval\" : %.9f, ", time_s);
  } else {
    prefix = fmt::sprintf("%16.9f", time_s) + (o.layout == StatLayout::kCsv ? o.csv_sep : " ");
  }
  for (std::size_t i = 0; i < r.entries.size(); ++i) {
    out += format_line(r, i, o, prefix, r.elapsed_ns);
  }
  return out;
}

std::string format_stat_started_on(std::time_t when) {
  char buf[64];
  std::tm tm{};
  ::localtime_r(&when, &tm);
  std::strftime(buf, sizeof buf, "%a %b %e %H:%M:%S %Y", &tm);
  return fmt::format("# started on {}\n\n", buf);
}

RunStats run_stats(const std::vector<double>& samples) {
  RunStats s;
  if (samples.empty()) return s;
  // Welford, as perf's update_stats().
  double mean = 0;
  double m2 = 0;
  double n = 0;
  for (double x : samples) {
    n += 1;
    const double d = x - mean;
    mean += d / n;
    m2 += d * (x - mean);
  }
  s.mean = mean;
  if (samples.size() >= 2) {
    const double variance = m2 / (n - 1);
    s.stddev_of_mean = std::sqrt(variance / n);
  }
  s.rel_pct = mean != 0 ? 100.0 * s.stddev_of_mean / mean : 0;
  return s;
}

}  // namespace perfx
