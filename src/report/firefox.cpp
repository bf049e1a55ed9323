#include "report/firefox.hpp"

#include <algorithm>
#include <optional>
#include <span>
#include <unordered_map>

#include <fmt/format.h>

#include "report/export_util.hpp"
#include "report/side_text.hpp"

namespace perfx::report {
namespace {

// Category indices into meta.categories below.
int category_of(profile::FrameKind kind) {
  switch (kind) {
    case profile::FrameKind::kUser:
      return 0;
    case profile::FrameKind::kKernel:
      return 1;
    case profile::FrameKind::kJit:
      return 2;
    case profile::FrameKind::kOffCpu:
      return 4;
    case profile::FrameKind::kUnknown:
      break;
  }
  return 3;
}

// Per-thread tables of the Gecko format (every thread has its own string, frame and
// stack tables). Profile frame/stack -> row lookups use arrays shared by all threads
// with a per-thread generation stamp, so a new thread costs nothing to reset.
struct ThreadTables {
  std::vector<std::string> strings;
  std::unordered_map<std::string, std::uint32_t> string_index;
  std::string frame_rows;
  std::uint32_t frame_count = 0;
  std::unordered_map<std::uint64_t, std::uint32_t> stack_index;  // (prefix+1)<<32|frame
  std::string stack_rows;
  std::uint32_t stack_count = 0;

  std::uint32_t intern(const std::string& s) {
    auto [it, inserted] = string_index.try_emplace(s, static_cast<std::uint32_t>(strings.size()));
    if (inserted) strings.push_back(s);
    return it->second;
  }
};

// index -> row of the current thread (valid when gen[index] == current generation).
struct StampedRows {
  std::vector<std::int64_t> row;
  std::vector<std::uint32_t> gen;
  explicit StampedRows(std::size_t n) : row(n, -1), gen(n, 0) {}
  bool find(std::size_t i, std::uint32_t g, std::int64_t& out) const {
    if (gen[i] != g) return false;
    out = row[i];
    return true;
  }
  void set(std::size_t i, std::uint32_t g, std::int64_t r) {
    gen[i] = g;
    row[i] = r;
  }
};

using Group = detail::SamplesByThread::Group;

// The threads of `groups`, each a complete Gecko thread object with its own tables,
// comma separated (a leading comma unless `first`).
// An off-CPU interval (a sample ending in a kOffCpu frame) is one sample weighted by its
// ns, but the Gecko format has no sample weights: it is written as one sample every
// `off_step_ns` (the on-CPU samples' mean period) over the interval, so the call tree's
// sample counts and the timeline both show on- and off-CPU time on one scale. At most
// kMaxOffCpuRows rows per interval.
constexpr std::uint64_t kMaxOffCpuRows = 100000;

bool ends_off_cpu(const profile::Profile& profile, const profile::Sample& s) {
  const auto& st = profile.stacks[s.stack];
  return !st.empty() && profile.frames[st.back()].kind == profile::FrameKind::kOffCpu;
}

Result<void> write_threads(detail::TextSink& j, const profile::Profile& profile,
                           const core::HugeVector<std::uint32_t>& order,
                           std::span<const Group> groups, bool first, const ExportOptions& options,
                           std::uint64_t off_step_ns) {
  StampedRows frame_rows(profile.frames.size());
  StampedRows stack_rows(profile.stacks.size());
  std::uint32_t generation = 0;
  for (const Group& run : groups) {
    const std::uint32_t thread = profile.samples[order[run.begin]].thread;
    ThreadTables t;
    ++generation;
    if (!first) j.push_back(',');
    first = false;
    std::string name = "thread";
    std::int32_t pid = 0;
    std::int32_t tid = 0;
    if (thread < profile.threads.size()) {
      name = profile.threads[thread].comm;
      pid = profile.threads[thread].pid;
      tid = profile.threads[thread].tid;
    }
    j += "{\"name\":";
    detail::append_json_string(j, name);
    fmt::format_to(std::back_inserter(j),
                   ",\"processName\":\"{}\",\"processType\":\"default\",\"pid\":{},\"tid\":{},"
                   "\"registerTime\":0,\"unregisterTime\":null,",
                   pid, pid, tid);
    j += "\"markers\":{\"schema\":{\"name\":0,\"startTime\":1,\"endTime\":2,\"phase\":3,"
         "\"category\":4,\"data\":5},\"data\":[]},";
    j += "\"samples\":{\"schema\":{\"stack\":0,\"time\":1,\"responsiveness\":2},\"data\":[";
    // Sample rows go straight to the output buffer (flushed as it fills); the thread's
    // frame and stack tables they refer to are built on the way and follow them.
    for (std::size_t k = run.begin; k < run.end; ++k) {
      const auto& s = profile.samples[order[k]];
      std::int64_t stack_row = -1;
      if (!stack_rows.find(s.stack, generation, stack_row)) {
        std::int64_t prefix = -1;  // root-first walk builds (prefix, frame) rows
        for (std::uint32_t f : profile.stacks[s.stack]) {
          const auto& frame = profile.frames[f];
          if (frame.inlined && !options.inline_frames) continue;
          std::int64_t frame_row = -1;
          if (!frame_rows.find(f, generation, frame_row)) {
            std::string location = frame.function.empty() ? "[unknown]" : frame.function;
            if (!frame.dso.empty()) location += " (in " + frame.dso + ")";
            if (t.frame_count) t.frame_rows.push_back(',');
            fmt::format_to(std::back_inserter(t.frame_rows), "[{},false,0,null,null,",
                           t.intern(location));
            if (frame.line) {
              fmt::format_to(std::back_inserter(t.frame_rows), "{}", frame.line);
            } else {
              t.frame_rows += "null";
            }
            fmt::format_to(std::back_inserter(t.frame_rows), ",null,{},0]",
                           category_of(frame.kind));
            frame_row = t.frame_count++;
            frame_rows.set(f, generation, frame_row);
          }
          const std::uint64_t key = (static_cast<std::uint64_t>(prefix + 1) << 32) |
                                    static_cast<std::uint64_t>(frame_row);
          auto [sit, sinserted] = t.stack_index.try_emplace(key, t.stack_count);
          if (sinserted) {
            if (t.stack_count) t.stack_rows.push_back(',');
            if (prefix < 0) {
              fmt::format_to(std::back_inserter(t.stack_rows), "[null,{}]", frame_row);
            } else {
              fmt::format_to(std::back_inserter(t.stack_rows), "[{},{}]", prefix, frame_row);
            }
            ++t.stack_count;
          }
          prefix = sit->second;
        }
        stack_row = prefix;
        stack_rows.set(s.stack, generation, stack_row);
      }
      // Milliseconds since the first sample at microsecond resolution (as perf's Gecko
      // converter writes them; the profiler shows no finer): "1780.119".
      const std::uint64_t rel =
          s.time_ns >= profile.start_time_ns ? s.time_ns - profile.start_time_ns : 0;
      {
        auto row = j.row(64);  // ",[" stack "," time ",0]"
        if (k != run.begin) row.put(',');
        if (stack_row < 0) {
          row.put("[null,");
        } else {
          row.put('[');
          row.put_integer(stack_row);
          row.put(',');
        }
        row.put_millis(rel);
        row.put(",0]");
      }  // the row is committed here, before any expansion rows
      if (off_step_ns > 0 && s.period > off_step_ns && ends_off_cpu(profile, s)) {
        const std::uint64_t n = std::min(s.period / off_step_ns, kMaxOffCpuRows);
        for (std::uint64_t i = 1; i < n; ++i) {
          auto more = j.row(64);
          more.put(",[");
          more.put_integer(stack_row);
          more.put(',');
          more.put_millis(rel + i * off_step_ns);
          more.put(",0]");
        }
      }
    }

    j += "]},\"frameTable\":{\"schema\":{\"location\":0,\"relevantForJS\":1,\"innerWindowID\":2,"
         "\"implementation\":3,\"optimizations\":4,\"line\":5,\"column\":6,\"category\":7,"
         "\"subcategory\":8},\"data\":[";
    j += t.frame_rows;
    j += "]},\"stackTable\":{\"schema\":{\"prefix\":0,\"frame\":1},\"data\":[";
    j += t.stack_rows;
    j += "]},\"stringTable\":[";
    for (std::size_t s = 0; s < t.strings.size(); ++s) {
      if (s) j.push_back(',');
      detail::append_json_string(j, t.strings[s]);
    }
    j += "]}";
  }
  return {};
}

}  // namespace

Result<void> write_firefox(const profile::Profile& profile, std::ostream& out,
                           const ExportOptions& options) {
  PERFX_CHECK(profile::check_indices(profile));
  PERFX_TRY(event, detail::select_event(profile, options));
  const std::string title = detail::display_title(profile, options);
  const double interval_ms = [&] {
    // Mean time between samples of one thread is a fair "interval" for the UI.
    if (profile.samples.size() < 2 || profile.end_time_ns <= profile.start_time_ns) return 1.0;
    const double span = static_cast<double>(profile.end_time_ns - profile.start_time_ns) / 1e6;
    return std::max(0.001,
                    span * static_cast<double>(std::max<std::size_t>(profile.threads.size(), 1)) /
                        static_cast<double>(profile.samples.size()));
  }();

  detail::TextSink j(out);
  j += "{\"meta\":{";
  fmt::format_to(std::back_inserter(j),
                 "\"version\":{},\"interval\":{:.6f},\"startTime\":0,\"shutdownTime\":null,"
                 "\"processType\":0,\"stackwalk\":1,\"debug\":0,\"gcpoison\":0,\"asyncstack\":0,"
                 "\"presymbolicated\":true,\"markerSchema\":[],\"product\":",
                 kGeckoFormatVersion, interval_ms);
  detail::append_json_string(j, title);
  j += ",\"categories\":["
       "{\"name\":\"User\",\"color\":\"yellow\",\"subcategories\":[\"Other\"]},"
       "{\"name\":\"Kernel\",\"color\":\"orange\",\"subcategories\":[\"Other\"]},"
       "{\"name\":\"JIT\",\"color\":\"green\",\"subcategories\":[\"Other\"]},"
       "{\"name\":\"Other\",\"color\":\"grey\",\"subcategories\":[\"Other\"]},"
       "{\"name\":\"Off-CPU\",\"color\":\"blue\",\"subcategories\":[\"Other\"]}]";
  j += "},\"libs\":[],\"processes\":[],\"pausedRanges\":[],\"threads\":[";

  // Samples of the event grouped by thread, in time order. The threads after the middle
  // sample are formatted on the other core meanwhile (when they are enough to pay for a
  // thread): the sample rows are most of the work.
  const auto by_thread = detail::samples_by_thread(profile, event);
  const auto& order = by_thread.order;  // (a structured binding: clang < 16 cannot capture it)
  const auto& groups = by_thread.groups;
  const std::span<const Group> all(groups);
  // Off-CPU intervals are spread at the on-CPU samples' mean period (write_threads()).
  std::uint64_t off_step_ns = 0;
  {
    std::uint64_t on_period = 0, on_count = 0;
    bool any_off = false;
    for (const std::uint32_t i : order) {
      const auto& s = profile.samples[i];
      if (s.event >= profile.events.size() || !profile.events[s.event].off_cpu) continue;
      if (ends_off_cpu(profile, s)) {
        any_off = true;
      } else {
        on_period += s.period;
        on_count += s.count;
      }
    }
    if (any_off)
      off_step_ns = on_count > 0 ? std::max<std::uint64_t>(on_period / on_count, 1) : 1000000;
  }
  std::size_t split = 0;  // groups[split...] go to the side
  while (split < all.size() && all[split].end <= order.size() / 2) ++split;
  if (split < all.size()) ++split;  // the thread holding the middle stays here
  Result<void> side_result;
  std::optional<detail::SideText> side;
  if (split < all.size() && order.size() - all[split].begin >= detail::kSideTextMinRows) {
    const std::size_t rows = order.size() - all[split].begin;
    side.emplace([&](detail::SideText::Parts& parts) {
      side_result = write_threads(parts.emplace_back(rows * 24), profile, order, all.subspan(split),
                                  false, options, off_step_ns);
    });
  } else {
    split = all.size();
  }
  if (auto r = write_threads(j, profile, order, all.first(split), true, options, off_step_ns); !r)
    return r;
  if (side) {
    side->append_to(j);
    if (!side_result) return side_result;
  }
  j += "]}\n";
  return j.finish();
}

}  // namespace perfx::report
