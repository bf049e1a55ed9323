#include "report/export_util.hpp"

#include <algorithm>
#include <charconv>

#include "core/error_format.hpp"
#include "core/huge_pages.hpp"

namespace perfx::report::detail {
void append_uint(std::string& out, std::uint64_t v) {
  char buf[24];
  const auto r = std::to_chars(buf, buf + sizeof buf, v);
  out.append(buf, r.ptr);
}

void append_int(std::string& out, std::int64_t v) {
  char buf[24];
  const auto r = std::to_chars(buf, buf + sizeof buf, v);
  out.append(buf, r.ptr);
}

SamplesByThread samples_by_thread(const profile::Profile& profile, std::int64_t event) {
  const auto& samples = profile.samples;
  auto wanted = [&](const profile::Sample& s) {
    return event < 0 || s.event == static_cast<std::uint64_t>(event);
  };
  auto by_key = [&](std::uint32_t a, std::uint32_t b) {
    const auto& x = samples[a];
    const auto& y = samples[b];
    if (x.event != y.event) return x.event < y.event;
    if (x.thread != y.thread) return x.thread < y.thread;
    return x.time_ns < y.time_ns;
  };
  // Counting sort by (event, thread) over the profile's own tables, in two passes: count
  // (checking the indices and the time order on the way), then place. It is stable, so
  // each bucket keeps the samples' order, which is time order for the loader's profiles.
  const std::uint64_t threads = std::max<std::size_t>(profile.threads.size(), 1);
  const std::uint64_t events = std::max<std::size_t>(profile.events.size(), 1);
  const std::uint64_t buckets = threads * events;
  std::vector<std::uint32_t> start(static_cast<std::size_t>(buckets) + 1, 0);
  bool indices_ok = buckets <= 4 * std::uint64_t{samples.size()} + 4096;
  bool time_ordered = true;
  std::size_t n = 0;
  std::uint64_t last_time = 0;
  for (std::size_t i = 0; i < samples.size() && indices_ok; ++i) {
    const auto& s = samples[i];
    if (!wanted(s)) continue;
    indices_ok = s.thread < threads && s.event < events;
    time_ordered = time_ordered && s.time_ns >= last_time;
    last_time = s.time_ns;
    if (indices_ok)
      ++start[static_cast<std::size_t>(std::uint64_t{s.event} * threads + s.thread) + 1];
    ++n;
  }
  SamplesByThread result;
  auto& order = result.order;
  if (!indices_ok) {  // hand-built profiles: indices outside the tables
    for (std::uint32_t i = 0; i < samples.size(); ++i)
      if (wanted(samples[i])) order.push_back(i);
    std::stable_sort(order.begin(), order.end(), by_key);
    for (std::size_t k = 0; k < order.size(); ++k) {
      const auto& s = samples[order[k]];
      if (k == 0 || s.thread != samples[order[k - 1]].thread ||
          s.event != samples[order[k - 1]].event)
        result.groups.push_back({k, k});
      result.groups.back().end = k + 1;
    }
    return result;
  }
  for (std::size_t b = 1; b < start.size(); ++b) {
    if (start[b] != 0) result.groups.push_back({start[b - 1], start[b - 1] + start[b]});
    start[b] += start[b - 1];
  }
  order.reserve(n);  // one index per sample: megabytes of fresh memory, in huge pages
  order.resize(n);
  for (std::uint32_t i = 0; i < samples.size(); ++i) {
    const auto& s = samples[i];
    if (wanted(s))
      order[start[static_cast<std::size_t>(std::uint64_t{s.event} * threads + s.thread)]++] = i;
  }
  if (!time_ordered) std::stable_sort(order.begin(), order.end(), by_key);
  return result;
}

void append_xml_escaped(std::string& out, std::string_view s) {
  for (std::size_t i = 0; i < s.size(); ++i) {
    const char c = s[i];
    switch (c) {
      case '&':
        out += "&amp;";
        break;
      case '<':
        out += "&lt;";
        break;
      case '>':
        out += "&gt;";
        break;
      case '"':
        out += "&quot;";
        break;
      case '\'':
        out += "&#39;";
        break;
      default: {
        const core::Utf8Step step = core::decode_utf8(s, i);
        if (!step.valid || core::is_xml_forbidden(step.code_point)) {
          out += core::kReplacementChar;
        } else {
          out.append(s, i, step.length);
        }
        i += step.length - 1u;
      }
    }
  }
}

Result<std::uint32_t> select_event(const profile::Profile& profile, const ExportOptions& options) {
  if (options.event >= 0) {
    const auto index = static_cast<std::size_t>(options.event);
    if (index >= profile.events.size() && !(index == 0 && profile.events.empty())) {
      return fail(Errc::kInvalidArgument, "event index {} out of range: the profile has {} events",
                  options.event, profile.events.size());
    }
    return static_cast<std::uint32_t>(options.event);
  }
  if (profile.samples.empty()) return 0u;
  std::uint32_t best = profile.samples.front().event;
  for (const auto& s : profile.samples) {
    if (best == 0) break;  // nothing lower: no need to read every sample
    best = std::min<std::uint32_t>(best, s.event);
  }
  return best;
}

std::string display_title(const profile::Profile& profile, const ExportOptions& options) {
  if (!options.title.empty()) return options.title;
  if (!profile.command_line.empty()) {
    // The recorded command line is the profiler's ("perfx record -g -- ./app 1"):
    // the workload after "--" names the picture better.
    const std::string& cmd = profile.command_line;
    const auto dashes = cmd.find(" -- ");
    std::string work = dashes == std::string::npos ? cmd : cmd.substr(dashes + 4);
    // "/long/path/to/app args" -> "app args"
    const auto space = work.find(' ');
    const auto slash = work.rfind('/', space);
    if (slash != std::string::npos) work.erase(0, slash + 1);
    return "perfx: " + work;
  }
  return "perfx profile";
}

std::string_view kind_name(profile::FrameKind kind) noexcept {
  switch (kind) {
    case profile::FrameKind::kUser:
      return "user";
    case profile::FrameKind::kKernel:
      return "kernel";
    case profile::FrameKind::kJit:
      return "jit";
    case profile::FrameKind::kOffCpu:
      return "off-cpu";
    case profile::FrameKind::kUnknown:
      break;
  }
  return "unknown";
}

Result<void> write_all(std::ostream& out, std::string_view data) {
  out.write(data.data(), static_cast<std::streamsize>(data.size()));
  if (!out) return fail(Errc::kIo, "writing {} bytes of export output failed", data.size());
  return {};
}

}  // namespace perfx::report::detail
