#include "report/report_table.hpp"

#include <algorithm>
#include <optional>
#include <regex>

#include "core/error_format.hpp"
#include "report/report_columns.hpp"
#include "report/report_hierarchy.hpp"

namespace perfx::report {
namespace {

constexpr std::string_view kValueFields[] = {"overhead", "overhead_children", "sample", "period"};

bool is_value_field(std::string_view f) {
  return std::find(std::begin(kValueFields), std::end(kValueFields), f) != std::end(kValueFields);
}

}  // namespace

// The output fields perfx shows from --sort (perf's guest ones need guest samples).
bool is_sort_field(std::string_view f) {
  return is_value_field(f) || f == "overhead_sys" || f == "overhead_us";
}

namespace {

// The entry keys: the sort keys, then -F keys the sort keys lack ("overhead" adds none).
std::vector<profile::SortKey> entry_keys(const ReportOptions& o) {
  std::vector<profile::SortKey> keys;
  auto add = [&](const std::string& name) {
    const auto k = profile::sort_key_named(name);
    if (k && std::find(keys.begin(), keys.end(), *k) == keys.end()) keys.push_back(*k);
  };
  for (const auto& k : o.sort) add(k);
  for (const auto& f : o.fields) add(f);
  // perf 6.1 adds its ipc_null column ("IPC [IPC Coverage]", no branch stacks here) when
  // the --sort text has "symbol" in it (not for "sym", nor for -F).
  if (std::any_of(o.sort.begin(), o.sort.end(),
                  [](const std::string& k) { return k.find("symbol") != std::string::npos; }))
    keys.push_back(profile::SortKey::kIpcNull);
  return keys;
}

// -s keys, then -F fields, in order (perf_hpp__append_sort_keys()).
std::vector<profile::HistField> sort_fields(const ReportOptions& o) {
  using Kind = profile::HistField::Kind;
  std::vector<profile::HistField> fields;
  auto add = [&](const std::string& name) {
    if (name == "overhead" || name == "period" || profile::sort_field_named(name) == "period")
      fields.push_back({Kind::kSelf});
    else if (name == "overhead_children")
      fields.push_back({Kind::kChildren});
    else if (name == "sample")
      fields.push_back({Kind::kSamples});
    else if (const auto k = profile::sort_key_named(name))
      fields.push_back({Kind::kKey, *k});
  };
  for (const auto& k : o.sort) add(k);
  for (const auto& f : o.fields) add(f);
  return fields;
}

// perf's "# Samples: 1K": the count in K, M or G above a thousand.
std::string sample_count(std::uint64_t n) {
  char unit = ' ';
  for (const char u : {'K', 'M', 'G'}) {
    if (n <= 1000) break;
    n /= 1000;
    unit = u;
  }
  return std::to_string(n) + unit;
}

// One event's (or event group's) section of the report.
class EventReport {
 public:
  EventReport(const profile::Profile& p, const ReportOptions& o, std::uint32_t event,
              std::uint32_t members, std::string group_name, bool in_group)
      : p_(p),
        o_(o),
        h_(report_hists(p, o, event, members)),
        group_name_(std::move(group_name)),
        in_group_(in_group) {}

  void print(std::ostream& out) const {
    const auto& ev = p_.events[h_.event];
    // Per member: the percentages' base, the event's total period (less the samples
    // --hide-unresolved leaves out), or what passed the filters (--percentage relative).
    std::vector<std::uint64_t> totals(h_.members);
    for (std::uint32_t m = 0; m < h_.members; ++m)
      totals[m] = o_.relative_percentage ? h_.kept_period[m] : p_.events[h_.event + m].total_period;
    if (!o_.relative_percentage) totals[0] -= h_.hidden_period;
    std::optional<ReportColumns> columns(std::in_place, h_, o_, totals);
    const bool by_acc = columns->shows_children();
    profile::HistOrder order{by_acc, {}};
    if (o_.sort_keys_first) order.fields = sort_fields(o_);
    auto rows = profile::sorted_entries(h_, order);
    std::erase_if(rows, [&](const profile::HistEntry* e) { return !in_socket(*e); });
    if (symbol_filtered()) {
      std::erase_if(rows, [&](const profile::HistEntry* e) { return !in_symbol_filter(*e); });
      // perf's total_non_filtered_period: what the entries left have (self).
      if (o_.relative_percentage) {
        for (std::uint32_t m = 0; m < h_.members; ++m) {
          totals[m] = 0;
          for (const auto* e : rows) totals[m] += e->member(m).self;
        }
        columns.emplace(h_, o_, totals);
      }
    }
    ReportColumns& cols = *columns;
    // --percent-limit: an entry's shown share (children or self) below it.
    auto below_limit = [&](const profile::HistEntry* e) {
      return o_.percent_limit > 0 && cols.shown_percent(*e) < o_.percent_limit;
    };
    // --entries (perf top's screen): the first rows over the percent limit, which alone
    // size the columns (hists__output_recalc_col_len()).
    if (o_.max_entries > 0) {
      std::vector<const profile::HistEntry*> first;
      for (const auto* e : rows) {
        if (first.size() == o_.max_entries) break;
        if (!below_limit(e)) first.push_back(e);
      }
      rows = std::move(first);
    }
    cols.size(rows);
    const bool graphs = h_.callchains && o_.graph != GraphMode::kNone;
    if (!o_.quiet) {
      std::uint64_t n =
          o_.relative_percentage ? h_.kept_samples[0] : ev.total_samples - h_.hidden_samples;
      std::uint64_t shown_period = totals[0];
      for (std::uint32_t m = 1; m < h_.members; ++m) {  // a group's header sums its members
        n += o_.relative_percentage ? h_.kept_samples[m] : p_.events[h_.event + m].total_samples;
        shown_period += totals[m];
      }
      out << "# Samples: " << sample_count(n);
      if (h_.members > 1)
        out << " of events '" << group_text() << "'";
      else
        out << (in_group_ ? " of events '" : " of event '") << ev.name << "'";
      if (!o_.time_slices.empty()) out << " (time slices: " << o_.time_slices << ")";
      out << "\n";
      out << "# Event count (approx.): " << shown_period << "\n";
      if (o_.socket_filter >= 0) out << "# Processor Socket: " << o_.socket_filter << "\n";
      out << "#\n";
    }
    if (o_.hierarchy) {
      print_hierarchy(out, {h_, o_, cols, rows, graphs, totals[0]});
      out << "\n\n";
      return;
    }
    if (!o_.quiet) out << cols.header();
    const GraphStyle style = graph_style(o_);
    for (const auto* e : rows) {
      if (below_limit(e)) continue;
      std::string line = cols.line(*e);
      if (o_.max_cols > 0 && line.size() >= o_.max_cols) line.resize(o_.max_cols - 1);
      out << line << "\n";
      if (graphs && !e->chains.empty())
        print_call_graph(out, p_, profile::call_tree(h_, *e, call_key(o_.graph_key)), style,
                         totals[0], h_.children ? e->values.children : e->values.self);
    }
    out << "\n\n";
  }

 private:
  // perf 6.1 applies --socket-filter and --symbol-filter in hists__collapse_resort(),
  // which runs only when a sort key merges entries after they are made (comm, tid) or
  // with --hierarchy.
  [[nodiscard]] bool collapses() const {
    const auto& keys = h_.options.keys;
    return o_.hierarchy ||
           std::find(keys.begin(), keys.end(), profile::SortKey::kComm) != keys.end() ||
           std::find(keys.begin(), keys.end(), profile::SortKey::kTid) != keys.end();
  }
  [[nodiscard]] bool in_socket(const profile::HistEntry& e) const {
    return o_.socket_filter < 0 || !collapses() ||
           profile::socket_of(h_, e.cpu) == o_.socket_filter;
  }
  // perf sets the symbol filter on the recording's first event only.
  [[nodiscard]] bool symbol_filtered() const {
    return !o_.symbol_filter.empty() && h_.event == 0 && collapses();
  }
  // perf's hists__filter_entry_by_symbol(): the entry's symbol contains the text (an
  // entry without a symbol never does).
  [[nodiscard]] bool in_symbol_filter(const profile::HistEntry& e) const {
    if (e.frame == profile::kNoFrame) return false;
    const auto& f = p_.frames[e.frame];
    return !profile::unresolved(f) && f.function.find(o_.symbol_filter) != std::string::npos;
  }

  // perf's evsel__group_desc(): "anon group { cpu-clock, task-clock }".
  [[nodiscard]] std::string group_text() const {
    std::string out = group_name_.empty() ? std::string("anon group") : group_name_;
    out += " { ";
    for (std::uint32_t m = 0; m < h_.members; ++m) {
      if (m > 0) out += ", ";
      out += p_.events[h_.event + m].name;
    }
    return out + " }";
  }

  const profile::Profile& p_;
  const ReportOptions& o_;
  profile::Hists h_;
  std::string group_name_;
  bool in_group_ = false;  // one event of a group shown alone (--no-group): "of events"
};

}  // namespace

profile::Hists report_hists(const profile::Profile& profile, const ReportOptions& o,
                            std::uint32_t event, std::uint32_t members) {
  // perf's --hierarchy turns children off after the callchain order was chosen (caller
  // unless --no-children or -g callee).
  const profile::HistOptions ho{.keys = entry_keys(o),
                                .children = o.children && !o.hierarchy,
                                .callchains = o.graph != GraphMode::kNone,
                                .caller_order = o.hierarchy && !o.caller_order
                                                    ? std::optional<bool>(o.children)
                                                    : o.caller_order,
                                .max_stack = o.max_stack,
                                .hide_unresolved = o.hide_unresolved,
                                .dsos = o.dsos,
                                .symbols = o.symbols,
                                .thread_filter = o.thread_filter,
                                .parent_regex = o.parent_regex,
                                .exclude_other = o.exclude_other,
                                .ignore_callees = o.ignore_callees,
                                .time_quantum_ns = o.time_quantum_ns,
                                .full_source_path = o.full_source_path};
  return profile::build_hists(profile, ho, event, members);
}

}  // namespace perfx::report

namespace perfx {

Result<void> validate_sort_keys(const std::vector<std::string>& keys) {
  if (keys.empty()) return fail(Errc::kInvalidArgument, "--sort needs at least one key");
  for (const auto& k : keys) {
    const auto field = profile::sort_field_named(k);
    if (!profile::sort_key_named(k) && !(field && report::is_sort_field(*field)))
      return fail(Errc::kInvalidArgument,
                  "unknown sort key '{}' (valid: comm, pid, tid, dso, sym, symbol, srcline, "
                  "srcfile, cpu, time, parent, socket, trace, symbol_size, dso_size, overhead, "
                  "overhead_sys, overhead_us, overhead_children, sample, period)",
                  k);
  }
  return {};
}

std::vector<std::string> sort_keys_of_fields(const std::vector<std::string>& fields) {
  std::vector<std::string> keys;
  for (const auto& f : fields)
    if (const auto k = profile::sort_key_named(f)) keys.emplace_back(profile::sort_key_name(*k));
  if (keys.empty()) keys.emplace_back("overhead");
  return keys;
}

Result<void> validate_fields(const std::vector<std::string>& fields) {
  for (const auto& f : fields) {
    if (!report::is_value_field(f) && !profile::sort_key_named(f))
      return fail(Errc::kInvalidArgument,
                  "Unknown --fields key: `{}' (valid: overhead, overhead_children, sample, period, "
                  "comm, pid, tid, dso, sym, srcline, srcfile, cpu)",
                  f);
  }
  return {};
}

void report_profile_options(const ReportOptions& options, ProfileOptions& load) {
  for (const auto k : report::entry_keys(options)) {
    if (k == profile::SortKey::kSrcline || k == profile::SortKey::kSrcfile)
      load.source_lines = true;
    if (k == profile::SortKey::kTrace) load.trace_output = true;
  }
  load.raw_trace = options.raw_trace;
}

Result<void> check_ignore_callees(const std::string& regex) {
  try {
    (void)std::regex(regex, std::regex::extended);
  } catch (const std::regex_error& e) {
    return fail(Errc::kInvalidArgument, "Invalid --ignore-callees regex: {}: {}", regex, e.what());
  }
  return {};
}

Result<void> write_report(std::ostream& out, const profile::Profile& profile,
                          const ReportOptions& options) {
  PERFX_CHECK(validate_sort_keys(options.sort));
  PERFX_CHECK(validate_fields(options.fields));
  if (!options.ignore_callees.empty()) PERFX_CHECK(check_ignore_callees(options.ignore_callees));
  // perf's report__setup_sample_type(): -g asks for call graphs the file cannot give.
  if (options.graph_requested &&
      std::none_of(profile.events.begin(), profile.events.end(),
                   [](const profile::Event& e) { return e.has_callchain; }))
    return fail(Errc::kInvalidArgument,
                "Selected -g or --branch-history. But no callchain or branch data. Did you call "
                "'perf record' without -g or -b?");
  // perf's trace key shows a tracepoint sample's formatted fields: the profile must have
  // kept them (ProfileOptions::trace_output, set by report_profile_options()).
  const auto keys = report::entry_keys(options);
  if (std::find(keys.begin(), keys.end(), profile::SortKey::kTrace) != keys.end() &&
      profile.sample_traces.size() != profile.samples.size()) {
    for (const auto& ev : profile.events)
      if (ev.total_samples > 0 && ev.name.find(':') != std::string::npos)
        return fail(Errc::kInvalidArgument,
                    "the trace sort key of tracepoint events ({}) needs a profile loaded with "
                    "ProfileOptions::trace_output",
                    ev.name);
  }
  if (options.header_hint && !options.quiet)
    out << "# To display the perf.data header info, please use --header/--header-only "
           "options.\n#\n";
  // perf's sort__setup_elide(): "# dso: X" for a one-value filter of a shown key.
  for (const profile::SortKey k : report::entry_keys(options)) {
    if (const auto* list = report::elided_filter(k, options)) {
      const std::string_view name = k == profile::SortKey::kSym   ? "symbol"
                                    : k == profile::SortKey::kDso ? "dso"
                                                                  : "comm";
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
      const report::EventReport r(profile, options, ev, members,
                                  group != nullptr ? group->name : std::string(), in_group);
      r.print(out);
    }
    ev += members - 1;
  }
  if (!out) return fail(Errc::kIo, "writing the report failed");
  return {};
}

}  // namespace perfx
