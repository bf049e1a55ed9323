#pragma once
/// \file
/// Events, public and typed: perf's event syntax parsed by the same parser `perfx stat`
/// and `perfx record -e` use, typed builders per kind, the list of what this machine
/// offers, and a readable dump of any attr.
///
/// \code
///   auto groups = perfx::parse_events("task-clock:u,{cpu-clock,page-faults},"
///                                     "sched:sched_switch,mem:0x1000:w");
///   for (auto& g : *groups) for (auto& e : g.events)
///     std::puts(perfx::describe_attr(e.attr).c_str());
///   auto bp = perfx::breakpoint_event(addr, perfx::BreakpointAccess::kWrite, 8);
/// \endcode
///
/// Probe events (uprobe, kprobe) carry a string the kernel reads through a pointer in
/// attr.config1: open them with EventSpec::attr_for_open(), never with `attr` directly.

#include <linux/hw_breakpoint.h>

#include <cstdint>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "perfx/counter.hpp"
#include "perfx/error.hpp"
#include "perfx/raw.hpp"

namespace perfx {

/// Where the system lookups read. Defaults are the running system; tests point them at
/// a fake tree.
struct PERFX_API SystemPaths {
  /// sysfs root: PMUs are `<sysfs>/bus/event_source/devices/<pmu>/{type,format/,events/}`.
  std::string sysfs = "/sys";
  /// tracefs root holding `events/`; empty: found from `mounts`.
  std::string tracefs;
  /// The mount table searched for tracefs/debugfs when `tracefs` is empty.
  std::string mounts = "/proc/mounts";
  /// procfs root: the perf sysctls under `<procfs>/sys/kernel/`, capabilities from
  /// `<procfs>/self/status` (perfx/system.hpp).
  std::string procfs = "/proc";
};

/// Which PMU an event goes to.
enum class EventKind : std::uint8_t {
  kHardware,    ///< PERF_TYPE_HARDWARE (cycles, instructions, ...)
  kSoftware,    ///< PERF_TYPE_SOFTWARE (task-clock, page-faults, ...)
  kHwCache,     ///< PERF_TYPE_HW_CACHE (L1-dcache-load-misses, ...)
  kRaw,         ///< PERF_TYPE_RAW (rNNNN)
  kPmu,         ///< a sysfs PMU with format/ fields (msr/tsc/, pmu/term=v/)
  kTracepoint,  ///< PERF_TYPE_TRACEPOINT (subsys:name, config = tracefs id)
  kBreakpoint,  ///< PERF_TYPE_BREAKPOINT (mem:ADDR[/LEN][:rwx])
  kUprobe,      ///< the uprobe PMU (uprobe:/path:symbol)
  kKprobe,      ///< the kprobe PMU (kprobe_event(); CONFIG_KPROBE_EVENTS)
};

/// "hardware", "software", "hw_cache", "raw", "pmu", "tracepoint", "breakpoint",
/// "uprobe", "kprobe".
PERFX_API const char* event_kind_name(EventKind kind) noexcept;

/// One resolved event: the attr the spec determines (type, size 136, config, config1-3,
/// bp_*, exclude_*, precise_ip, pinned, exclusive, period/freq terms). Add sampling and
/// read_format choices on a copy.
struct PERFX_API EventSpec {
  std::string name;       ///< as written, modifiers included ("page-faults:u")
  std::string canonical;  ///< perf's spelling without modifiers ("context-switches")
  EventKind kind = EventKind::kSoftware;
  raw::EventAttr attr{};  ///< for probes config1 is 0 here: use attr_for_open()
  std::string pmu;        ///< PMU events and probes: the sysfs PMU ("msr", "uprobe")
  /// Probes: the string config1 points at when opened (uprobe: file path; kprobe:
  /// function name, empty for a probe by address).
  std::string probe_target;
  std::string probe_symbol;          ///< uprobe: the symbol when given by name
  std::uint64_t default_period = 0;  ///< 1 for tracepoints/breakpoints (every hit), else 0
  bool period_from_term = false;     ///< a period=/freq= term set the sampling fields
  bool sample_read = false;          ///< `:S` leader sampling
  bool weak_group = false;           ///< `:W`
  bool explicit_privilege = false;   ///< a u/k/h modifier was given
  /// `:P`: sampled at the highest precise_ip that opens (perf's precise_max; a recording
  /// tries 3 and lowers it, counting leaves precise_ip 0).
  bool precise_max = false;

  /// A copy of `attr` ready for perf_event_open(2): probes get config1 pointing at
  /// `probe_target` (valid while *this lives unchanged).
  [[nodiscard]] raw::EventAttr attr_for_open() const;
};

/// A `{a,b}` group or a lone event; events[0] leads.
struct PERFX_API EventGroup {
  std::vector<EventSpec> events;
  bool is_group = false;  ///< written with braces (even `{a}`)
};

/// Parses a full perf `-e` value: names and aliases, modifiers (`:ukhHGIpPSDWe`), groups
/// `{a,b}:mod`, `pmu/term=v,.../`, `subsys:name` (globs expand), `mem:ADDR[/LEN][:rwx]`,
/// `uprobe:/path:sym[+off]`, `rNNNN`, cache names. As perf, an event written without
/// modifiers gets exclude_guest=1; written with them, exclude_guest is set by u, p and H
/// only (`page-faults:k` counts in guests too). Errors: kInvalidArgument for bad
/// syntax, kNotFound for an unknown name, naming the token and its column.
[[nodiscard]] PERFX_API Result<std::vector<EventGroup>> parse_events(std::string_view spec,
                                                                     const SystemPaths& paths = {});

/// Parses one event (no commas, no braces).
[[nodiscard]] PERFX_API Result<EventSpec> parse_event(std::string_view spec,
                                                      const SystemPaths& paths = {});

/// The groups as CounterSet input (probe events opened through attr_for_open(): the
/// groups must outlive the CounterSet::open call).
[[nodiscard]] PERFX_API std::vector<CounterGroupSpec> counter_groups(
    std::span<const EventGroup> groups);

/// perf's --all-user and --all-kernel: every event counts in one privilege level,
/// whatever its modifiers say (`cpu-clock:k` with --all-user counts user space).
enum class PrivilegeScope : std::uint8_t {
  kAsWritten,   ///< each event's own modifiers
  kUserOnly,    ///< --all-user: exclude_kernel=1, exclude_user=0
  kKernelOnly,  ///< --all-kernel: exclude_user=1, exclude_kernel=0
};

/// Applies `scope` to `attr` (exclude_hv and exclude_guest are left as they are, as perf).
PERFX_API void restrict_privilege(raw::EventAttr& attr, PrivilegeScope scope) noexcept;

/// Applies `scope` to every event of `groups`.
PERFX_API void restrict_privilege(std::span<EventGroup> groups, PrivilegeScope scope) noexcept;

// ------------------------------------------------------------------ builders

/// PERF_TYPE_HARDWARE configs.
enum class HardwareEvent : std::uint64_t {
  kCpuCycles = PERF_COUNT_HW_CPU_CYCLES,
  kInstructions = PERF_COUNT_HW_INSTRUCTIONS,
  kCacheReferences = PERF_COUNT_HW_CACHE_REFERENCES,
  kCacheMisses = PERF_COUNT_HW_CACHE_MISSES,
  kBranchInstructions = PERF_COUNT_HW_BRANCH_INSTRUCTIONS,
  kBranchMisses = PERF_COUNT_HW_BRANCH_MISSES,
  kBusCycles = PERF_COUNT_HW_BUS_CYCLES,
  kStalledCyclesFrontend = PERF_COUNT_HW_STALLED_CYCLES_FRONTEND,
  kStalledCyclesBackend = PERF_COUNT_HW_STALLED_CYCLES_BACKEND,
  kRefCpuCycles = PERF_COUNT_HW_REF_CPU_CYCLES,
};

/// PERF_TYPE_SOFTWARE configs.
enum class SoftwareEvent : std::uint64_t {
  kCpuClock = PERF_COUNT_SW_CPU_CLOCK,
  kTaskClock = PERF_COUNT_SW_TASK_CLOCK,
  kPageFaults = PERF_COUNT_SW_PAGE_FAULTS,
  kContextSwitches = PERF_COUNT_SW_CONTEXT_SWITCHES,
  kCpuMigrations = PERF_COUNT_SW_CPU_MIGRATIONS,
  kPageFaultsMin = PERF_COUNT_SW_PAGE_FAULTS_MIN,
  kPageFaultsMaj = PERF_COUNT_SW_PAGE_FAULTS_MAJ,
  kAlignmentFaults = PERF_COUNT_SW_ALIGNMENT_FAULTS,
  kEmulationFaults = PERF_COUNT_SW_EMULATION_FAULTS,
  kDummy = PERF_COUNT_SW_DUMMY,
  kBpfOutput = PERF_COUNT_SW_BPF_OUTPUT,
  kCgroupSwitches = 11,  ///< PERF_COUNT_SW_CGROUP_SWITCHES (5.13)
};

/// PERF_TYPE_HW_CACHE: the cache (config bits 0-7).
enum class CacheLevel : std::uint8_t {
  kL1d = PERF_COUNT_HW_CACHE_L1D,
  kL1i = PERF_COUNT_HW_CACHE_L1I,
  kLl = PERF_COUNT_HW_CACHE_LL,
  kDtlb = PERF_COUNT_HW_CACHE_DTLB,
  kItlb = PERF_COUNT_HW_CACHE_ITLB,
  kBpu = PERF_COUNT_HW_CACHE_BPU,
  kNode = PERF_COUNT_HW_CACHE_NODE,
};
/// The operation (bits 8-15).
enum class CacheOp : std::uint8_t {
  kRead = PERF_COUNT_HW_CACHE_OP_READ,
  kWrite = PERF_COUNT_HW_CACHE_OP_WRITE,
  kPrefetch = PERF_COUNT_HW_CACHE_OP_PREFETCH,
};
/// The result (bits 16-23).
enum class CacheResult : std::uint8_t {
  kAccess = PERF_COUNT_HW_CACHE_RESULT_ACCESS,
  kMiss = PERF_COUNT_HW_CACHE_RESULT_MISS,
};

/// Access type of a breakpoint (attr.bp_type).
enum class BreakpointAccess : std::uint32_t {
  kRead = HW_BREAKPOINT_R,        ///< not accepted by x86: use kReadWrite
  kWrite = HW_BREAKPOINT_W,       ///< data store
  kReadWrite = HW_BREAKPOINT_RW,  ///< data load or store
  kExecute = HW_BREAKPOINT_X,     ///< instruction fetch (len = sizeof(long))
};

/// A hardware event ("cpu-cycles"...). Opening it on a machine without a PMU fails with
/// kNotSupported (or a CounterSet marks it not supported).
[[nodiscard]] PERFX_API EventSpec hardware_event(HardwareEvent ev);
/// A software event.
[[nodiscard]] PERFX_API EventSpec software_event(SoftwareEvent ev);
/// A hardware cache event: config = level | op << 8 | result << 16, named as perf
/// spells it ("L1-dcache-load-misses").
[[nodiscard]] PERFX_API EventSpec cache_event(CacheLevel level, CacheOp op, CacheResult result);
/// A raw PMU event (PERF_TYPE_RAW, named "rHEX").
[[nodiscard]] PERFX_API EventSpec raw_event(std::uint64_t config);

/// One `name=value` term of a sysfs PMU event: a `format/` field, an `events/` alias
/// (value ignored), config|config1|config2|config3, period or freq.
struct PERFX_API PmuTerm {
  std::string name;
  std::uint64_t value = 1;
};

/// An event of sysfs PMU `pmu` built from its `format/` fields (each value checked
/// against the field's width). kNotFound for an unknown PMU, field or alias.
[[nodiscard]] PERFX_API Result<EventSpec> pmu_event(std::string_view pmu,
                                                    std::span<const PmuTerm> terms,
                                                    const SystemPaths& paths = {});

/// A tracepoint by name: config = `<tracefs>/events/<subsys>/<name>/id`.
[[nodiscard]] PERFX_API Result<EventSpec> tracepoint_event(std::string_view subsys,
                                                           std::string_view name,
                                                           const SystemPaths& paths = {});

/// A hardware breakpoint on `addr`: `len` 1, 2, 4 or 8 (kExecute: sizeof(long)),
/// `addr` aligned to it. kInvalidArgument naming bp_len/bp_addr/bp_type otherwise.
/// Whether breakpoints fire here: breakpoints_fire().
[[nodiscard]] PERFX_API Result<EventSpec> breakpoint_event(std::uint64_t addr,
                                                           BreakpointAccess access,
                                                           std::uint64_t len = 8);

/// Options shared by uprobe_event() and kprobe_event().
struct PERFX_API ProbeOptions {
  std::uint64_t offset = 0;  ///< added to the symbol/function (probe_offset)
  bool retprobe = false;     ///< fire on return (the PMU's `format/retprobe` bit)
};

/// A uprobe through the uprobe PMU: type from `<sysfs>/bus/event_source/devices/uprobe/
/// type`, config1 = the path (attr_for_open), config2 = the file offset of `symbol`
/// (read from the ELF file) + options.offset; an empty `symbol` probes options.offset.
/// kNotFound when the PMU, file or symbol is missing; kMalformedData for a non-ELF file.
[[nodiscard]] PERFX_API Result<EventSpec> uprobe_event(std::string_view path,
                                                       std::string_view symbol,
                                                       const ProbeOptions& options = {},
                                                       const SystemPaths& paths = {});

/// A kprobe through the kprobe PMU: config1 = `function` (attr_for_open), config2 =
/// options.offset; the retprobe bit from `format/retprobe`. kNotFound with "the kernel
/// has no kprobe PMU (CONFIG_KPROBE_EVENTS)" when sysfs has none.
[[nodiscard]] PERFX_API Result<EventSpec> kprobe_event(std::string_view function,
                                                       const ProbeOptions& options = {},
                                                       const SystemPaths& paths = {});
/// A kprobe on a kernel address: config1 = 0, config2 = `addr`.
[[nodiscard]] PERFX_API Result<EventSpec> kprobe_event_at(std::uint64_t addr, bool retprobe = false,
                                                          const SystemPaths& paths = {});

// ------------------------------------------------------------------ PMUs and the list

/// A `format/` field: `config1:0-7,32-35` -> word 1, ranges {0,7},{32,35}.
struct PERFX_API PmuFormatField {
  std::string name;
  unsigned word = 0;  ///< 0 = config, 1 = config1, 2 = config2, 3 = config3
  std::vector<std::pair<unsigned, unsigned>> ranges;  ///< inclusive bit ranges, low first
};

/// A sysfs PMU: its type, format fields and event aliases.
struct PERFX_API PmuDescription {
  std::string name;
  std::uint32_t type = 0;
  std::vector<PmuFormatField> format;
  std::vector<std::pair<std::string, std::string>> aliases;  ///< events/<name> -> terms
  /// `<pmu>/rdpmc` (the core PMU, `cpu/rdpmc`): 0 = user-space rdpmc off, 1 = allowed
  /// while a perf event is mmapped (default), 2 = always; nullopt when the PMU has none.
  std::optional<int> rdpmc;
  /// `<pmu>/cpumask` (or `<pmu>/cpus` on hybrid core PMUs): the CPUs an uncore-style PMU
  /// counts on (open it on those CPUs only); empty when the PMU has no such file.
  std::vector<int> cpumask;
};

/// Names of every PMU under `<sysfs>/bus/event_source/devices`, sorted.
[[nodiscard]] PERFX_API std::vector<std::string> pmu_names(const SystemPaths& paths = {});
/// One PMU. kNotFound when absent.
[[nodiscard]] PERFX_API Result<PmuDescription> describe_pmu(std::string_view name,
                                                            const SystemPaths& paths = {});

/// One event this machine offers (a line of `perfx list`).
struct PERFX_API EventListing {
  std::string name;                  ///< "cpu-clock", "sched:sched_switch", "msr/tsc/"
  std::vector<std::string> aliases;  ///< other spellings
  EventKind kind = EventKind::kSoftware;
  std::string description;
  bool syntax = false;                 ///< a template ("rNNN", "mem:<addr>...")
  std::optional<raw::EventAttr> attr;  ///< resolved attr, if any
  bool supported = false;              ///< opened (or known usable) here
  bool probed = false;                 ///< an open was really attempted
  std::string status;                  ///< "supported", "not supported: no hardware PMU"...
};

/// What list_events() includes and how hard it checks.
struct PERFX_API ListEventsOptions {
  /// A glob ("sched:*"), a word, or a class (hw, sw, cache, pmu, tracepoint, breakpoint,
  /// raw, uprobe); empty: everything.
  std::string filter;
  /// Open each event once (disabled, closed at once) to say whether it works here.
  bool probe = true;
  /// With `probe`: really open every tracepoint and a real uprobe on this program's
  /// main(). Slow: closing each waits for an RCU grace period (tens of ms). Otherwise
  /// tracepoints whose id resolved are "available" and uprobes are probed on a path
  /// that does not exist (the uprobe PMU checks permissions first: ENOENT means "works").
  bool full_probe = false;
};

/// Every event usable on this system, in perf list's order.
[[nodiscard]] PERFX_API Result<std::vector<EventListing>> list_events(
    const ListEventsOptions& options = {}, const SystemPaths& paths = {});

/// How format_event_list_text() lays the list out.
struct PERFX_API EventListTextOptions {
  bool descriptions = false;  ///< a description line under each event (perf list -d)
  bool banner = true;         ///< the heading and the modifier summary (no filter given)
};

/// perf list's layout: "  name OR alias    [Kind] [status]", one event a line.
[[nodiscard]] PERFX_API std::string format_event_list_text(
    std::span<const EventListing> events, const EventListTextOptions& options = {});

/// A JSON array with one object per event: name, aliases, kind, kind_label, syntax, type,
/// config (hex string or null), description, supported, probed, status (docs/events.md).
[[nodiscard]] PERFX_API std::string format_event_list_json(std::span<const EventListing> events);

// ------------------------------------------------------------------ describing

/// A perf `-vv` style dump of every non-zero field of `attr`, one per line:
/// "perf_event_attr:\n  type                             1 (software)\n  size  136\n
///   config                           0x1 (task-clock)\n  sample_type  IP|TID|TIME\n..."
[[nodiscard]] PERFX_API std::string describe_attr(const raw::EventAttr& attr);

/// Whether hardware breakpoints fire on this machine (runs a one-time self-test: a
/// write breakpoint on a variable of its own). Some hypervisors accept breakpoint
/// events but never deliver the trap; CounterSet then marks breakpoint counts
/// Trust::kCannotFire.
enum class BreakpointSupport : std::uint8_t {
  kFires,        ///< the test store was counted
  kNeverFires,   ///< opens but counts nothing here
  kUnavailable,  ///< cannot be opened (permissions, no debug register)
};
/// The self-test's answer (cached per process; thread-safe).
[[nodiscard]] PERFX_API BreakpointSupport breakpoints_fire();
/// Why breakpoints do not work here, or empty when they do.
[[nodiscard]] PERFX_API std::string breakpoint_support_reason(BreakpointSupport support);
/// One line per breakpoint event of `counts` that counted 0 while breakpoints never fire
/// here ("<event>: <reason>: its count is 0 whatever the program does"), so a 0 does not
/// pass for an untouched address; empty otherwise. The self-test runs only when such an
/// event exists.
[[nodiscard]] PERFX_API std::vector<std::string> silent_breakpoint_notes(
    const CounterSnapshot& counts);

}  // namespace perfx
