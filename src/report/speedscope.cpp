#include "report/speedscope.hpp"

#include <algorithm>
#include <cstdint>
#include <string_view>
#include <utility>
#include <vector>

#include <fmt/format.h>

#include "core/error_format.hpp"
#include "report/export_util.hpp"

namespace perfx::report {

Result<void> write_speedscope(const profile::Profile& profile, std::ostream& out,
                              const ExportOptions& options) {
  PERFX_CHECK(profile::check_indices(profile));
  if (options.event >= 0 && static_cast<std::size_t>(options.event) >= profile.events.size()) {
    return fail(Errc::kInvalidArgument, "event index {} out of range: the profile has {} events",
                options.event, profile.events.size());
  }
  detail::TextSink j(out);
  j += "{\"$schema\":\"https://www.speedscope.app/file-format-schema.json\",\"exporter\":";
  detail::append_json_string(j, "perfx");
  j += ",\"name\":";
  detail::append_json_string(j, detail::display_title(profile, options));
  j += ",\"activeProfileIndex\":0,\"shared\":{\"frames\":[";
  // Frames: the profile's frames (kept when inline frames are dropped, but unused).
  for (std::size_t i = 0; i < profile.frames.size(); ++i) {
    const auto& f = profile.frames[i];
    if (i) j.push_back(',');
    j += "{\"name\":";
    std::string name = f.function.empty() ? "[unknown]" : f.function;
    if (f.kind == profile::FrameKind::kKernel) name += " [kernel]";
    detail::append_json_string(j, name);
    if (!f.file.empty()) {
      j += ",\"file\":";
      detail::append_json_string(j, f.file);
      if (f.line) fmt::format_to(std::back_inserter(j), ",\"line\":{}", f.line);
    } else if (!f.dso.empty()) {
      j += ",\"file\":";
      detail::append_json_string(j, f.dso);
    }
    j.push_back('}');
  }
  j += "]},\"profiles\":[";

  // Samples grouped by (event, thread), each thread in time order.
  const auto by_thread = detail::samples_by_thread(profile, options.event);
  const auto& order = by_thread.order;
  const bool several_events = [&] {
    for (const auto& s : profile.samples) {
      if (s.event != profile.samples.front().event) return true;
    }
    return false;
  }();

  // Each stack's text ("[1,2,3]", root first) made once, appended once per run.
  constexpr std::size_t kNotMade = SIZE_MAX;
  std::vector<std::pair<std::size_t, std::size_t>> stack_text(profile.stacks.size(), {kNotMade, 0});
  std::string texts;
  auto stack_json = [&](std::uint32_t stack) -> Result<std::string_view> {
    auto& [at, len] = stack_text[stack];
    if (at == kNotMade) {
      at = texts.size();
      texts.push_back('[');
      bool first_frame = true;
      for (std::uint32_t f : profile.stacks[stack]) {
        if (profile.frames[f].inlined && !options.inline_frames) continue;
        if (!first_frame) texts.push_back(',');
        first_frame = false;
        detail::append_uint(texts, f);
      }
      texts.push_back(']');
      len = texts.size() - at;
    }
    return std::string_view(texts).substr(at, len);
  };

  bool first_profile = true;
  std::string weights;  // the current profile's weights (capacity reused)
  for (const auto [i, end] : by_thread.groups) {
    const auto& head = profile.samples[order[i]];
    const bool clock =
        head.event < profile.events.size() && profile.events[head.event].unit == "nanoseconds";
    std::string name;
    if (head.thread < profile.threads.size()) {
      const auto& t = profile.threads[head.thread];
      name = fmt::format("{} (pid {}, tid {})", t.comm, t.pid, t.tid);
    } else {
      name = fmt::format("thread {}", head.thread);
    }
    if (several_events && head.event < profile.events.size()) {
      name += " " + profile.events[head.event].name;
    }
    if (!first_profile) j.push_back(',');
    first_profile = false;
    j += "{\"type\":\"sampled\",\"name\":";
    detail::append_json_string(j, name);
    j += clock ? ",\"unit\":\"nanoseconds\"" : ",\"unit\":\"none\"";
    // endValue comes first in the object: the sum of the thread's periods.
    std::uint64_t total = 0;
    for (std::size_t k = i; k < end; ++k) total += profile.samples[order[k]].period;
    j += ",\"startValue\":0,\"endValue\":";
    detail::append_uint(j, total);
    j += ",\"samples\":[";
    weights.assign(1, '[');
    std::size_t k = i;
    while (k < end) {
      const auto& s = profile.samples[order[k]];
      // A run of identical stacks is one entry weighted by the run's summed period.
      std::uint64_t w = 0;
      std::size_t m = k;
      while (m < end && profile.samples[order[m]].stack == s.stack) {
        w += profile.samples[order[m]].period;
        ++m;
      }
      if (k != i) {
        j.push_back(',');
        weights.push_back(',');
      }
      PERFX_TRY(text, stack_json(s.stack));
      j += text;
      detail::append_uint(weights, w);
      k = m;
    }
    weights.push_back(']');
    j += "],\"weights\":";
    j += weights;
    j.push_back('}');
  }
  j += "]}\n";
  return j.finish();
}

}  // namespace perfx::report
