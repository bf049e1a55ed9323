// perf probe's PROBEDEF syntax and the tracefs dynamic-event lines (pure).

#include "event/probe_syntax.hpp"

#include <fnmatch.h>

#include <cctype>
#include <charconv>

#include "core/error_format.hpp"
#include "perfx/probe.hpp"

namespace perfx::event {
namespace {

bool is_ident_char(char c) { return std::isalnum(static_cast<unsigned char>(c)) != 0 || c == '_'; }

std::vector<std::string_view> split_words(std::string_view s) {
  std::vector<std::string_view> out;
  std::size_t i = 0;
  while (i < s.size()) {
    while (i < s.size() && (s[i] == ' ' || s[i] == '\t')) ++i;
    const std::size_t b = i;
    while (i < s.size() && s[i] != ' ' && s[i] != '\t') ++i;
    if (i > b) out.push_back(s.substr(b, i - b));
  }
  return out;
}

bool parse_number(std::string_view s, std::uint64_t& v) {
  int base = 10;
  if (s.size() > 2 && s[0] == '0' && (s[1] == 'x' || s[1] == 'X')) {
    s.remove_prefix(2);
    base = 16;
  }
  if (s.empty()) return false;
  const auto [p, ec] = std::from_chars(s.data(), s.data() + s.size(), v, base);
  return ec == std::errc() && p == s.data() + s.size();
}

bool valid_name(std::string_view s) {
  if (s.empty() || std::isdigit(static_cast<unsigned char>(s[0])) != 0) return false;
  for (char c : s)
    if (!is_ident_char(c)) return false;
  return true;
}

}  // namespace

Result<ProbePoint> parse_probe_point(std::string_view spec) {
  const auto words = split_words(spec);
  if (words.empty()) return fail(Errc::kInvalidArgument, "empty probe definition");
  ProbePoint pt;
  std::string_view place = words[0];
  // [[GROUP:]EVENT=]
  if (const auto eq = place.find('='); eq != std::string_view::npos) {
    std::string_view name = place.substr(0, eq);
    place.remove_prefix(eq + 1);
    if (const auto colon = name.find(':'); colon != std::string_view::npos) {
      pt.group = std::string(name.substr(0, colon));
      name.remove_prefix(colon + 1);
      if (!valid_name(pt.group)) {
        return fail(Errc::kInvalidArgument,
                    "'{}' is not a valid group name (letters, digits and '_')", pt.group);
      }
    }
    pt.event = std::string(name);
    if (!valid_name(pt.event)) {
      return fail(Errc::kInvalidArgument,
                  "'{}' is not a valid event name (letters, digits and '_', not a digit first)",
                  pt.event);
    }
  }
  if (place.empty()) return fail(Errc::kInvalidArgument, "'{}': no probe point", spec);
  if (const auto pct = place.find('%'); pct != std::string_view::npos) {
    if (place.substr(pct) != "%return") {
      return fail(Errc::kInvalidArgument, "'{}': only %return is supported after '%'",
                  place.substr(pct));
    }
    pt.retprobe = true;
    place = place.substr(0, pct);
  }
  // SRC:LINE (the file part holds a '.' or a '/'); FUNC:RLN is not supported.
  if (const auto colon = place.rfind(':'); colon != std::string_view::npos) {
    const std::string_view file = place.substr(0, colon);
    std::uint64_t line = 0;
    if (file.empty() || !parse_number(place.substr(colon + 1), line) || line == 0 ||
        line > 0xffffffffu) {
      return fail(Errc::kInvalidArgument, "'{}': expected SRC:LINE with a line number > 0", place);
    }
    if (file.find_first_of("./") == std::string_view::npos) {
      return fail(Errc::kInvalidArgument,
                  "'{}': FUNC:LINE (a line relative to a function) is not supported; use "
                  "SRC:LINE",
                  place);
    }
    if (pt.retprobe) return fail(Errc::kInvalidArgument, "'{}': %return needs a function", place);
    pt.source = std::string(file);
    pt.line = static_cast<std::uint32_t>(line);
  } else {
    std::string_view func = place;
    if (const auto plus = place.find('+'); plus != std::string_view::npos) {
      func = place.substr(0, plus);
      if (!parse_number(place.substr(plus + 1), pt.offset)) {
        return fail(Errc::kInvalidArgument, "'{}': bad offset after '+'", place);
      }
      if (pt.retprobe && pt.offset != 0) {
        return fail(Errc::kInvalidArgument, "'{}': %return cannot take an offset", place);
      }
    }
    if (func.empty() || func.find_first_of("@;/ ") != std::string_view::npos) {
      return fail(Errc::kInvalidArgument, "'{}' is not a function name", func);
    }
    pt.function = std::string(func);
  }
  for (std::size_t i = 1; i < words.size(); ++i) pt.args.emplace_back(words[i]);
  return pt;
}

std::string default_probe_group(std::string_view binary) {
  std::string_view base = binary;
  if (const auto slash = base.rfind('/'); slash != std::string_view::npos) {
    base.remove_prefix(slash + 1);
  }
  if (const auto dot = base.find('.'); dot != std::string_view::npos && dot > 0) {
    base = base.substr(0, dot);
  }
  return "probe_" + probe_event_name(base);
}

std::string probe_event_name(std::string_view name) {
  std::string out;
  for (char c : name) out += is_ident_char(c) ? c : '_';
  if (out.empty() || std::isdigit(static_cast<unsigned char>(out[0])) != 0) out.insert(0, "_");
  return out;
}

std::string default_probe_event(const ProbePoint& point, std::string_view function) {
  std::string name = probe_event_name(point.function.empty() ? function : point.function);
  if (point.retprobe) name += "__return";
  return name;
}

bool is_raw_fetch_arg(std::string_view word) {
  if (const auto eq = word.find('='); eq != std::string_view::npos) word.remove_prefix(eq + 1);
  if (word.empty()) return false;
  const char c = word[0];
  return c == '%' || c == '$' || c == '@' || c == '+' || c == '-' ||
         std::isdigit(static_cast<unsigned char>(c)) != 0;
}

bool probe_name_matches(std::string_view pattern, std::string_view group, std::string_view event) {
  const std::string pat(pattern);
  const std::string ev(event);
  if (pattern.find(':') == std::string_view::npos)
    return ::fnmatch(pat.c_str(), ev.c_str(), 0) == 0;
  const std::string full = std::string(group) + ":" + ev;
  return ::fnmatch(pat.c_str(), full.c_str(), 0) == 0;
}

}  // namespace perfx::event

namespace perfx {

std::string ProbeDefinition::name() const { return group + ":" + event; }

bool ProbeDefinition::matches(std::string_view pattern) const {
  return event::probe_name_matches(pattern, group, event);
}

std::string ProbeDefinition::definition() const {
  std::string out = fmt::format("{}:{}/{} ", retprobe ? 'r' : 'p', group, event);
  if (type == ProbeType::kUprobe) {
    out += fmt::format("{}:{:#x}", target, offset);
  } else if (target.empty()) {
    out += fmt::format("{:#x}", offset);
  } else {
    out += offset != 0 ? fmt::format("{}+{}", target, offset) : target;
  }
  for (const auto& a : args) out += " " + a;
  return out;
}

Result<ProbeDefinition> parse_probe_definition(std::string_view line, ProbeType file_type) {
  const auto words = event::split_words(line);
  auto bad = [&] { return fail(Errc::kMalformedData, "not a probe definition: '{}'", line); };
  if (words.size() < 2 || words[0].size() < 3 || words[0][1] != ':') return bad();
  ProbeDefinition d;
  d.type = file_type;
  if (words[0][0] == 'r') {
    d.retprobe = true;
  } else if (words[0][0] != 'p') {
    return bad();
  }
  const std::string_view name = words[0].substr(2);
  const auto slash = name.find('/');
  if (slash == std::string_view::npos) return bad();
  d.group = std::string(name.substr(0, slash));
  d.event = std::string(name.substr(slash + 1));
  std::string_view place = words[1];
  if (file_type == ProbeType::kUprobe) {
    // <path>:0x<offset>[(ref_ctr_offset)]
    if (const auto paren = place.find('('); paren != std::string_view::npos) {
      place = place.substr(0, paren);
    }
    const auto colon = place.rfind(':');
    if (colon == std::string_view::npos || !event::parse_number(place.substr(colon + 1), d.offset))
      return bad();
    d.target = std::string(place.substr(0, colon));
  } else {
    // [MOD:]SYM[+offs] or an address
    if (event::parse_number(place, d.offset)) {
      // a probe by address
    } else if (const auto plus = place.rfind('+'); plus != std::string_view::npos) {
      if (!event::parse_number(place.substr(plus + 1), d.offset)) return bad();
      d.target = std::string(place.substr(0, plus));
    } else {
      d.target = std::string(place);
    }
  }
  for (std::size_t i = 2; i < words.size(); ++i) d.args.emplace_back(words[i]);
  return d;
}

}  // namespace perfx
