#include "event/event_list.hpp"

#include <fnmatch.h>
#include <linux/hw_breakpoint.h>
#include <linux/perf_event.h>

#include <fmt/format.h>

#include "event/event_names.hpp"

namespace perfx::event {
namespace {

raw::EventAttr make_attr(std::uint32_t type, std::uint64_t config) {
  raw::EventAttr a{};
  a.size = raw::kAttrSizeVer8;
  a.type = type;
  a.config = config;
  return a;
}

// A template line ("rNNN", "mem:<addr>...") rather than one concrete event.
ListEntry syntax_entry(std::string name, EventKind kind, std::string description,
                       std::optional<raw::EventAttr> attr) {
  ListEntry e;
  e.name = std::move(name);
  e.kind = kind;
  e.syntax = true;
  e.description = std::move(description);
  e.attr = attr;
  return e;
}

bool glob_match(const std::string& pattern, const std::string& text) {
  return fnmatch(pattern.c_str(), text.c_str(), 0) == 0;
}

std::optional<EventKind> class_word(std::string_view f) {
  if (f == "hw" || f == "hardware") return EventKind::kHardware;
  if (f == "sw" || f == "software") return EventKind::kSoftware;
  if (f == "cache" || f == "hwcache") return EventKind::kHwCache;
  if (f == "pmu") return EventKind::kPmu;
  if (f == "tracepoint") return EventKind::kTracepoint;
  if (f == "breakpoint") return EventKind::kBreakpoint;
  if (f == "raw") return EventKind::kRaw;
  if (f == "uprobe") return EventKind::kUprobe;
  return std::nullopt;
}

}  // namespace

bool matches_filter(const ListEntry& entry, std::string_view filter) {
  if (filter.empty()) return true;
  if (auto kind = class_word(filter)) return entry.kind == *kind;
  const bool glob = filter.find_first_of("*?[") != std::string_view::npos;
  const std::string pattern = glob ? std::string(filter) : fmt::format("*{}*", filter);
  if (glob_match(pattern, entry.name)) return true;
  for (const auto& a : entry.aliases) {
    if (glob_match(pattern, a)) return true;
  }
  return false;
}

Result<std::vector<ListEntry>> list_events(const Resolver& resolver, const ListOptions& options) {
  std::vector<ListEntry> out;
  const auto add = [&](ListEntry e) {
    if (matches_filter(e, options.filter)) out.push_back(std::move(e));
  };
  for (auto table : {hardware_events(), software_events()}) {
    for (const auto& s : table) {
      ListEntry e;
      e.name = std::string(s.name);
      if (!s.alias.empty()) e.aliases.emplace_back(s.alias);
      e.kind = s.type == PERF_TYPE_HARDWARE ? EventKind::kHardware : EventKind::kSoftware;
      e.description = std::string(s.description);
      e.attr = make_attr(s.type, s.config);
      add(std::move(e));
    }
  }
  for (const auto& c : cache_events()) {
    ListEntry e;
    e.name = c.name;
    e.kind = EventKind::kHwCache;
    e.description = "Hardware cache event (config = cache | op << 8 | result << 16)";
    e.attr = make_attr(PERF_TYPE_HW_CACHE, c.config);
    add(std::move(e));
  }
  for (const auto& pmu_name : resolver.pmu_names()) {
    auto pmu = resolver.find_pmu(pmu_name);
    if (!pmu) continue;
    for (const auto& alias : pmu->aliases) {
      ListEntry e;
      e.name = fmt::format("{}/{}/", pmu->name, alias.name);
      e.kind = EventKind::kPmu;
      e.description = alias.description.empty()
                          ? fmt::format("{} PMU event ({})", pmu->name, alias.terms)
                          : alias.description;
      if (!alias.unit.empty()) e.description += fmt::format(", unit {}", alias.unit);
      raw::EventAttr a = make_attr(pmu->type, 0);
      std::uint64_t words[4] = {0, 0, 0, 0};
      bool ok = true;
      // Resolve the alias' terms ("event=0x00") through the format fields.
      std::string_view terms = alias.terms;
      while (ok && !terms.empty()) {
        const auto comma = terms.find(',');
        const std::string_view term = terms.substr(0, comma);
        terms = comma == std::string_view::npos ? std::string_view{} : terms.substr(comma + 1);
        const auto eq = term.find('=');
        const std::string_view key = term.substr(0, eq);
        std::uint64_t value = 1;
        if (eq != std::string_view::npos) {
          const std::string v(term.substr(eq + 1));
          char* end = nullptr;
          value = std::strtoull(v.c_str(), &end, 0);
          ok = end != nullptr && *end == '\0' && !v.empty();
        }
        bool found = false;
        for (const auto& f : pmu->format) {
          if (f.name == key) {
            found = true;
            ok = ok && apply_format_field(f, value, words).has_value();
          }
        }
        ok = ok && found;
      }
      if (ok) {
        a.config = words[0];
        a.config1 = words[1];
        a.config2 = words[2];
        a.config3 = words[3];
        e.attr = a;
      } else {
        e.unavailable = fmt::format("cannot resolve terms '{}'", alias.terms);
      }
      add(std::move(e));
    }
  }
  {
    raw::EventAttr bp = make_attr(PERF_TYPE_BREAKPOINT, 0);
    bp.bp_type = HW_BREAKPOINT_W;
    bp.bp_len = HW_BREAKPOINT_LEN_4;  // the caller fills bp_addr with a real address
    add(syntax_entry("rNNN", EventKind::kRaw,
                     "Raw PMU event: NNN = hex config (see the CPU vendor's manual)",
                     make_attr(PERF_TYPE_RAW, 0)));
    add(syntax_entry("<pmu>/<term>=<value>[,...]/[modifiers]", EventKind::kRaw,
                     "PMU event by sysfs terms (format/ fields, events/ aliases, config, "
                     "config1, config2, config3, period, freq, name)",
                     std::nullopt));
    add(syntax_entry("mem:<addr>[/len][:access]", EventKind::kBreakpoint,
                     "Hardware breakpoint: len 1, 2, 4 or 8 (default 4, x: sizeof(long)); "
                     "access r, w, x or rw (default rw)",
                     bp));
  }
  bool have_uprobe = false;
  std::uint32_t uprobe_type = 0;
  if (auto up = resolver.find_pmu("uprobe")) {
    have_uprobe = true;
    uprobe_type = up->type;
  }
  {
    auto tps = resolver.tracepoints();
    if (tps) {
      for (const auto& t : *tps) {
        ListEntry e;
        e.name = fmt::format("{}:{}", t.subsys, t.name);
        e.kind = EventKind::kTracepoint;
        if (!matches_filter(e, options.filter)) continue;
        if (options.resolve_tracepoints) {
          auto id = resolver.tracepoint_id(t.subsys, t.name);
          if (id) {
            e.attr = make_attr(PERF_TYPE_TRACEPOINT, *id);
          } else if (id.error().code() == Errc::kNotFound) {
            continue;  // no id file (ftrace's internal events): not usable, not listed (perf)
          } else {
            e.unavailable = id.error().message();
          }
        }
        out.push_back(std::move(e));
      }
    } else if (tps.error().code() != Errc::kNotFound) {
      return tl::unexpected(std::move(tps).error());
    }
  }
  for (const char* prefix : {"uprobe", "uretprobe"}) {
    ListEntry e;
    e.name = fmt::format("{}:<path>:<symbol>[+<off>]|<0xoffset>", prefix);
    e.kind = EventKind::kUprobe;
    e.syntax = true;
    e.description = std::string_view(prefix) == "uprobe"
                        ? "User-space probe at a function or file offset (uprobe PMU)"
                        : "User-space probe on function return (uprobe PMU, retprobe bit)";
    if (have_uprobe) {
      // The caller fills config1 (path) and config2 (offset) to probe it.
      raw::EventAttr a = make_attr(uprobe_type, std::string_view(prefix) == "uretprobe" ? 1 : 0);
      e.attr = a;
    } else {
      e.unavailable = "no uprobe PMU in sysfs (kernel without CONFIG_UPROBE_EVENTS)";
    }
    add(std::move(e));
  }
  return out;
}

}  // namespace perfx::event
