// perf's event syntax -> EventGroup list. See parse.hpp for the grammar.

#include "event/parse.hpp"

#include <fnmatch.h>
#include <linux/hw_breakpoint.h>
#include <linux/perf_event.h>

#include <charconv>
#include <string>

#include "core/error_format.hpp"
#include "event/event_names.hpp"

namespace perfx::event {
namespace {

constexpr std::string_view kModifierChars = "ukhHGIpPSDWe";
constexpr std::string_view kSeeList = " (see 'perfx list')";

// Errors carry the 1-based column of the offending token in the whole spec.
tl::unexpected<Error> column_error(Errc code, std::size_t offset, std::string_view what) {
  return tl::unexpected<Error>(
      Error(code, fmt::format("event syntax error at column {}: {}", offset + 1, what)));
}

template <typename... Args>
tl::unexpected<Error> syntax_error(std::size_t offset, fmt::format_string<Args...> f,
                                   Args&&... args) {
  return column_error(Errc::kInvalidArgument, offset, fmt::format(f, std::forward<Args>(args)...));
}

// An unknown name (kNotFound) rather than a malformed spec.
template <typename... Args>
tl::unexpected<Error> unknown_error(std::size_t offset, fmt::format_string<Args...> f,
                                    Args&&... args) {
  return column_error(Errc::kNotFound, offset, fmt::format(f, std::forward<Args>(args)...));
}

// A failure from the resolver (system lookup): keep its category and message.
tl::unexpected<Error> resolver_error(Error err, std::size_t offset, std::string_view token) {
  return tl::unexpected<Error>(
      std::move(err).context(fmt::format("event '{}' at column {}", token, offset + 1)));
}

bool is_space(char c) { return c == ' ' || c == '\t' || c == '\n' || c == '\r'; }

bool is_hex_digit(char c) {
  return (c >= '0' && c <= '9') || (c >= 'a' && c <= 'f') || (c >= 'A' && c <= 'F');
}

// Decimal, or hex with a 0x prefix.
bool parse_u64(std::string_view s, std::uint64_t* out) {
  int base = 10;
  if (s.size() > 2 && s[0] == '0' && (s[1] == 'x' || s[1] == 'X')) {
    s.remove_prefix(2);
    base = 16;
  }
  if (s.empty()) return false;
  auto [ptr, ec] = std::from_chars(s.data(), s.data() + s.size(), *out, base);
  return ec == std::errc() && ptr == s.data() + s.size();
}

bool has_glob(std::string_view s) { return s.find_first_of("*?[") != std::string_view::npos; }

bool all_modifier_chars(std::string_view s) {
  if (s.empty()) return false;
  for (char c : s) {
    if (kModifierChars.find(c) == std::string_view::npos) return false;
  }
  return true;
}

EventSpec new_spec(EventKind kind, std::string_view text) {
  EventSpec spec;
  spec.kind = kind;
  spec.name = std::string(text);
  spec.attr.size = raw::kAttrSizeVer8;
  spec.attr.exclude_guest = 1;  // perf's event_attr_init(); modifiers may clear it
  return spec;
}

// Applies `mods` (the text after ':' or after a PMU's closing '/') to `e`, with perf's
// semantics (parse-events.c, get_event_modifier): the first of u/k/h excludes every
// privilege level, then each letter re-includes its own; u also excludes guests.
Result<void> apply_modifiers(EventSpec& e, std::string_view mods, std::size_t offset) {
  if (mods.empty()) return syntax_error(offset, "empty modifier after ':'");
  for (std::size_t i = 0; i < mods.size(); ++i) {
    const char c = mods[i];
    if (kModifierChars.find(c) == std::string_view::npos) {
      return syntax_error(offset + i, "'{}' is not a valid modifier in ':{}' (valid: {})", c, mods,
                          kModifierChars);
    }
    if (c != 'p' && mods.find(c, i + 1) != std::string_view::npos) {
      return syntax_error(offset + i, "modifier '{}' repeated in ':{}'", c, mods);
    }
  }
  auto& a = e.attr;
  bool eu = a.exclude_user;
  bool ek = a.exclude_kernel;
  bool eh = a.exclude_hv;
  bool e_host = a.exclude_host;
  bool e_guest = a.exclude_guest;
  bool exclude = eu || ek || eh;
  bool exclude_gh = e_host || e_guest;
  unsigned precise = static_cast<unsigned>(a.precise_ip);
  for (std::size_t i = 0; i < mods.size(); ++i) {
    switch (mods[i]) {
      case 'u':
        if (!exclude) exclude = eu = ek = eh = true;
        if (!exclude_gh) e_guest = true;
        eu = false;
        e.explicit_privilege = true;
        break;
      case 'k':
        if (!exclude) exclude = eu = ek = eh = true;
        ek = false;
        e.explicit_privilege = true;
        break;
      case 'h':
        if (!exclude) exclude = eu = ek = eh = true;
        eh = false;
        e.explicit_privilege = true;
        break;
      case 'G':
        if (!exclude_gh) exclude_gh = e_guest = e_host = true;
        e_guest = false;
        break;
      case 'H':
        if (!exclude_gh) exclude_gh = e_guest = e_host = true;
        e_host = false;
        break;
      case 'I':
        a.exclude_idle = 1;
        break;
      case 'p':
        ++precise;
        if (precise > 3) {
          return syntax_error(offset + i, "too many 'p' in ':{}' (precise_ip is at most 3: ppp)",
                              mods);
        }
        if (!exclude_gh) e_guest = true;
        break;
      case 'P':
        e.precise_max = true;
        break;
      case 'S':
        e.sample_read = true;
        break;
      case 'D':
        a.pinned = 1;
        break;
      case 'e':
        a.exclusive = 1;
        break;
      case 'W':
        e.weak_group = true;
        break;
      default:
        break;
    }
  }
  a.exclude_user = eu;
  a.exclude_kernel = ek;
  a.exclude_hv = eh;
  a.exclude_host = e_host;
  a.exclude_guest = e_guest;
  a.precise_ip = precise & 3U;
  return {};
}

// ---------------------------------------------------------------- PMU terms

// The terms every event takes (perf's config_term_common): period=, freq=, name=.
bool is_common_term(std::string_view key) {
  return key == "period" || key == "freq" || key == "name";
}

// Applies one common term ("period=1000") at column `col`.
Result<void> apply_common_term(EventSpec& e, std::string_view term, std::size_t col) {
  const auto eq = term.find('=');
  const std::string_view key = term.substr(0, eq);
  std::string_view value_text =
      eq == std::string_view::npos ? std::string_view{} : term.substr(eq + 1);
  if (key == "name") {
    if (value_text.empty()) return syntax_error(col, "term 'name' needs a value");
    if (value_text.size() >= 2 && value_text.front() == '"' && value_text.back() == '"')
      value_text = value_text.substr(1, value_text.size() - 2);
    e.name = std::string(value_text);
    return {};
  }
  std::uint64_t value = 0;
  if (eq == std::string_view::npos)
    return syntax_error(col, "term '{}' needs a value ({}=<number>)", key, key);
  if (!parse_u64(value_text, &value))
    return syntax_error(col + eq + 1, "'{}' is not a number for term '{}'", value_text, key);
  if (key == "period") {
    e.attr.sample_period = value;
    e.attr.freq = 0;
  } else {
    e.attr.sample_freq = value;
    e.attr.freq = 1;
  }
  e.period_from_term = true;
  return {};
}

class Parser {
 public:
  Parser(std::string_view spec, const Resolver& resolver) : spec_(spec), resolver_(resolver) {}

  Result<std::vector<EventGroup>> parse_list();
  // One event occupying spec_[begin, end) (already trimmed). May expand to several
  // events (tracepoint globs).
  Result<std::vector<EventSpec>> parse_event(std::size_t begin, std::size_t end);

 private:
  std::size_t skip_space(std::size_t i) const {
    while (i < spec_.size() && is_space(spec_[i])) ++i;
    return i;
  }
  // End of the event starting at `i`: stops at ',' '}' '{' outside a PMU's /terms/.
  Result<std::size_t> event_end(std::size_t i) const;

  Result<std::vector<EventSpec>> parse_uprobe(std::size_t begin, std::size_t end, bool ret);
  Result<std::vector<EventSpec>> parse_breakpoint(std::size_t begin, std::size_t end);
  Result<std::vector<EventSpec>> parse_pmu(std::size_t begin, std::size_t end);
  // perf's terms on a named event or a tracepoint: "cpu-clock/period=1000/u",
  // "sched:sched_switch/period=1/".
  // `slash1`, `slash2`: the terms' slashes, relative to `begin`.
  Result<std::vector<EventSpec>> parse_with_terms(std::size_t begin, std::size_t end,
                                                  std::size_t slash1, std::size_t slash2);
  Result<void> apply_terms(EventSpec& e, const PmuInfo& pmu, std::string_view terms,
                           std::size_t offset, std::uint64_t (&words)[4], int depth);
  Result<std::vector<EventSpec>> parse_tracepoint(std::size_t begin, std::size_t end,
                                                  std::size_t colon);
  // A bare name (no '/', no subsys:name): symbolic, cache, raw or a PMU alias.
  Result<std::optional<EventSpec>> parse_named(std::string_view head, std::size_t offset);
  Result<void> finish_mods(std::vector<EventSpec>& events, std::size_t mods_begin, std::size_t end);

  std::string_view spec_;
  const Resolver& resolver_;
};

Result<std::size_t> Parser::event_end(std::size_t i) const {
  const std::string_view rest = spec_.substr(i);
  const bool path_like =
      rest.starts_with("uprobe:") || rest.starts_with("uretprobe:") || rest.starts_with("mem:");
  bool in_terms = false;
  std::size_t open_slash = 0;
  for (std::size_t j = i; j < spec_.size(); ++j) {
    const char c = spec_[j];
    if (!path_like && c == '/') {
      in_terms = !in_terms;
      if (in_terms) open_slash = j;
      continue;
    }
    if (!in_terms && (c == ',' || c == '}' || c == '{')) return j;
  }
  if (in_terms) {
    return syntax_error(open_slash, "missing closing '/' after PMU terms in '{}'", spec_.substr(i));
  }
  return spec_.size();
}

Result<std::vector<EventGroup>> Parser::parse_list() {
  std::vector<EventGroup> groups;
  std::size_t i = skip_space(0);
  if (i == spec_.size()) return syntax_error(0, "empty event list");
  while (true) {
    i = skip_space(i);
    if (i >= spec_.size())
      return syntax_error(i, "expected an event after ',', not an empty event");
    EventGroup group;
    if (spec_[i] == '{') {
      const std::size_t brace = i;
      group.is_group = true;
      ++i;
      while (true) {
        i = skip_space(i);
        if (i >= spec_.size()) return syntax_error(brace, "unterminated group: missing '}}'");
        if (spec_[i] == '}' || spec_[i] == ',') {
          return syntax_error(i, "expected an event, found '{}'", spec_[i]);
        }
        if (spec_[i] == '{') return syntax_error(i, "groups cannot be nested");
        PERFX_TRY(end, event_end(i));
        std::size_t trimmed = end;
        while (trimmed > i && is_space(spec_[trimmed - 1])) --trimmed;
        PERFX_TRY(events, parse_event(i, trimmed));
        for (auto& e : events) group.events.push_back(std::move(e));
        i = end;
        if (i >= spec_.size()) return syntax_error(brace, "unterminated group: missing '}}'");
        if (spec_[i] == '{') return syntax_error(i, "groups cannot be nested");
        if (spec_[i] == ',') {
          ++i;
          continue;
        }
        ++i;  // '}'
        break;
      }
      // Group modifiers: "}:u".
      if (i < spec_.size() && spec_[i] == ':') {
        std::size_t j = i + 1;
        while (j < spec_.size() && spec_[j] != ',' && !is_space(spec_[j])) ++j;
        const std::string_view mods = spec_.substr(i + 1, j - i - 1);
        for (auto& e : group.events) PERFX_CHECK(apply_modifiers(e, mods, i + 1));
        i = j;
      }
      // The kernel refuses pinned/exclusive on members (EINVAL): only the leader keeps them.
      for (std::size_t k = 1; k < group.events.size(); ++k) {
        group.events[k].attr.pinned = 0;
        group.events[k].attr.exclusive = 0;
      }
      groups.push_back(std::move(group));
    } else {
      if (spec_[i] == '}') return syntax_error(i, "unexpected '}}' without a matching '{{'");
      if (spec_[i] == ',') return syntax_error(i, "empty event between commas");
      PERFX_TRY(end, event_end(i));
      std::size_t trimmed = end;
      while (trimmed > i && is_space(spec_[trimmed - 1])) --trimmed;
      PERFX_TRY(events, parse_event(i, trimmed));
      for (auto& e : events) {
        EventGroup single;
        single.events.push_back(std::move(e));
        groups.push_back(std::move(single));
      }
      i = end;
      if (i < spec_.size() && spec_[i] == '}') {
        return syntax_error(i, "unexpected '}}' without a matching '{{'");
      }
      if (i < spec_.size() && spec_[i] == '{') {
        return syntax_error(i, "expected ',' before '{{'");
      }
    }
    i = skip_space(i);
    if (i >= spec_.size()) break;
    if (spec_[i] != ',') return syntax_error(i, "expected ',' but found '{}'", spec_[i]);
    ++i;
  }
  return groups;
}

Result<void> Parser::finish_mods(std::vector<EventSpec>& events, std::size_t mods_begin,
                                 std::size_t end) {
  if (mods_begin >= end) return {};
  const std::string_view mods = spec_.substr(mods_begin, end - mods_begin);
  for (auto& e : events) {
    // An event's own modifiers decide exclude_guest from scratch (perf parses them with
    // no evsel); a group's apply to what its members already have.
    e.attr.exclude_guest = 0;
    PERFX_CHECK(apply_modifiers(e, mods, mods_begin));
  }
  return {};
}

Result<std::vector<EventSpec>> Parser::parse_event(std::size_t begin, std::size_t end) {
  if (begin >= end) return syntax_error(begin, "empty event");
  const std::string_view text = spec_.substr(begin, end - begin);
  for (std::size_t k = 0; k < text.size(); ++k) {
    if (is_space(text[k])) return syntax_error(begin + k, "unexpected space in '{}'", text);
  }
  if (text.starts_with("uprobe:")) return parse_uprobe(begin, end, false);
  if (text.starts_with("uretprobe:")) return parse_uprobe(begin, end, true);
  if (text.starts_with("mem:")) return parse_breakpoint(begin, end);
  if (text.find('/') != std::string_view::npos) return parse_pmu(begin, end);

  const auto colon = text.find(':');
  const std::string_view head = text.substr(0, colon);
  if (head.empty()) return syntax_error(begin, "expected an event name before ':'");
  PERFX_TRY(named, parse_named(head, begin));
  if (named) {
    std::vector<EventSpec> out;
    named->name = std::string(text);
    out.push_back(std::move(*named));
    if (colon != std::string_view::npos) {
      const std::string_view mods = text.substr(colon + 1);
      if (mods.find(':') != std::string_view::npos) {
        return syntax_error(begin + colon + 1 + mods.find(':'),
                            "unexpected ':' in modifiers of '{}'", text);
      }
      PERFX_CHECK(finish_mods(out, begin + colon + 1, end));
      if (colon + 1 == text.size()) return syntax_error(end, "empty modifier after ':'");
    }
    return out;
  }
  if (colon == std::string_view::npos) {
    return unknown_error(begin, "'{}' is not a known event{}", head, kSeeList);
  }
  return parse_tracepoint(begin, end, begin + colon);
}

Result<std::optional<EventSpec>> Parser::parse_named(std::string_view head, std::size_t offset) {
  if (auto sym = find_symbolic_event(head)) {
    EventSpec e = new_spec(
        sym->type == PERF_TYPE_HARDWARE ? EventKind::kHardware : EventKind::kSoftware, head);
    e.canonical = std::string(sym->name);
    e.attr.type = sym->type;
    e.attr.config = sym->config;
    return e;
  }
  std::string bad;
  if (auto cache = parse_cache_event(head, &bad)) {
    EventSpec e = new_spec(EventKind::kHwCache, head);
    e.canonical = cache->canonical;
    e.attr.type = PERF_TYPE_HW_CACHE;
    e.attr.config = cache->config;
    return e;
  }
  if (!bad.empty()) {
    return unknown_error(offset, "'{}' is not a valid cache event: {}{}", head, bad, kSeeList);
  }
  if (head.size() > 1 && head[0] == 'r') {
    bool hex = true;
    for (char c : head.substr(1)) hex = hex && is_hex_digit(c);
    if (hex) {
      std::uint64_t config = 0;
      const std::string_view digits = head.substr(1);
      auto [ptr, ec] = std::from_chars(digits.data(), digits.data() + digits.size(), config, 16);
      if (ec != std::errc() || ptr != digits.data() + digits.size()) {
        return syntax_error(offset, "raw event '{}' does not fit 64 bits", head);
      }
      EventSpec e = new_spec(EventKind::kRaw, head);
      e.canonical = fmt::format("r{:x}", config);
      e.attr.type = PERF_TYPE_RAW;
      e.attr.config = config;
      return e;
    }
  }
  // A bare alias of some PMU's events/ directory, e.g. "tsc" -> msr/tsc/.
  for (const auto& pmu_name : resolver_.pmu_names()) {
    auto pmu = resolver_.find_pmu(pmu_name);
    if (!pmu) continue;
    for (const auto& alias : pmu->aliases) {
      if (alias.name != head) continue;
      EventSpec e = new_spec(EventKind::kPmu, head);
      e.pmu = pmu->name;
      e.canonical = fmt::format("{}/{}/", pmu->name, alias.name);
      e.attr.type = pmu->type;
      std::uint64_t words[4] = {0, 0, 0, 0};
      PERFX_CHECK(apply_terms(e, *pmu, alias.name, offset, words, 0));
      e.attr.config = words[0];
      e.attr.config1 = words[1];
      e.attr.config2 = words[2];
      e.attr.config3 = words[3];
      return e;
    }
  }
  return std::optional<EventSpec>{};
}

Result<std::vector<EventSpec>> Parser::parse_tracepoint(std::size_t begin, std::size_t end,
                                                        std::size_t colon) {
  const std::string_view subsys = spec_.substr(begin, colon - begin);
  std::string_view rest = spec_.substr(colon + 1, end - colon - 1);
  const auto colon2 = rest.find(':');
  const std::string_view name = rest.substr(0, colon2);
  const std::size_t mods_begin = colon2 == std::string_view::npos ? end : colon + 1 + colon2 + 1;
  if (colon2 != std::string_view::npos && mods_begin == end) {
    return syntax_error(end, "empty modifier after ':'");
  }
  if (name.empty())
    return syntax_error(colon + 1, "expected a tracepoint name after '{}:'", subsys);
  for (std::size_t k = 0; k < subsys.size() + 1 + name.size(); ++k) {
    const char c = spec_[begin + k];
    const bool ok = (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') ||
                    c == '_' || c == '-' || c == '.' || c == '*' || c == '?' || c == '[' ||
                    c == ']' || c == '!' || (begin + k == colon);
    if (!ok) {
      return syntax_error(begin + k, "unexpected character '{}' in tracepoint '{}:{}'", c, subsys,
                          name);
    }
  }
  const std::string tp = fmt::format("{}:{}", subsys, name);
  const std::string_view mods_text =
      mods_begin < end ? spec_.substr(mods_begin, end - mods_begin) : std::string_view{};
  std::vector<EventSpec> out;
  const auto make = [&](std::string_view s, std::string_view n, std::uint64_t id) {
    EventSpec e = new_spec(EventKind::kTracepoint, "");
    e.canonical = fmt::format("{}:{}", s, n);
    e.name = mods_text.empty() ? e.canonical : fmt::format("{}:{}", e.canonical, mods_text);
    e.attr.type = PERF_TYPE_TRACEPOINT;
    e.attr.config = id;
    e.default_period = 1;
    return e;
  };
  if (has_glob(subsys) || has_glob(name)) {
    auto all = resolver_.tracepoints();
    if (!all) return resolver_error(std::move(all).error(), begin, tp);
    const std::string sub_pat(subsys);
    const std::string name_pat(name);
    for (const auto& t : *all) {
      if (fnmatch(sub_pat.c_str(), t.subsys.c_str(), 0) != 0) continue;
      if (fnmatch(name_pat.c_str(), t.name.c_str(), 0) != 0) continue;
      auto id = resolver_.tracepoint_id(t.subsys, t.name);
      if (!id) continue;  // listed but not openable (no id file): skip like perf
      out.push_back(make(t.subsys, t.name, *id));
    }
    if (out.empty()) {
      return unknown_error(begin, "no tracepoint matches '{}'{}", tp, kSeeList);
    }
  } else {
    auto id = resolver_.tracepoint_id(subsys, name);
    if (!id) {
      // "page-fault:u": more likely a misspelt event with a modifier than a tracepoint.
      if (id.error().code() == Errc::kNotFound && colon2 == std::string_view::npos &&
          all_modifier_chars(name) && subsys.find('_') == std::string_view::npos) {
        auto subsystems = resolver_.tracepoints();
        bool subsys_exists = false;
        if (subsystems) {
          for (const auto& t : *subsystems) subsys_exists = subsys_exists || t.subsys == subsys;
        }
        if (!subsys_exists) {
          return unknown_error(begin, "'{}' is not a known event{}", subsys, kSeeList);
        }
      }
      return resolver_error(std::move(id).error(), begin, tp);
    }
    out.push_back(make(subsys, name, *id));
  }
  PERFX_CHECK(finish_mods(out, mods_begin, end));
  return out;
}

Result<std::vector<EventSpec>> Parser::parse_breakpoint(std::size_t begin, std::size_t end) {
  // mem:ADDR[/LEN][:rwx][:modifiers]
  const std::size_t addr_begin = begin + 4;
  std::size_t i = addr_begin;
  while (i < end && spec_[i] != '/' && spec_[i] != ':') ++i;
  const std::string_view addr_text = spec_.substr(addr_begin, i - addr_begin);
  std::uint64_t addr = 0;
  if (addr_text.empty()) return syntax_error(addr_begin, "expected an address after 'mem:'");
  if (!parse_u64(addr_text, &addr)) {
    return syntax_error(addr_begin, "'{}' is not an address (use hex 0x... or decimal)", addr_text);
  }
  std::uint64_t len = 0;
  if (i < end && spec_[i] == '/') {
    const std::size_t len_begin = i + 1;
    i = len_begin;
    while (i < end && spec_[i] != ':') ++i;
    const std::string_view len_text = spec_.substr(len_begin, i - len_begin);
    if (!parse_u64(len_text, &len) || (len != 1 && len != 2 && len != 4 && len != 8)) {
      return syntax_error(len_begin, "breakpoint length '{}' must be 1, 2, 4 or 8", len_text);
    }
  }
  std::uint32_t type = 0;
  std::size_t mods_begin = end;
  if (i < end) {  // ':'
    const std::size_t part_begin = i + 1;
    std::size_t j = part_begin;
    while (j < end && spec_[j] != ':') ++j;
    const std::string_view part = spec_.substr(part_begin, j - part_begin);
    if (part.empty()) return syntax_error(part_begin, "expected access type (r, w, x) after ':'");
    const bool access = part.find_first_not_of("rwx") == std::string_view::npos;
    if (access) {
      for (std::size_t k = 0; k < part.size(); ++k) {
        const char c = part[k];
        if (part.find(c, k + 1) != std::string_view::npos) {
          return syntax_error(part_begin + k, "access type '{}' repeated in '{}'", c, part);
        }
        type |= c == 'r' ? HW_BREAKPOINT_R : c == 'w' ? HW_BREAKPOINT_W : HW_BREAKPOINT_X;
      }
      mods_begin = j < end ? j + 1 : end;
      if (j < end && mods_begin == end) return syntax_error(end, "empty modifier after ':'");
    } else {
      mods_begin = part_begin;
    }
  }
  if (type == 0) type = HW_BREAKPOINT_RW;  // perf's default: read/write
  if ((type & HW_BREAKPOINT_X) && type != HW_BREAKPOINT_X) {
    return syntax_error(addr_begin - 4,
                        "an execute breakpoint (x) cannot also watch reads or writes");
  }
  if (len == 0) len = type == HW_BREAKPOINT_X ? sizeof(long) : std::uint64_t{HW_BREAKPOINT_LEN_4};
  if (type == HW_BREAKPOINT_X && len != sizeof(long)) {
    return syntax_error(addr_begin, "an execute breakpoint needs length {} (sizeof(long))",
                        sizeof(long));
  }
  const std::string access_text = breakpoint_access_text(type);
  EventSpec e = new_spec(EventKind::kBreakpoint, spec_.substr(begin, end - begin));
  e.canonical = fmt::format("mem:{:#x}/{}:{}", addr, len, access_text);
  e.attr.type = PERF_TYPE_BREAKPOINT;
  e.attr.bp_type = type;
  e.attr.bp_addr = addr;
  e.attr.bp_len = len;
  e.default_period = 1;
  std::vector<EventSpec> out;
  out.push_back(std::move(e));
  PERFX_CHECK(finish_mods(out, mods_begin, end));
  return out;
}

Result<std::vector<EventSpec>> Parser::parse_uprobe(std::size_t begin, std::size_t end, bool ret) {
  // uprobe:PATH:SYMBOL[+OFF] | uprobe:PATH:OFFSET, then optional :modifiers
  const std::size_t path_begin = begin + (ret ? 10 : 7);
  std::size_t i = path_begin;
  while (i < end && spec_[i] != ':') ++i;
  const std::string_view path = spec_.substr(path_begin, i - path_begin);
  const char* const prefix = ret ? "uretprobe" : "uprobe";
  if (path.empty()) {
    return syntax_error(path_begin, "expected a file path after '{}:' ({}:/path/to/bin:symbol)",
                        prefix, prefix);
  }
  if (i >= end) {
    return syntax_error(end, "expected ':symbol' or ':0xoffset' after '{}:{}'", prefix, path);
  }
  const std::size_t target_begin = i + 1;
  std::size_t j = target_begin;
  while (j < end && spec_[j] != ':') ++j;
  const std::string_view target = spec_.substr(target_begin, j - target_begin);
  if (target.empty()) {
    return syntax_error(target_begin, "expected a symbol or 0xoffset after '{}:{}:'", prefix, path);
  }
  const std::size_t mods_begin = j < end ? j + 1 : end;
  if (j < end && mods_begin == end) return syntax_error(end, "empty modifier after ':'");

  const std::string token(spec_.substr(begin, j - begin));
  auto pmu = resolver_.find_pmu("uprobe");
  if (!pmu) {
    return resolver_error(std::move(pmu).error().context(
                              "uprobes need the kernel's uprobe PMU (CONFIG_UPROBE_EVENTS)"),
                          begin, token);
  }
  std::uint64_t offset = 0;
  std::string symbol;
  if (target[0] >= '0' && target[0] <= '9') {
    if (!parse_u64(target, &offset)) {
      return syntax_error(target_begin, "'{}' is not a file offset (use 0x... or decimal)", target);
    }
  } else {
    std::string_view sym = target;
    std::uint64_t extra = 0;
    const auto plus = target.find('+');
    if (plus != std::string_view::npos) {
      sym = target.substr(0, plus);
      if (!parse_u64(target.substr(plus + 1), &extra)) {
        return syntax_error(target_begin + plus + 1, "'{}' is not an offset",
                            target.substr(plus + 1));
      }
    }
    if (sym.empty()) return syntax_error(target_begin, "expected a symbol name before '+'");
    auto off = resolver_.uprobe_offset(path, sym);
    if (!off) {
      // A file that cannot be opened (errno) or is not ELF is the path's fault: point there.
      Error err = std::move(off).error();
      if (err.sys_errno() != 0 || err.code() == Errc::kMalformedData) {
        return resolver_error(std::move(err).context(fmt::format("uprobe file '{}'", path)),
                              path_begin, token);
      }
      return resolver_error(std::move(err), target_begin, sym);
    }
    offset = *off + extra;
    symbol = std::string(sym);
  }
  EventSpec e = new_spec(EventKind::kUprobe, spec_.substr(begin, end - begin));
  e.canonical = token;
  e.pmu = pmu->name;
  e.uprobe_path = std::string(path);
  e.uprobe_symbol = symbol;
  e.attr.type = pmu->type;
  e.attr.config2 = offset;
  e.default_period = 1;
  if (ret) {
    std::uint64_t words[4] = {0, 0, 0, 0};
    bool applied = false;
    for (const auto& f : pmu->format) {
      if (f.name == "retprobe") {
        PERFX_CHECK(apply_format_field(f, 1, words));
        applied = true;
      }
    }
    // Kernels without the format file still use bit 0 (kernel/events/core.c).
    e.attr.config = applied ? words[0] : 1;
  }
  std::vector<EventSpec> out;
  out.push_back(std::move(e));
  PERFX_CHECK(finish_mods(out, mods_begin, end));
  return out;
}

Result<void> Parser::apply_terms(EventSpec& e, const PmuInfo& pmu, std::string_view terms,
                                 std::size_t offset, std::uint64_t (&words)[4], int depth) {
  std::size_t pos = 0;
  while (pos <= terms.size()) {
    std::size_t comma = terms.find(',', pos);
    if (comma == std::string_view::npos) comma = terms.size();
    const std::string_view term = terms.substr(pos, comma - pos);
    const std::size_t col = depth == 0 ? offset + pos : offset;
    if (term.empty()) {
      if (terms.empty()) return {};
      return syntax_error(col, "empty term in '{}/{}/'", pmu.name, terms);
    }
    const auto eq = term.find('=');
    const std::string_view key = term.substr(0, eq);
    const bool has_value = eq != std::string_view::npos;
    std::string_view value_text = has_value ? term.substr(eq + 1) : std::string_view{};
    std::uint64_t value = 1;
    const auto need_value = [&]() -> Result<void> {
      if (!has_value) return syntax_error(col, "term '{}' needs a value ({}=<number>)", key, key);
      if (!parse_u64(value_text, &value)) {
        return syntax_error(col + eq + 1, "'{}' is not a number for term '{}'", value_text, key);
      }
      return {};
    };
    if (const std::optional<ConfigWord> word = config_word(key)) {
      PERFX_CHECK(need_value());
      words[static_cast<std::size_t>(*word)] = value;
    } else if (is_common_term(key)) {
      PERFX_CHECK(apply_common_term(e, term, col));
    } else {
      const FormatField* field = nullptr;
      for (const auto& f : pmu.format) {
        if (f.name == key) field = &f;
      }
      const PmuAlias* alias = nullptr;
      for (const auto& a : pmu.aliases) {
        if (a.name == key) alias = &a;
      }
      if (field != nullptr) {
        if (has_value) PERFX_CHECK(need_value());
        auto applied = apply_format_field(*field, value, words);
        if (!applied) {
          return syntax_error(col, "{} in '{}/{}/'", applied.error().message(), pmu.name, terms);
        }
      } else if (alias != nullptr && !has_value && depth == 0) {
        PERFX_CHECK(apply_terms(e, pmu, alias->terms, col, words, depth + 1));
      } else if (alias != nullptr && has_value) {
        return syntax_error(col,
                            "'{}' is an event alias of PMU '{}' and takes no value: write {}/{}/",
                            key, pmu.name, pmu.name, key);
      } else {
        std::string valid;
        for (const auto& f : pmu.format) valid += f.name + ", ";
        valid += "config, config1, config2, config3, period, freq, name";
        for (const auto& a : pmu.aliases) valid += ", " + a.name;
        return unknown_error(col, "unknown term '{}' for PMU '{}' (valid: {})", key, pmu.name,
                             valid);
      }
    }
    pos = comma + 1;
  }
  return {};
}

Result<std::vector<EventSpec>> Parser::parse_with_terms(std::size_t begin, std::size_t end,
                                                        std::size_t slash1, std::size_t slash2) {
  const std::string_view text = spec_.substr(begin, end - begin);
  const std::string_view head = text.substr(0, slash1);
  std::vector<EventSpec> out;
  if (head.find(':') != std::string_view::npos) {
    PERFX_TRY(tps, parse_tracepoint(begin, begin + slash1, begin + head.find(':')));
    out = std::move(tps);
  } else {
    PERFX_TRY(named, parse_named(head, begin));
    if (!named) {
      std::string known;
      for (const auto& n : resolver_.pmu_names()) known += (known.empty() ? "" : ", ") + n;
      return unknown_error(begin, "unknown PMU '{}' (PMUs here: {}), nor an event name", head,
                           known);
    }
    out.push_back(std::move(*named));
  }
  const std::string_view terms = text.substr(slash1 + 1, slash2 - slash1 - 1);
  if (out.size() == 1) out[0].name = std::string(text);  // perf names it as written
  for (std::size_t pos = 0; pos < terms.size();) {
    std::size_t comma = terms.find(',', pos);
    if (comma == std::string_view::npos) comma = terms.size();
    const std::string_view term = terms.substr(pos, comma - pos);
    const std::size_t col = begin + slash1 + 1 + pos;
    if (!is_common_term(term.substr(0, term.find('=')))) {
      return unknown_error(col, "unknown term '{}' for '{}' (valid: period, freq, name)", term,
                           head);
    }
    for (auto& e : out) PERFX_CHECK(apply_common_term(e, term, col));
    pos = comma + 1;
  }
  std::size_t mods_begin = begin + slash2 + 1;
  if (mods_begin < end && spec_[mods_begin] == ':') ++mods_begin;
  if (mods_begin < end &&
      spec_.substr(mods_begin, end - mods_begin).find('/') != std::string_view::npos) {
    return syntax_error(mods_begin, "unexpected '/' after '{}'", text.substr(0, slash2 + 1));
  }
  PERFX_CHECK(finish_mods(out, mods_begin, end));
  return out;
}

Result<std::vector<EventSpec>> Parser::parse_pmu(std::size_t begin, std::size_t end) {
  const std::string_view text = spec_.substr(begin, end - begin);
  const auto slash1 = text.find('/');
  const auto slash2 = text.find('/', slash1 + 1);
  const std::string_view pmu_name = text.substr(0, slash1);
  if (pmu_name.empty()) return syntax_error(begin, "expected a PMU name before '/'");
  if (slash2 == std::string_view::npos) {
    return syntax_error(begin + slash1, "missing closing '/' after PMU terms in '{}'", text);
  }
  auto pmu = resolver_.find_pmu(pmu_name);
  if (!pmu) {
    // Not a PMU: an event name or a tracepoint with terms ("cpu-clock/period=1000/").
    if (pmu.error().code() == Errc::kNotFound) return parse_with_terms(begin, end, slash1, slash2);
    return resolver_error(std::move(pmu).error(), begin, pmu_name);
  }
  const std::string_view terms = text.substr(slash1 + 1, slash2 - slash1 - 1);
  EventSpec e = new_spec(EventKind::kPmu, text);
  e.pmu = pmu->name;
  e.canonical = std::string(text.substr(0, slash2 + 1));
  e.attr.type = pmu->type;
  std::uint64_t words[4] = {0, 0, 0, 0};
  PERFX_CHECK(apply_terms(e, *pmu, terms, begin + slash1 + 1, words, 0));
  e.attr.config = words[0];
  e.attr.config1 = words[1];
  e.attr.config2 = words[2];
  e.attr.config3 = words[3];
  std::size_t mods_begin = begin + slash2 + 1;
  if (mods_begin < end && spec_[mods_begin] == ':') {
    ++mods_begin;
    if (mods_begin == end) return syntax_error(end, "empty modifier after ':'");
  }
  if (mods_begin < end) {
    const std::string_view rest = spec_.substr(mods_begin, end - mods_begin);
    const auto extra = rest.find('/');
    if (extra != std::string_view::npos) {
      return syntax_error(mods_begin + extra, "unexpected '/' after '{}'", e.canonical);
    }
  }
  std::vector<EventSpec> out;
  out.push_back(std::move(e));
  PERFX_CHECK(finish_mods(out, mods_begin, end));
  return out;
}

}  // namespace

Result<std::vector<EventGroup>> parse_event_list(std::string_view spec, const Resolver& resolver) {
  Parser parser(spec, resolver);
  return parser.parse_list();
}

Result<EventSpec> parse_event(std::string_view spec, const Resolver& resolver) {
  std::size_t begin = 0;
  std::size_t end = spec.size();
  while (begin < end && is_space(spec[begin])) ++begin;
  while (end > begin && is_space(spec[end - 1])) --end;
  Parser parser(spec, resolver);
  PERFX_TRY(events, parser.parse_event(begin, end));
  if (events.size() != 1) {
    return fail(Errc::kInvalidArgument,
                "event syntax error at column {}: '{}' matches {} events; expected exactly one",
                begin + 1, spec.substr(begin, end - begin), events.size());
  }
  return std::move(events[0]);
}

}  // namespace perfx::event
