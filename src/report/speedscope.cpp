#include "report/speedscope.hpp"

#include <algorithm>
#include <numeric>

#include <fmt/format.h>

#include "report/export_util.hpp"

namespace perfx::report {

Result<void> write_speedscope(const profile::Profile& profile, std::ostream& out,
                              const ExportOptions& options) {
  if (options.event >= 0 && static_cast<std::size_t>(options.event) >= profile.events.size()) {
    return fail(Errc::kInvalidArgument, "event index {} out of range: the profile has {} events",
                options.event, profile.events.size());
  }
  std::string j;
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

  // Sample order: by (event, thread, time), stable.
  std::vector<std::uint32_t> order(profile.samples.size());
  std::iota(order.begin(), order.end(), 0u);
  std::stable_sort(order.begin(), order.end(), [&](std::uint32_t a, std::uint32_t b) {
    const auto& x = profile.samples[a];
    const auto& y = profile.samples[b];
    if (x.event != y.event) return x.event < y.event;
    if (x.thread != y.thread) return x.thread < y.thread;
    return x.time_ns < y.time_ns;
  });
  const bool several_events = [&] {
    for (const auto& s : profile.samples) {
      if (s.event != profile.samples.front().event) return true;
    }
    return false;
  }();

  bool first_profile = true;
  std::size_t i = 0;
  while (i < order.size()) {
    const auto& head = profile.samples[order[i]];
    std::size_t end = i;
    while (end < order.size() && profile.samples[order[end]].event == head.event &&
           profile.samples[order[end]].thread == head.thread) {
      ++end;
    }
    if (options.event >= 0 && head.event != static_cast<std::uint32_t>(options.event)) {
      i = end;
      continue;
    }
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
    std::string samples = "[";
    std::string weights = "[";
    std::uint64_t total = 0;
    std::size_t k = i;
    bool first = true;
    while (k < end) {
      const auto& s = profile.samples[order[k]];
      if (s.stack >= profile.stacks.size()) {
        return fail(Errc::kInvalidArgument, "sample refers to stack {} of {}", s.stack,
                    profile.stacks.size());
      }
      std::uint64_t w = 0;
      std::size_t m = k;
      while (m < end && profile.samples[order[m]].stack == s.stack) {
        w += profile.samples[order[m]].period;
        ++m;
      }
      if (!first) {
        samples.push_back(',');
        weights.push_back(',');
      }
      first = false;
      samples.push_back('[');
      bool first_frame = true;
      for (std::uint32_t f : profile.stacks[s.stack]) {
        if (f >= profile.frames.size()) {
          return fail(Errc::kInvalidArgument, "stack {} refers to frame {} of {}", s.stack, f,
                      profile.frames.size());
        }
        if (profile.frames[f].inlined && !options.inline_frames) continue;
        if (!first_frame) samples.push_back(',');
        first_frame = false;
        samples += std::to_string(f);
      }
      samples.push_back(']');
      weights += std::to_string(w);
      total += w;
      k = m;
    }
    samples.push_back(']');
    weights.push_back(']');
    fmt::format_to(std::back_inserter(j), ",\"startValue\":0,\"endValue\":{},\"samples\":", total);
    j += samples;
    j += ",\"weights\":";
    j += weights;
    j.push_back('}');
    if (j.size() > (1u << 20)) {
      PERFX_CHECK(detail::write_all(out, j));
      j.clear();
    }
    i = end;
  }
  j += "]}\n";
  return detail::write_all(out, j);
}

}  // namespace perfx::report
