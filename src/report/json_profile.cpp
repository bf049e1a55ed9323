#include "report/json_profile.hpp"

#include <algorithm>
#include <map>
#include <optional>
#include <thread>

#include <fmt/format.h>

#include "core/error_format.hpp"
#include "report/export_util.hpp"
#include "report/side_text.hpp"

namespace perfx::report {
namespace {

using detail::append_json_string;
using detail::TextSink;

struct FunctionSummary {
  std::string function;
  std::string dso;
  profile::FrameKind kind = profile::FrameKind::kUnknown;
  std::uint64_t self_samples = 0;
  std::uint64_t total_samples = 0;
  std::uint64_t self_period = 0;
  std::uint64_t total_period = 0;
};

std::size_t digits(std::uint64_t v) {
  std::size_t n = 1;
  for (; v >= 10; v /= 10) ++n;
  return n;
}

// `"function":"...","dso":"..."` of a frame or a row of the report.
void append_function_and_dso(TextSink& out, std::string_view function, std::string_view dso) {
  out += "\"function\":";
  append_json_string(out, function);
  out += ",\"dso\":";
  append_json_string(out, dso);
}

// Samples and period per stack of one event: what the "functions" section is made of.
struct StackTotals {
  std::vector<std::uint64_t> samples;
  std::vector<std::uint64_t> period;
  void reset(std::size_t stacks) {
    samples.assign(stacks, 0);
    period.assign(stacks, 0);
  }
  void add(const profile::Sample& s) {
    samples[s.stack] += 1;
    period[s.stack] += s.period;
  }
};

// The "functions" section's events: per (function, dso), self and total (children)
// samples and periods. `per_stack` holds event `counted_event`'s totals (-1: none);
// other events are counted here.
void write_functions(TextSink& out, const profile::Profile& profile, const ExportOptions& options,
                     std::int64_t counted_event, StackTotals& per_stack,
                     const std::vector<std::uint64_t>& ev_period) {
  const auto& stack_samples = per_stack.samples;
  const auto& stack_period = per_stack.period;
  bool first_event = true;
  for (std::size_t e = 0; e < profile.events.size(); ++e) {
    if (options.event >= 0 && e != static_cast<std::size_t>(options.event)) continue;
    std::map<std::pair<std::string, std::string>, FunctionSummary> summary;
    // Count per unique stack first, then per function (a function counted once per stack).
    if (static_cast<std::int64_t>(e) != counted_event) {
      per_stack.reset(profile.stacks.size());
      for (const auto& s : profile.samples)
        if (s.event == e) per_stack.add(s);
    }
    // Frame -> its (function, dso) row, looked up in the map once per frame.
    std::vector<FunctionSummary*> row_of_frame(profile.frames.size(), nullptr);
    std::vector<const FunctionSummary*> seen;
    for (std::size_t si = 0; si < profile.stacks.size(); ++si) {
      if (!stack_samples[si]) continue;
      const auto& stack = profile.stacks[si];
      seen.clear();
      for (std::size_t k = 0; k < stack.size(); ++k) {
        FunctionSummary*& row = row_of_frame[stack[k]];
        if (row == nullptr) {
          const auto& fr = profile.frames[stack[k]];
          row = &summary[{fr.function, fr.dso}];
          row->function = fr.function;
          row->dso = fr.dso;
        }
        auto& fs = *row;
        fs.kind = profile.frames[stack[k]].kind;  // the last frame seen decides, as ever
        if (k + 1 == stack.size()) {
          fs.self_samples += stack_samples[si];
          fs.self_period += stack_period[si];
        }
        if (std::find(seen.begin(), seen.end(), &fs) == seen.end()) {
          seen.push_back(&fs);
          fs.total_samples += stack_samples[si];
          fs.total_period += stack_period[si];
        }
      }
    }
    std::vector<const FunctionSummary*> rows;
    for (const auto& [key, fs] : summary) rows.push_back(&fs);
    std::sort(rows.begin(), rows.end(), [](const FunctionSummary* a, const FunctionSummary* b) {
      if (a->self_period != b->self_period) return a->self_period > b->self_period;
      if (a->total_period != b->total_period) return a->total_period > b->total_period;
      return a->function < b->function;
    });
    if (!first_event) out.push_back(',');
    first_event = false;
    fmt::format_to(std::back_inserter(out), "\n {{\"event\":{},\"rows\":[", e);
    const double total = static_cast<double>(std::max<std::uint64_t>(ev_period[e], 1));
    for (std::size_t r = 0; r < rows.size(); ++r) {
      const auto& fs = *rows[r];
      if (r) out.push_back(',');
      out += "\n  {";
      append_function_and_dso(out, fs.function, fs.dso);
      fmt::format_to(std::back_inserter(out),
                     ",\"kind\":\"{}\",\"self_samples\":{},\"total_samples\":{},"
                     "\"self_period\":{},\"total_period\":{},\"self_percent\":{:.4f},"
                     "\"total_percent\":{:.4f}}}",
                     detail::kind_name(fs.kind), fs.self_samples, fs.total_samples, fs.self_period,
                     fs.total_period, 100.0 * static_cast<double>(fs.self_period) / total,
                     100.0 * static_cast<double>(fs.total_period) / total);
    }
    out += "]}";
  }
}

// How a column writes a row's value (inlined into the column's loop).
struct PutInteger {
  template <typename Int>
  [[gnu::always_inline]] void operator()(TextSink::Row& row, Int v) const {
    row.put_integer(v);
  }
};
struct PutTime {
  TextSink::TimeDigits digits;
  [[gnu::always_inline]] void operator()(TextSink::Row& row, std::uint64_t ns) {
    row.put_time(digits, ns);
  }
};

// Totals of one pass over the samples: per event and thread (the head), per stack of
// one event (the report), the longest period (the size of its column).
struct SampleTotals {
  std::vector<std::uint64_t> ev_samples, ev_period, th_samples;
  std::int64_t only_event = -1;  // the event per_stack counts; -1: none
  StackTotals per_stack;
  std::size_t rows = 0;
  std::uint64_t max_period = 0;

  // Sized before the pass, which then allocates nothing.
  SampleTotals(const profile::Profile& profile, std::int64_t counted_event)
      : ev_samples(profile.events.size(), 0),
        ev_period(profile.events.size(), 0),
        th_samples(profile.threads.size(), 0),
        only_event(counted_event) {
    if (only_event >= 0) per_stack.reset(profile.stacks.size());
  }
  template <typename Wanted>
  void count(const profile::Profile& profile, Wanted wanted) {
    for (const auto& s : profile.samples) {
      if (!wanted(s)) continue;
      ++rows;
      max_period = std::max(max_period, s.period);
      if (s.event < ev_samples.size()) {
        ev_samples[s.event] += 1;
        ev_period[s.event] += s.period;
      }
      if (s.thread < th_samples.size()) th_samples[s.thread] += 1;
      if (s.event == only_event) per_stack.add(s);
    }
  }
};

// The document's head: the recording, its events and threads with their totals.
void write_head(TextSink& j, const profile::Profile& profile, const SampleTotals& totals) {
  fmt::format_to(std::back_inserter(j), "{{\n\"format\":\"perfx-profile\",\"version\":{},",
                 kJsonProfileVersion);
  j += "\"command_line\":";
  append_json_string(j, profile.command_line);
  j += ",\"hostname\":";
  append_json_string(j, profile.hostname);
  fmt::format_to(std::back_inserter(j),
                 ",\"start_time_ns\":{},\"end_time_ns\":{},\"lost_samples\":{},\n",
                 profile.start_time_ns, profile.end_time_ns, profile.lost_samples);
  j += "\"events\":[";
  for (std::size_t e = 0; e < profile.events.size(); ++e) {
    if (e) j.push_back(',');
    j += "\n {\"name\":";
    append_json_string(j, profile.events[e].name);
    j += ",\"unit\":";
    append_json_string(j, profile.events[e].unit);
    fmt::format_to(std::back_inserter(j), ",\"samples\":{},\"total_period\":{}}}",
                   totals.ev_samples[e], totals.ev_period[e]);
  }
  j += "],\n\"threads\":[";
  for (std::size_t t = 0; t < profile.threads.size(); ++t) {
    const auto& th = profile.threads[t];
    if (t) j.push_back(',');
    fmt::format_to(std::back_inserter(j), "\n {{\"pid\":{},\"tid\":{},\"comm\":", th.pid, th.tid);
    append_json_string(j, th.comm);
    fmt::format_to(std::back_inserter(j), ",\"samples\":{}}}", totals.th_samples[t]);
  }
  j += "],\n";
}

// The tables that need no totals: mappings, frames, stacks.
void write_tables(TextSink& j, const profile::Profile& profile) {
  j += "\"mappings\":[";
  for (std::size_t m = 0; m < profile.mappings.size(); ++m) {
    const auto& mp = profile.mappings[m];
    if (m) j.push_back(',');
    fmt::format_to(std::back_inserter(j),
                   "\n {{\"start\":{},\"limit\":{},\"offset\":{},\"file\":", mp.start, mp.limit,
                   mp.offset);
    append_json_string(j, mp.file);
    j += ",\"build_id\":";
    append_json_string(j, mp.build_id);
    j.push_back('}');
  }
  j += "],\n\"frames\":[";
  for (std::size_t f = 0; f < profile.frames.size(); ++f) {
    const auto& fr = profile.frames[f];
    if (f) j.push_back(',');
    j += "\n {";
    append_function_and_dso(j, fr.function, fr.dso);
    fmt::format_to(std::back_inserter(j),
                   ",\"address\":{},\"symbol_offset\":{},\"file\":", fr.address, fr.symbol_offset);
    append_json_string(j, fr.file);
    fmt::format_to(std::back_inserter(j),
                   ",\"line\":{},\"inlined\":{},\"kind\":\"{}\",\"mapping\":{}}}", fr.line,
                   fr.inlined, detail::kind_name(fr.kind), fr.mapping);
  }
  j += "],\n\"stacks\":[";
  for (std::size_t s = 0; s < profile.stacks.size(); ++s) {
    if (s) j.push_back(',');
    j += "\n [";
    for (std::size_t k = 0; k < profile.stacks[s].size(); ++k) {
      if (k) j.push_back(',');
      j.append_integer(profile.stacks[s][k]);
    }
    j.push_back(']');
  }
  j += "],\n";
}

}  // namespace

Result<void> write_json_profile(const profile::Profile& profile, std::ostream& out,
                                const ExportOptions& options) {
  if (options.event >= 0 && static_cast<std::size_t>(options.event) >= profile.events.size()) {
    return fail(Errc::kInvalidArgument, "event index {} out of range: the profile has {} events",
                options.event, profile.events.size());
  }
  auto wanted = [&](const profile::Sample& s) {
    return options.event < 0 || s.event == static_cast<std::uint32_t>(options.event);
  };
  PERFX_CHECK(profile::check_indices(profile));

  // samples, columnar: one pass per column, each a tight loop over one field.
  auto column = [&](TextSink& sink, std::string_view name, auto field, auto put) {
    sink += name;
    sink += ":[";
    bool first = true;
    for (const auto& s : profile.samples) {
      if (!wanted(s)) continue;
      auto row = sink.row(32);  // "," and a number
      if (!first) row.put(',');
      first = false;
      put(row, field(s));
    }
    sink.push_back(']');
  };
  using S = profile::Sample;
  // The columns in two runs: the first four, then the period and event.
  auto first_columns = [&](TextSink& sink) {
    column(
        sink, "\"stack\"", [](const S& s) { return s.stack; }, PutInteger{});
    column(
        sink, ",\n \"thread\"", [](const S& s) { return s.thread; }, PutInteger{});
    column(
        sink, ",\n \"cpu\"", [](const S& s) { return s.cpu; }, PutInteger{});
    column(
        sink, ",\n \"time_ns\"", [](const S& s) { return s.time_ns; }, PutTime{});
  };
  auto last_columns = [&](TextSink& sink) {
    column(
        sink, ",\n \"period\"", [](const S& s) { return s.period; }, PutInteger{});
    column(
        sink, ",\n \"event\"", [](const S& s) { return s.event; }, PutInteger{});
  };

  // The totals (one pass over the samples) come first: the head needs them. When one
  // event is reported (the usual case) they include its samples per stack for the report.
  const std::int64_t only_event =
      options.event >= 0 ? options.event : (profile.events.size() == 1 ? 0 : -1);
  SampleTotals totals(profile, only_event);

  // A big profile on more than one core: the other core makes the tables while this one
  // counts the totals; this one writes the head and tables, then the other writes the
  // first four columns straight into the stream (through its own buffer, in its core's
  // cache) while this one makes the last two and the report in memory.
  const bool big =
      profile.samples.size() >= detail::kSideTextMinRows && std::thread::hardware_concurrency() > 1;
  std::optional<TextSink> tables;  // (outlives the thread that writes it)
  if (big) tables.emplace(std::size_t{192} << 10);
  detail::SideWriter side;
  const bool two_cores = big && side.start([&] { write_tables(*tables, profile); },
                                           [&]() -> Result<void> {
                                             TextSink columns(out);
                                             first_columns(columns);
                                             return columns.finish();
                                           });
  totals.count(profile, wanted);
  TextSink j(out);
  write_head(j, profile, totals);
  if (two_cores) {
    side.wait_prepared();
    j += tables->text();
  } else {
    write_tables(j, profile);
  }
  j += "\"samples\":{";
  std::optional<TextSink> memory;
  if (two_cores) {
    PERFX_CHECK(j.finish());  // all written: the stream is the other thread's now
    side.hand_over(true);
    auto bytes = [n = totals.rows](std::uint64_t max) { return n * (digits(max) + 1); };
    memory.emplace(64 + bytes(totals.max_period) + bytes(profile.events.size()));
  } else {
    first_columns(j);
  }
  TextSink& rest = memory ? *memory : j;
  last_columns(rest);
  rest += "},\n\"functions\":[";
  write_functions(rest, profile, options, only_event, totals.per_stack, totals.ev_period);
  rest += "]\n}\n";
  if (two_cores) {
    PERFX_CHECK(side.join());
    j += rest.text();
  }
  return j.finish();
}

}  // namespace perfx::report
