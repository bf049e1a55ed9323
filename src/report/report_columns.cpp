#include "report/report_columns.hpp"

#include <fmt/format.h>

#include <algorithm>

#include "core/c_hex.hpp"

namespace perfx::report {
namespace {

using profile::SortKey;

// The time sort key's column: perf's HISTC_TIME, 12 (16 with --ns), whatever the times.
std::size_t time_width(const ReportOptions& o) { return o.nanoseconds ? 16 : 12; }

std::string pct(double v) { return fmt::format("{:.2f}%", v); }

constexpr std::string_view kInlinedSuffix = " (inlined)";

std::string sym_text(const profile::Frame& f, char level, bool raw) {
  if (profile::unresolved(f))
    return fmt::format("[{}] {}", level, core::c_alt_hex18(profile::shown_address(f, raw)));
  return fmt::format("[{}] {}{}", level, f.function, f.inlined ? kInlinedSuffix : "");
}

}  // namespace

std::string_view sort_key_header(SortKey key) {
  switch (key) {
    case SortKey::kComm:
      return "Command";
    case SortKey::kPid:
      return "    Pid:Command";  // perf's se_header, right-aligned pid
    case SortKey::kTid:
      return "Tid:Command";
    case SortKey::kDso:
      return "Shared Object";
    case SortKey::kSym:
      return "Symbol";
    case SortKey::kSrcline:
      return "Source:Line";
    case SortKey::kSrcfile:
      return "Source File";
    case SortKey::kCpu:
      return "CPU";
    case SortKey::kTime:
      return "Time";
    case SortKey::kParent:
      return "Parent symbol";
    case SortKey::kSocket:
      return "Socket";
    case SortKey::kTrace:
      return "Trace output";
    case SortKey::kSymbolSize:
      return "Symbol size";
    case SortKey::kDsoSize:
      return "DSO size";
    case SortKey::kIpcNull:
      return "IPC   [IPC Coverage]";
  }
  return {};
}

const std::vector<std::string>* elided_filter(SortKey k, const ReportOptions& o) {
  const std::vector<std::string>* list = nullptr;
  if (k == SortKey::kComm) list = &o.thread_filter.comms;
  if (k == SortKey::kDso) list = &o.dsos;
  if (k == SortKey::kSym) list = &o.symbols;
  return list != nullptr && list->size() == 1 ? list : nullptr;
}

ReportColumns::ReportColumns(const profile::Hists& hists, const ReportOptions& o,
                             std::vector<std::uint64_t> totals)
    : h_(hists), o_(o), totals_(std::move(totals)) {
  if (o_.fields.empty()) {
    if (h_.children) {
      cols_.push_back(Col{Kind::kChildren, 0, "Children", 8});
      cols_.push_back(Col{Kind::kSelf, 0, "Self", 8});
    } else {
      cols_.push_back(Col{Kind::kSelf, 0, "Overhead", 8});
    }
    if (o_.show_nr_samples) cols_.push_back(Col{Kind::kSamples, 0, "Samples", 12});
    if (o_.show_total_period) cols_.push_back(Col{Kind::kPeriod, 0, "Period", 12});
    // --sort's keys and output fields in its order (perf: -s dso,period shows Period last).
    for (const auto& name : o_.sort) {
      if (const auto k = profile::sort_key_named(name))
        add_key(*k);
      else if (const auto f = profile::sort_field_named(name);
               f && *f != "overhead" && *f != "overhead_children")
        add_field(*f);
    }
  } else {
    for (const auto& f : o_.fields) {
      if (add_field(f)) continue;
      if (const auto k = profile::sort_key_named(f)) add_key(*k);
    }
  }
  for (SortKey k : h_.options.keys) add_key(k);
  // A group's value columns hold one value per member, each as wide as one.
  for (auto& c : cols_)
    if (c.kind != Kind::kKey) c.width *= h_.members;
}

bool ReportColumns::add_field(std::string_view field) {
  if (field == "overhead")
    cols_.push_back(Col{Kind::kSelf, 0, "Overhead", 8});
  else if (field == "overhead_children")
    cols_.push_back(Col{Kind::kChildren, 0, "Children", 8});
  else if (field == "period")
    cols_.push_back(Col{Kind::kPeriod, 0, "Period", 12});
  else if (field == "sample")
    cols_.push_back(Col{Kind::kSamples, 0, "Samples", 12});
  else if (field == "overhead_sys")
    cols_.push_back(Col{Kind::kSys, 0, "sys", 8});
  else if (field == "overhead_us")
    cols_.push_back(Col{Kind::kUser, 0, "usr", 8});
  else
    return false;
  return true;
}

void ReportColumns::add_key(SortKey k) {
  if (elided_filter(k, o_) != nullptr) return;
  const auto& keys = h_.options.keys;
  for (const auto& c : cols_)
    if (c.kind == Kind::kKey && keys[c.key] == k) return;
  const auto idx = static_cast<std::size_t>(std::find(keys.begin(), keys.end(), k) - keys.begin());
  cols_.push_back(Col{Kind::kKey, idx, std::string(sort_key_header(k)), 0});
}

bool ReportColumns::shows_children() const {
  return h_.children && std::any_of(cols_.begin(), cols_.end(),
                                    [](const Col& c) { return c.kind == Kind::kChildren; });
}

double ReportColumns::shown_percent(const profile::HistEntry& e) const {
  const double total = static_cast<double>(totals_[0]);
  const auto v = shows_children() ? e.values.children : e.values.self;
  return total > 0 ? 100.0 * static_cast<double>(v) / total : 0.0;
}

void ReportColumns::size(const std::vector<const profile::HistEntry*>& rows) {
  const profile::Profile& p = *h_.profile;
  for (auto& col : cols_) {
    if (col.kind != Kind::kKey) continue;
    const SortKey k = h_.options.keys[col.key];
    std::size_t w = sort_key_header(k).size();
    // perf sizes CPU by its header only ("-001" for no CPU field overflows it), and
    // Command by the comm each thread had last (thread__comm_len()): a row of an
    // earlier, longer comm is cut to it ("perf-ex" for perf-exec before the exec).
    if (k == SortKey::kComm) {
      for (const auto* e : rows) w = std::max(w, last_comm(p.threads[e->thread].tid).size());
    } else if (k == SortKey::kTime) {
      w = time_width(o_);
    } else if (k != SortKey::kCpu && k != SortKey::kSocket && k != SortKey::kSymbolSize &&
               k != SortKey::kDsoSize && k != SortKey::kIpcNull) {
      // Source lines and files only of entries perf looked up before sizing; symbols by
      // their name (perf's namelen + 4: an inline one's " (inlined)" does not count).
      for (const auto* e : rows) {
        if ((e->looked_up >> col.key & 1u) == 0) continue;
        std::size_t cw = cell_text(*e, col.key).size();
        if (k == SortKey::kSym && p.frames[e->frame].inlined) cw -= kInlinedSuffix.size();
        w = std::max(w, cw);
      }
    }
    // perf's hists__set_unres_dso_col_len(): an entry without a symbol widens Shared
    // Object to an address's 16 digits (not with --dsos or a field separator).
    if (k == SortKey::kDso && w < 16 && o_.dsos.empty() && o_.field_separator.empty() &&
        std::any_of(rows.begin(), rows.end(), [&](const profile::HistEntry* e) {
          return profile::unresolved(p.frames[e->frame]);
        }))
      w = 16;
    col.width = w;
  }
}

std::string ReportColumns::header() const {
  const bool separated = !o_.field_separator.empty();
  std::string hdr = "#";
  std::string dots = "#";
  for (std::size_t c = 0; c < cols_.size(); ++c) {
    const Col& col = cols_[c];
    const std::string_view sep = c == 0      ? std::string_view(" ")
                                 : separated ? std::string_view(o_.field_separator)
                                             : std::string_view("  ");
    hdr += sep;
    dots += sep;
    if (col.kind == Kind::kKey)
      hdr += fmt::format("{:<{}}", col.header, col.width);
    else
      hdr += fmt::format("{:>{}}", col.header, col.width);
    dots += std::string(col.width, '.');
  }
  // perf prints no dot rule (nor the "#" under it) with a field separator.
  if (separated) return hdr + "\n";
  return hdr + "\n" + dots + "\n#\n";
}

std::string ReportColumns::percent(std::uint32_t m, std::uint64_t v) const {
  const auto total = static_cast<double>(totals_[m]);
  return pct(total > 0 ? 100.0 * static_cast<double>(v) / total : 0.0);
}

std::string ReportColumns::line(const profile::HistEntry& e) const {
  const bool separated = !o_.field_separator.empty();
  std::string line = separated ? "" : " ";
  for (std::size_t c = 0; c < cols_.size(); ++c) {
    const Col& col = cols_[c];
    if (separated) {
      if (c > 0) line += o_.field_separator;
      line += separated_cell(e, col, c + 1 == cols_.size());
      continue;
    }
    line += " ";
    if (c > 0) line += " ";
    if (col.kind == Kind::kKey)
      line += key_cell(cell_text(e, col.key), col, c + 1 == cols_.size());
    else
      line += value_cell(e, col);
  }
  return line;
}

// A value column's cell: a group's values, one per member, the leader first.
std::string ReportColumns::value_cell(const profile::HistEntry& e, const Col& col) const {
  std::string cell;
  for (std::uint32_t m = 0; m < h_.members; ++m) {
    const profile::HistValues& v = e.member(m);
    switch (col.kind) {
      case Kind::kChildren:
        cell += fmt::format("{:>8}", h_.children ? percent(m, v.children) : std::string("N/A"));
        break;
      case Kind::kSelf:
        cell += fmt::format("{:>8}", percent(m, v.self));
        break;
      case Kind::kSamples:
        cell += fmt::format("{:>12}", v.samples);
        break;
      case Kind::kPeriod:
        cell += fmt::format("{:>12}", v.self);  // perf: the self period
        break;
      case Kind::kSys:
        cell += fmt::format("{:>8}", percent(m, v.self_sys));
        break;
      case Kind::kUser:
        cell += fmt::format("{:>8}", percent(m, v.self - v.self_sys));
        break;
      case Kind::kKey:
        break;
    }
  }
  return cell;
}

std::string ReportColumns::values_text(const profile::HistEntry& e) const {
  std::string out;
  for (const Col& col : cols_)
    if (col.kind != Kind::kKey) out += "  " + value_cell(e, col);
  return out;
}

const ReportColumns::Col* ReportColumns::key_col(std::size_t key) const {
  for (const Col& col : cols_)
    if (col.kind == Kind::kKey && col.key == key) return &col;
  return nullptr;
}

std::string ReportColumns::key_text(const profile::HistEntry& e, std::size_t key) const {
  const Col* col = key_col(key);
  if (col == nullptr) return {};
  std::string v = key_cell(cell_text(e, key), *col, true);
  v.erase(0, v.find_first_not_of(' '));
  return v;
}

std::size_t ReportColumns::values_width() const {
  std::size_t w = 0;
  bool first = true;
  for (const Col& col : cols_) {
    if (col.kind == Kind::kKey) continue;
    w += col.width + (first ? 0 : 2);
    first = false;
  }
  return w;
}

// perf's hists__fprintf_hierarchy_headers(): the value headers after the indent of the
// deepest level, the key headers joined by " / "; the dot rule as wide as the widest of
// those headers and each level's indent plus its column.
std::string ReportColumns::hierarchy_header() const {
  std::vector<const Col*> keys;
  for (const Col& col : cols_)
    if (col.kind == Kind::kKey) keys.push_back(&col);
  const std::size_t indent = keys.empty() ? 0 : (keys.size() - 1) * 3;
  std::string hdr(indent, ' ');
  std::string dots(indent, '.');
  bool first = true;
  for (const Col& col : cols_) {
    if (col.kind == Kind::kKey) continue;
    hdr += fmt::format("{:>{}}  ", col.header, col.width);
    dots += (first ? "" : "..") + std::string(col.width, '.');
    first = false;
  }
  std::string names;
  std::size_t width = 0;
  for (std::size_t d = 0; d < keys.size(); ++d) {
    std::string name = keys[d]->header;
    name.erase(0, name.find_first_not_of(' '));
    names += (d > 0 ? " / " : "") + name;
    width = std::max(width, d * 3 + keys[d]->width);
  }
  width = std::max(width, names.size());
  return hdr + names + "\n# " + dots + "  " + std::string(width, '.') + "\n#\n";
}

// A cell with -t (perf's field_sep): a value as " %.2f%%" / " %llu" padded after it to
// the column width (hist_entry__snprintf_alignment()); a key as without -t, the
// separator's first character in it turned into '.' (repsep_snprintf()).
std::string ReportColumns::separated_cell(const profile::HistEntry& e, const Col& col,
                                          bool last) const {
  std::string v;
  switch (col.kind) {
    case Kind::kChildren:
      v = " " + (h_.children ? percent(0, e.values.children) : std::string("N/A"));
      break;
    case Kind::kSelf:
      v = " " + percent(0, e.values.self);
      break;
    case Kind::kSamples:
      v = fmt::format(" {}", e.values.samples);
      break;
    case Kind::kPeriod:
      v = fmt::format(" {}", e.values.self);
      break;
    case Kind::kSys:
      v = " " + percent(0, e.values.self_sys);
      break;
    case Kind::kUser:
      v = " " + percent(0, e.values.self - e.values.self_sys);
      break;
    case Kind::kKey:
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
// 10,000 s is narrower than its 12-wide column. Commands, source lines and files (and
// the trace key's text, sized as lazily) are cut to the column wherever they are.
std::string ReportColumns::key_cell(std::string v, const Col& col, bool last) const {
  const SortKey k = h_.options.keys[col.key];
  if (last && k == SortKey::kSym) return v;
  const bool cut = k == SortKey::kSrcline || k == SortKey::kSrcfile || k == SortKey::kTrace;
  if (last && (cut || k == SortKey::kTime)) return fmt::format("{:.{}}", v, col.width);
  if (k == SortKey::kComm || cut) return fmt::format("{:<{}.{}}", v, col.width, col.width);
  return fmt::format("{:<{}}", v, col.width);
}

std::string ReportColumns::cell_text(const profile::HistEntry& e, std::size_t key) const {
  const profile::Profile& p = *h_.profile;
  const auto& f = p.frames[e.frame];
  const auto& th = p.threads[e.thread];
  switch (h_.options.keys[key]) {
    case SortKey::kComm:
      return th.comm;
    case SortKey::kPid:  // perf: thread id and the thread's last comm
      return fmt::format("{:>7}:{}", th.tid, last_comm(th.tid));
    case SortKey::kTid:
      return fmt::format("{:>7}:{}", th.tid, th.comm);
    case SortKey::kDso:
      return f.dso;
    case SortKey::kSym:
      return sym_text(f, e.level, e.raw);
    case SortKey::kSrcline:
      return profile::frame_srcline(f, o_.full_source_path);
    case SortKey::kSrcfile:
      return profile::frame_srcfile(f, o_.full_source_path);
    case SortKey::kParent:
      return e.parent == profile::kNoParent ? std::string("[other]") : h_.parents[e.parent];
    case SortKey::kSocket: {  // perf's "%*.*d": the column's width, three digits
      const int socket = profile::socket_of(h_, e.cpu);
      return fmt::format(
          "{:>6}", socket < 0 ? fmt::format("-{:03}", -socket) : fmt::format("{:03}", socket));
    }
    case SortKey::kTime:  // perf's timestamp__scnprintf_usec() (--ns: _nsec()), cut to the column
      if (o_.nanoseconds)
        return fmt::format("{}.{:09}", e.time / 1000000000u, e.time % 1000000000u)
            .substr(0, time_width(o_));
      return fmt::format("{}.{:06}", e.time / 1000000000u, e.time % 1000000000u / 1000u)
          .substr(0, time_width(o_));
    case SortKey::kCpu:
      // perf's "%*.*d" of sample->cpu, which is -1 when the event has no CPU field.
      if (!p.events[h_.event].has_cpu) return "-001";
      return fmt::format("{:03}", e.cpu);
    case SortKey::kTrace:  // perf: "N/A" for an event that is not a tracepoint
      return e.trace == profile::Profile::kNoTrace ? std::string("N/A") : p.traces[e.trace];
    case SortKey::kSymbolSize:  // perf's "%*d" of symbol__size(), "unknown" without one
      return profile::unresolved(f) ? fmt::format("{:>11}", "unknown")
                                    : fmt::format("{:>11}", f.symbol_size);
    case SortKey::kDsoSize: {  // perf's "%*d" of map__size(), "unknown" without a map
      const std::uint64_t size = profile::map_size(p, f);
      return f.mapping < 0 ? fmt::format("{:>8}", "unknown") : fmt::format("{:>8}", size);
    }
    case SortKey::kIpcNull:  // perf's sort_sym_ipc_null: no IPC without branch stacks
      return "-      -";
  }
  return {};
}

// The comm a thread had last (perf prints thread__comm_str() at the end): threads are
// in first-sample order, a comm change adds a later entry for the same tid.
const std::string& ReportColumns::last_comm(std::int32_t tid) const {
  if (last_comm_.empty())
    for (const auto& t : h_.profile->threads) last_comm_[t.tid] = &t.comm;
  return *last_comm_.at(tid);
}

}  // namespace perfx::report
