#pragma once
/// \file
/// perf's event syntax -> EventGroup list.
///
/// Grammar (perf-list(1)); items are separated by commas, braces make groups:
///   list     := item (',' item)*
///   item     := event | '{' event (',' event)* '}' [':' modifiers]
///   event    := hardware/software/cache name      cycles, cs, L1-dcache-load-misses
///             | 'r' HEX                            r1a8
///             | pmu '/' [term (',' term)*] '/'     msr/tsc/, software/config=1,period=9/
///             | subsys ':' name                    sched:sched_switch (globs expand)
///             | 'mem:' ADDR ['/' LEN] [':' rwx]    mem:0x601040/8:w
///             | ('uprobe'|'uretprobe') ':' PATH ':' (SYMBOL['+'OFF] | OFFSET)
///             | a bare alias of some PMU's events/ (tsc)
///   event    [':' modifiers]                       page-faults:u, r1a8:pp
///   modifiers := [ukhHGIpPSDWe]+                   (`p` up to 3 times)
///   term     := name ['=' value] where name is a format field, an events/ alias,
///               config|config1|config2|config3, period, freq or name.

#include <string_view>
#include <vector>

#include "event/event_spec.hpp"
#include "event/resolver.hpp"
#include "perfx/error.hpp"

namespace perfx::event {

/// Parses a full `-e` value ("a,b,{c,d}:u"). Multiple -e options are joined with ','
/// by the caller. Every item resolves through `resolver` (PMUs, tracepoints, uprobes).
///
/// Errors: kInvalidArgument for bad syntax, kNotFound for an unknown event, PMU, term,
/// tracepoint or symbol. The message names the offending token and its 1-based column
/// in `spec`: "event syntax error at column 5: 'no_such_event' is not a known event
/// (see 'perfx list')".
Result<std::vector<EventGroup>> parse_event_list(std::string_view spec, const Resolver& resolver);

/// Parses one event (no commas, no braces), e.g. "page-faults:u".
Result<EventSpec> parse_event(std::string_view spec, const Resolver& resolver);

}  // namespace perfx::event
