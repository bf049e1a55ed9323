#include "report/export_util.hpp"

#include <cstdio>

namespace perfx::report::detail {

void append_json_string(std::string& out, std::string_view s) {
  out.push_back('"');
  for (char c : s) {
    switch (c) {
      case '"':
        out += "\\\"";
        break;
      case '\\':
        out += "\\\\";
        break;
      case '\n':
        out += "\\n";
        break;
      case '\r':
        out += "\\r";
        break;
      case '\t':
        out += "\\t";
        break;
      case '<':
        out += "\\u003c";
        break;  // keeps "</script>" inert inside HTML
      default:
        if (static_cast<unsigned char>(c) < 0x20) {
          char buf[8];
          std::snprintf(buf, sizeof buf, "\\u%04x", static_cast<unsigned>(c));
          out += buf;
        } else {
          out.push_back(c);
        }
    }
  }
  out.push_back('"');
}

void append_xml_escaped(std::string& out, std::string_view s) {
  for (char c : s) {
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
      default:
        // Control characters are not allowed in XML 1.0.
        if (static_cast<unsigned char>(c) < 0x20 && c != '\n' && c != '\t') {
          out.push_back(' ');
        } else {
          out.push_back(c);
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
  for (const auto& s : profile.samples) best = std::min(best, s.event);
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
