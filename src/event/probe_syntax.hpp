#pragma once
/// \file
/// perf probe's syntax, pure: the PROBEDEF a user writes (`[[G:]E=]FUNC[+OFF|%return]
/// [ARG...]`, `[[G:]E=]SRC:LINE [ARG...]`, kernel `FUNC`), perf's default group and
/// event names, and the tracefs definition lines (perfx/probe.hpp's ProbeDefinition
/// formats and parses them here).

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "perfx/error.hpp"

namespace perfx::event {

/// A parsed PROBEDEF, before any lookup in a binary.
struct ProbePoint {
  std::string group;              ///< "G" of `G:E=...`; empty = default
  std::string event;              ///< "E" of `E=...`; empty = default
  std::string function;           ///< FUNC; empty for SRC:LINE
  std::uint64_t offset = 0;       ///< +OFF (decimal or 0x hex)
  bool retprobe = false;          ///< %return
  std::string source;             ///< SRC of SRC:LINE
  std::uint32_t line = 0;         ///< LINE of SRC:LINE (> 0 when `source` is set)
  std::vector<std::string> args;  ///< the ARG words, as written
};

/// Parses perf probe's PROBEDEF (words separated by blanks; the first is the place).
/// kInvalidArgument naming the bad part.
[[nodiscard]] Result<ProbePoint> parse_probe_point(std::string_view spec);

/// perf's default group for a uprobe in `binary`: "probe_" + its file name up to the
/// first '.', other characters than [A-Za-z0-9_] made '_' ("/usr/lib/libc.so.6" ->
/// "probe_libc").
[[nodiscard]] std::string default_probe_group(std::string_view binary);

/// A valid tracefs event name made of `name`: [A-Za-z0-9_], not starting with a digit.
[[nodiscard]] std::string probe_event_name(std::string_view name);

/// perf's default event name of a point: FUNC, FUNC__return for %return; for SRC:LINE
/// the function the line is in (`function`, found by the lookup).
[[nodiscard]] std::string default_probe_event(const ProbePoint& point, std::string_view function);

/// Whether `word` is a raw fetch argument the kernel takes as is (`%reg`, `$retval`,
/// `$stackN`, `$argN`, `$comm`, `@addr`, `+N(...)`, `-N(...)`), with an optional `name=`
/// and `:type`.
[[nodiscard]] bool is_raw_fetch_arg(std::string_view word);

/// A glob match (fnmatch without flags) of `name` ("group:event") against `pattern`; a
/// pattern without ':' matches the event part in any group.
[[nodiscard]] bool probe_name_matches(std::string_view pattern, std::string_view group,
                                      std::string_view event);

}  // namespace perfx::event
