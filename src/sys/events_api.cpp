// perfx/events.hpp: the public face of the event parser (event/parse), the event list
// (event/event_list + sys/event_probe) and the system resolver (sys/event_resolver).
// Builders go through the same parser where perf has a syntax for the event, so the
// attrs are the ones `perfx stat -e` opens; the kprobe PMU (no perf syntax) is built here
// from its sysfs description.

#include <fmt/format.h>
#include <linux/perf_event.h>

#include <charconv>
#include <memory>

#include "core/error_format.hpp"
#include "event/attr_dump.hpp"
#include "event/event_list.hpp"
#include "event/event_names.hpp"
#include "event/parse.hpp"
#include "event/public_kind.hpp"
#include "perfx/events.hpp"
#include "sys/breakpoint_check.hpp"
#include "sys/cpu_list.hpp"
#include "sys/event_probe.hpp"
#include "sys/event_resolver.hpp"
#include "sys/pmu_sysfs.hpp"

namespace perfx {
namespace {

std::string pmu_dir(const SystemPaths& paths) { return paths.sysfs + "/bus/event_source/devices"; }

/// The process-wide cached resolver for the default paths, else a fresh one.
class ResolverRef {
 public:
  explicit ResolverRef(const SystemPaths& paths) {
    const SystemPaths def;
    if (paths.sysfs == def.sysfs && paths.tracefs == def.tracefs && paths.mounts == def.mounts) {
      ptr_ = &sys::system_resolver();
    } else {
      own_ = std::make_unique<sys::SystemResolver>(
          sys::ResolverPaths{pmu_dir(paths), paths.tracefs, paths.mounts});
      ptr_ = own_.get();
    }
  }
  const event::Resolver& get() const { return *ptr_; }

 private:
  std::unique_ptr<sys::SystemResolver> own_;
  const event::Resolver* ptr_ = nullptr;
};

using event::to_public;

EventSpec to_public(event::EventSpec&& e) {
  EventSpec out;
  out.name = std::move(e.name);
  out.canonical = std::move(e.canonical);
  out.kind = to_public(e.kind);
  out.attr = e.attr;
  out.pmu = std::move(e.pmu);
  out.probe_target = std::move(e.uprobe_path);
  out.probe_symbol = std::move(e.uprobe_symbol);
  out.default_period = e.default_period;
  out.period_from_term = e.period_from_term;
  out.sample_read = e.sample_read;
  out.weak_group = e.weak_group;
  out.explicit_privilege = e.explicit_privilege;
  out.precise_max = e.precise_max;
  return out;
}

EventSpec symbolic(std::uint32_t type, std::uint64_t config, std::string name) {
  EventSpec e;
  e.name = name;
  e.canonical = std::move(name);
  e.kind = type == PERF_TYPE_HARDWARE ? EventKind::kHardware : EventKind::kSoftware;
  e.attr.type = type;
  e.attr.size = raw::kAttrSizeVer8;
  e.attr.config = config;
  return e;
}

std::string symbolic_name(std::uint32_t type, std::uint64_t config) {
  const auto table =
      type == PERF_TYPE_HARDWARE ? event::hardware_events() : event::software_events();
  for (const event::SymbolicEvent& s : table) {
    if (s.config == config) return std::string(s.name);
  }
  return fmt::format("{}/config={:#x}/", type == PERF_TYPE_HARDWARE ? "cpu" : "software", config);
}

bool has_glob(std::string_view s) { return s.find_first_of("*?[],{}/") != std::string_view::npos; }

}  // namespace

const char* event_kind_name(EventKind kind) noexcept {
  // The parser's kinds (event::kind_key) and the kprobe PMU, which has no syntax of its own.
  if (kind == EventKind::kKprobe) return "kprobe";
  return event::kind_key(event::from_public(kind));
}

raw::EventAttr EventSpec::attr_for_open() const {
  raw::EventAttr a = attr;
  // The kernel copies the path / function name from this user pointer during open.
  if ((kind == EventKind::kUprobe || kind == EventKind::kKprobe) && !probe_target.empty()) {
    a.config1 = reinterpret_cast<std::uintptr_t>(probe_target.c_str());
  }
  return a;
}

Result<std::vector<EventGroup>> parse_events(std::string_view spec, const SystemPaths& paths) {
  const ResolverRef resolver(paths);
  PERFX_TRY(groups, event::parse_event_list(spec, resolver.get()));
  std::vector<EventGroup> out;
  out.reserve(groups.size());
  for (auto& g : groups) {
    EventGroup pg;
    pg.is_group = g.is_group;
    for (auto& e : g.events) pg.events.push_back(to_public(std::move(e)));
    out.push_back(std::move(pg));
  }
  return out;
}

Result<EventSpec> parse_event(std::string_view spec, const SystemPaths& paths) {
  const ResolverRef resolver(paths);
  PERFX_TRY(e, event::parse_event(spec, resolver.get()));
  return to_public(std::move(e));
}

std::vector<CounterGroupSpec> counter_groups(std::span<const EventGroup> groups) {
  std::vector<CounterGroupSpec> out;
  for (const EventGroup& g : groups) {
    CounterGroupSpec cg;
    cg.grouped = g.is_group;
    for (const EventSpec& e : g.events) {
      CounterEvent ce;
      ce.name = e.name;
      ce.attr = e.attr_for_open();
      ce.allow_user_only_fallback = !e.explicit_privilege;
      cg.events.push_back(std::move(ce));
    }
    out.push_back(std::move(cg));
  }
  return out;
}

// ------------------------------------------------------------------ builders

EventSpec hardware_event(HardwareEvent ev) {
  const auto config = static_cast<std::uint64_t>(ev);
  return symbolic(PERF_TYPE_HARDWARE, config, symbolic_name(PERF_TYPE_HARDWARE, config));
}

EventSpec software_event(SoftwareEvent ev) {
  const auto config = static_cast<std::uint64_t>(ev);
  return symbolic(PERF_TYPE_SOFTWARE, config, symbolic_name(PERF_TYPE_SOFTWARE, config));
}

EventSpec cache_event(CacheLevel level, CacheOp op, CacheResult result) {
  const std::uint64_t config = static_cast<std::uint64_t>(level) |
                               (static_cast<std::uint64_t>(op) << 8) |
                               (static_cast<std::uint64_t>(result) << 16);
  std::string name;
  for (const event::CacheEvent& c : event::cache_events()) {
    if (c.config == config) name = c.name;
  }
  if (name.empty()) {
    static constexpr const char* kLevels[] = {"L1-dcache", "L1-icache", "LLC", "dTLB",
                                              "iTLB",      "branch",    "node"};
    static constexpr const char* kOps[] = {"load", "store", "prefetch"};
    const auto li = static_cast<std::size_t>(level);
    const auto oi = static_cast<std::size_t>(op);
    name = fmt::format("{}-{}-{}", li < 7 ? kLevels[li] : "cache", oi < 3 ? kOps[oi] : "op",
                       result == CacheResult::kMiss ? "misses" : "refs");
  }
  EventSpec e;
  e.name = name;
  e.canonical = std::move(name);
  e.kind = EventKind::kHwCache;
  e.attr.type = PERF_TYPE_HW_CACHE;
  e.attr.size = raw::kAttrSizeVer8;
  e.attr.config = config;
  return e;
}

EventSpec raw_event(std::uint64_t config) {
  EventSpec e;
  e.name = fmt::format("r{:x}", config);
  e.canonical = e.name;
  e.kind = EventKind::kRaw;
  e.attr.type = PERF_TYPE_RAW;
  e.attr.size = raw::kAttrSizeVer8;
  e.attr.config = config;
  return e;
}

Result<EventSpec> pmu_event(std::string_view pmu, std::span<const PmuTerm> terms,
                            const SystemPaths& paths) {
  if (pmu.empty() || has_glob(pmu)) {
    return fail(Errc::kInvalidArgument, "'{}' is not a PMU name", pmu);
  }
  const ResolverRef resolver(paths);
  PERFX_TRY(info, resolver.get().find_pmu(pmu));
  std::string spec = std::string(pmu) + "/";
  for (std::size_t i = 0; i < terms.size(); ++i) {
    const PmuTerm& t = terms[i];
    if (t.name.empty() || t.name.find_first_of(",/= ") != std::string::npos) {
      return fail(Errc::kInvalidArgument, "'{}' is not a term name of PMU '{}'", t.name, pmu);
    }
    bool alias = false;
    for (const auto& a : info.aliases) alias = alias || a.name == t.name;
    if (i > 0) spec += ',';
    spec += alias ? t.name : fmt::format("{}={:#x}", t.name, t.value);
  }
  spec += '/';
  return parse_event(spec, paths);
}

Result<EventSpec> tracepoint_event(std::string_view subsys, std::string_view name,
                                   const SystemPaths& paths) {
  if (subsys.empty() || name.empty() || has_glob(subsys) || has_glob(name) ||
      subsys.find(':') != std::string_view::npos || name.find(':') != std::string_view::npos) {
    return fail(Errc::kInvalidArgument, "'{}:{}' is not a tracepoint name (no globs here)", subsys,
                name);
  }
  return parse_event(fmt::format("{}:{}", subsys, name), paths);
}

Result<EventSpec> breakpoint_event(std::uint64_t addr, BreakpointAccess access, std::uint64_t len) {
  const std::string rwx = event::breakpoint_access_text(static_cast<std::uint32_t>(access));
  if (rwx != "r" && rwx != "w" && rwx != "rw" && rwx != "x") {
    return fail(Errc::kInvalidArgument, "attr.bp_type {} is not a breakpoint access type",
                static_cast<std::uint32_t>(access));
  }
  if (access == BreakpointAccess::kExecute && len != sizeof(long)) {
    return fail(Errc::kInvalidArgument,
                "attr.bp_len {} is invalid for an execute breakpoint: it must be {}", len,
                sizeof(long));
  }
  if (len != 1 && len != 2 && len != 4 && len != 8) {
    return fail(Errc::kInvalidArgument, "attr.bp_len {} is invalid: it must be 1, 2, 4 or 8", len);
  }
  if (addr % len != 0) {
    return fail(Errc::kInvalidArgument, "attr.bp_addr {:#x} is not aligned to attr.bp_len {}", addr,
                len);
  }
  // No sysfs lookup for mem: events: the default paths are never read.
  return parse_event(fmt::format("mem:{:#x}/{}:{}", addr, len, rwx));
}

Result<EventSpec> uprobe_event(std::string_view path, std::string_view symbol,
                               const ProbeOptions& options, const SystemPaths& paths) {
  if (path.empty() || path.find_first_of(":,{}") != std::string_view::npos) {
    return fail(Errc::kInvalidArgument,
                "uprobe path '{}' is empty or holds ':', ',' or braces (not expressible in "
                "perf's syntax)",
                path);
  }
  const char* prefix = options.retprobe ? "uretprobe" : "uprobe";
  std::string spec;
  if (symbol.empty()) {
    spec = fmt::format("{}:{}:{:#x}", prefix, path, options.offset);
  } else if (options.offset != 0) {
    spec = fmt::format("{}:{}:{}+{:#x}", prefix, path, symbol, options.offset);
  } else {
    spec = fmt::format("{}:{}:{}", prefix, path, symbol);
  }
  return parse_event(spec, paths);
}

namespace {

Result<EventSpec> kprobe_common(std::string function, std::uint64_t config2, bool retprobe,
                                const SystemPaths& paths, std::string name) {
  auto pmu = sys::read_pmu(pmu_dir(paths), "kprobe");
  if (!pmu) {
    if (pmu.error().code() == Errc::kNotFound) {
      return fail(Errc::kNotFound,
                  "the kernel has no kprobe PMU ({}/kprobe is missing: a kernel without "
                  "CONFIG_KPROBE_EVENTS)",
                  pmu_dir(paths));
    }
    return tl::unexpected(std::move(pmu).error());
  }
  EventSpec e;
  e.kind = EventKind::kKprobe;
  e.pmu = pmu->name;
  e.attr.type = pmu->type;
  e.attr.size = raw::kAttrSizeVer8;
  e.attr.config2 = config2;
  e.default_period = 1;
  e.probe_target = std::move(function);
  if (retprobe) {
    const event::FormatField* field = nullptr;
    for (const auto& f : pmu->format) {
      if (f.name == "retprobe") field = &f;
    }
    if (field == nullptr) {
      return fail(Errc::kNotSupported, "the kprobe PMU has no format/retprobe field");
    }
    std::uint64_t words[4] = {0, 0, 0, 0};
    PERFX_CHECK(event::apply_format_field(*field, 1, words));
    e.attr.config |= words[0];
    e.attr.config1 |= words[1];
    e.attr.config3 |= words[3];
  }
  e.name = std::move(name);
  e.canonical = e.name;
  return e;
}

}  // namespace

Result<EventSpec> kprobe_event(std::string_view function, const ProbeOptions& options,
                               const SystemPaths& paths) {
  if (function.empty() || function.find_first_of(" \t:,/") != std::string_view::npos) {
    return fail(Errc::kInvalidArgument, "'{}' is not a kernel function name", function);
  }
  std::string name = fmt::format("{}:{}", options.retprobe ? "kretprobe" : "kprobe", function);
  if (options.offset != 0) name += fmt::format("+{:#x}", options.offset);
  return kprobe_common(std::string(function), options.offset, options.retprobe, paths,
                       std::move(name));
}

Result<EventSpec> kprobe_event_at(std::uint64_t addr, bool retprobe, const SystemPaths& paths) {
  if (addr == 0) return fail(Errc::kInvalidArgument, "kprobe address 0");
  return kprobe_common({}, addr, retprobe, paths,
                       fmt::format("{}:{:#x}", retprobe ? "kretprobe" : "kprobe", addr));
}

// ------------------------------------------------------------------ PMUs and the list

std::vector<std::string> pmu_names(const SystemPaths& paths) {
  return sys::list_pmus(pmu_dir(paths));
}

Result<PmuDescription> describe_pmu(std::string_view name, const SystemPaths& paths) {
  PERFX_TRY(info, sys::read_pmu(pmu_dir(paths), name));
  PmuDescription out;
  out.name = info.name;
  out.type = info.type;
  for (const auto& f : info.format) {
    out.format.push_back(PmuFormatField{f.name, static_cast<unsigned>(f.word), f.ranges});
  }
  for (const auto& a : info.aliases) out.aliases.emplace_back(a.name, a.terms);
  const std::string dir = pmu_dir(paths) + "/" + out.name;
  if (auto text = sys::read_text_file(dir + "/rdpmc")) {
    int v = 0;
    const char* b = text->data();
    while (b < text->data() + text->size() && *b == ' ') ++b;
    const auto [end, ec] = std::from_chars(b, text->data() + text->size(), v);
    if (ec == std::errc{} && end != b) out.rdpmc = v;
  }
  for (const char* file : {"/cpumask", "/cpus"}) {
    auto text = sys::read_text_file(dir + file);
    if (!text) continue;
    if (auto cpus = sys::parse_cpus(*text)) out.cpumask = std::move(*cpus);
    break;
  }
  return out;
}

Result<std::vector<EventListing>> list_events(const ListEventsOptions& options,
                                              const SystemPaths& paths) {
  const ResolverRef resolver(paths);
  event::ListOptions lo;
  lo.filter = options.filter;
  PERFX_TRY(entries, event::list_events(resolver.get(), lo));
  sys::ProbeOptions po;
  po.probe = options.probe;
  po.full = options.full_probe;
  sys::probe_event_list(entries, resolver.get(), po);
  std::vector<EventListing> out;
  out.reserve(entries.size());
  for (auto& e : entries) {
    EventListing l;
    l.name = std::move(e.name);
    l.aliases = std::move(e.aliases);
    l.kind = to_public(e.kind);
    l.description = std::move(e.description);
    l.syntax = e.syntax;
    l.attr = e.attr;
    l.supported = e.supported;
    l.probed = e.probed;
    l.status = std::move(e.status);
    out.push_back(std::move(l));
  }
  return out;
}

// ------------------------------------------------------------------ describing

std::string describe_attr(const raw::EventAttr& attr) { return event::dump_attr(attr); }

BreakpointSupport breakpoints_fire() {
  switch (sys::check_hardware_breakpoints()) {
    case sys::BreakpointCheck::kFire:
      return BreakpointSupport::kFires;
    case sys::BreakpointCheck::kSilent:
      return BreakpointSupport::kNeverFires;
    case sys::BreakpointCheck::kUnavailable:
      return BreakpointSupport::kUnavailable;
  }
  return BreakpointSupport::kUnavailable;
}

std::string breakpoint_support_reason(BreakpointSupport support) {
  switch (support) {
    case BreakpointSupport::kFires:
      return {};
    case BreakpointSupport::kNeverFires:
      return sys::kSilentBreakpointsReason;
    case BreakpointSupport::kUnavailable:
      return "hardware breakpoint events cannot be opened here (permissions "
             "(perf_event_paranoid), no free debug register, or no breakpoint support)";
  }
  return {};
}

}  // namespace perfx
