#pragma once
/// \file
/// Dynamic probes, as `perf probe` manages them: uprobes in a user binary (by function,
/// function+offset, function%return or source FILE:LINE through DWARF, with fetch
/// arguments) and kprobes in the kernel, defined through tracefs' `uprobe_events` and
/// `kprobe_events`. A defined probe is a tracepoint like any other: `probe_prog:func`
/// then works with parse_events(), `perfx stat -e`, `perfx record -e`.
///
/// \code
///   perfx::ProbeRequest req{"/usr/bin/prog", "work"};            // perf probe -x prog work
///   auto def = perfx::add_probe(req);                          // probe_prog:work
///   auto ev = perfx::parse_event(def->name());                 // count it
///   perfx::delete_probes(def->name());                         // perf probe -d
/// \endcode
///
/// Defining probes needs root (tracefs is root-only by default). Kprobes need a kernel
/// with CONFIG_KPROBE_EVENTS (`kprobe_events` in tracefs); this is the kernel's choice,
/// reported as kNotSupported. Uprobes for the perf_event_open PMU without tracefs are
/// uprobe_event() in perfx/events.hpp.

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "perfx/error.hpp"
#include "perfx/events.hpp"

namespace perfx {

/// Where a probe fires.
enum class ProbeType : std::uint8_t {
  kUprobe,  ///< user space: a file and an offset in it (`uprobe_events`)
  kKprobe,  ///< kernel: a symbol and an offset (`kprobe_events`)
};

/// What to probe, in perf probe's words.
struct PERFX_API ProbeRequest {
  /// `-x`: the executable or library for a uprobe; empty: a kprobe in the kernel.
  std::string binary;
  /// perf probe's PROBEDEF: `[[GROUP:]EVENT=]FUNC[+OFFS|%return] [ARG ...]` or
  /// `[[GROUP:]EVENT=]SRC:LINE [ARG ...]`. An ARG is a parameter or variable name
  /// resolved through DWARF (`x`, `name=x`), or a raw fetch argument written as the
  /// kernel takes it (`%di`, `$retval`, `+8(%sp):u32`, `cnt=%si:s32`).
  std::string spec;
  /// Group of the new event; empty: perf's (`probe_<binary name up to its first '.'>`,
  /// `probe` for kprobes).
  std::string group;
  /// perf probe -f: when the event name is taken, use the first free `<name>_<N>`
  /// instead of failing.
  bool force = false;
};

/// One probe as tracefs defines it: a line of `uprobe_events` / `kprobe_events`.
struct PERFX_API ProbeDefinition {
  ProbeType type = ProbeType::kUprobe;
  bool retprobe = false;  ///< fires on return (`r:` definitions)
  std::string group;      ///< "probe_prog"
  std::string event;      ///< "work"
  /// uprobe: the file's path; kprobe: the kernel symbol (empty for a probe by address).
  std::string target;
  std::uint64_t offset = 0;  ///< uprobe: file offset; kprobe: offset from the symbol
  /// Fetch arguments, as tracefs takes them ("x=%di:s32", "arg1=$retval").
  std::vector<std::string> args;
  /// Where the user asked for it, for messages: "work", "work+16", "prog.c:12",
  /// "work%return"; empty for probes read back from tracefs.
  std::string place;

  /// "group:event": the tracepoint name that parse_events() and `-e` accept.
  [[nodiscard]] std::string name() const;
  /// The definition line written to tracefs ("p:probe_prog/work /usr/bin/prog:0x1139
  /// x=%di:s32").
  [[nodiscard]] std::string definition() const;
  /// Whether "group:event" matches the glob `pattern` (`*`, `?`, `[..]`); a pattern
  /// without ':' is matched against the event name alone, as perf probe -d/-l do.
  [[nodiscard]] bool matches(std::string_view pattern) const;
};

/// Resolves `request` to a definition without touching the kernel: the binary's ELF
/// symbols (function, +offset) or its DWARF line table (SRC:LINE) give the file offset,
/// DWARF locations the arguments. Errors: kInvalidArgument for bad syntax, kNotFound for
/// a missing file, function, source line or variable (the message names it),
/// kNotSupported for an argument DWARF places where a probe cannot read it.
[[nodiscard]] PERFX_API Result<ProbeDefinition> resolve_probe(const ProbeRequest& request);

/// Defines `request` in tracefs (`<tracefs>/uprobe_events` or `kprobe_events`) and
/// returns the definition made (its event name may carry perf's `_N` suffix with
/// `force`). Errors: those of resolve_probe(); kInvalidArgument naming the event and
/// `-d`/`-f` when the name is taken;
/// kNotSupported when the kernel has no such probe file (kprobes: CONFIG_KPROBE_EVENTS);
/// kPermission; the kernel's own reason from `error_log` when it refuses the line.
[[nodiscard]] PERFX_API Result<ProbeDefinition> add_probe(const ProbeRequest& request,
                                                          const SystemPaths& paths = {});

/// Every probe defined in tracefs, uprobes first, in definition order. A missing
/// `kprobe_events` (no kprobes in this kernel) gives only the uprobes.
[[nodiscard]] PERFX_API Result<std::vector<ProbeDefinition>> list_probes(
    const SystemPaths& paths = {});

/// Deletes every probe whose "group:event" matches `pattern` (a glob: `*`, `?`, `[..]`;
/// a pattern without ':' matches the event name in any group, as perf probe -d) and
/// returns their names. kNotFound when nothing matches.
[[nodiscard]] PERFX_API Result<std::vector<std::string>> delete_probes(
    std::string_view pattern, const SystemPaths& paths = {});

/// The parsed text of one definition line of `uprobe_events`/`kprobe_events` (`p:`/`r:`
/// lines; the `type` is taken from `file_type`). kMalformedData for another line.
[[nodiscard]] PERFX_API Result<ProbeDefinition> parse_probe_definition(std::string_view line,
                                                                       ProbeType file_type);

}  // namespace perfx
