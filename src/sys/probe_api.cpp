// perfx/probe.hpp: dynamic probes through tracefs' uprobe_events / kprobe_events (the
// only kernel access), with the pure syntax in event/probe_syntax and the ELF/DWARF
// lookups in symbol/.

#include <fcntl.h>
#include <limits.h>
#include <stdlib.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>

#include "core/error_format.hpp"
#include "event/probe_syntax.hpp"
#include "perfx/probe.hpp"
#include "symbol/elf_symbol_offset.hpp"
#include "symbol/probe_lookup.hpp"
#include "sys/pmu_sysfs.hpp"
#include "sys/tracefs.hpp"
#include "sys/unique_fd.hpp"

namespace perfx {
namespace {

// Fails with "<prefix>'<arg>': <why>" at the first of `args` that is not a raw fetch
// argument (a register, $argN, $retval, +8(%sp):u32), which needs no DWARF to place.
Result<void> require_fetch_args(const std::vector<std::string>& args, Errc code,
                                std::string_view prefix, std::string_view why) {
  for (const auto& a : args) {
    if (!event::is_raw_fetch_arg(a)) return fail(code, "{}'{}': {}", prefix, a, why);
  }
  return {};
}

const char* probe_file(ProbeType t) {
  return t == ProbeType::kUprobe ? "uprobe_events" : "kprobe_events";
}

Result<std::string> tracefs_root(const SystemPaths& paths) {
  if (!paths.tracefs.empty()) return paths.tracefs;
  return sys::find_tracefs(paths.mounts);
}

std::string no_probe_file_reason(ProbeType t, const std::string& root) {
  return t == ProbeType::kKprobe
             ? fmt::format(
                   "this kernel has no kprobes: {}/kprobe_events is missing "
                   "(CONFIG_KPROBES / CONFIG_KPROBE_EVENTS unset)",
                   root)
             : fmt::format(
                   "this kernel has no uprobe events: {}/uprobe_events is missing "
                   "(CONFIG_UPROBE_EVENTS unset)",
                   root);
}

/// The last line of tracefs' error_log: the kernel's reason for refusing a definition.
std::string kernel_reason(const std::string& root) {
  auto log = sys::read_text_file(root + "/error_log");
  if (!log || log->empty()) return {};
  std::string_view s = *log;
  // Entries are "[time] trace_kprobe: error: <reason>\n  Command: ...\n    ^": keep the
  // last "error:" line.
  const auto pos = s.rfind("error: ");
  if (pos == std::string_view::npos) return {};
  s.remove_prefix(pos + 7);
  return std::string(s.substr(0, s.find('\n')));
}

Result<void> write_line(const std::string& root, ProbeType type, const std::string& line) {
  const std::string path = root + "/" + probe_file(type);
  sys::UniqueFd fd(::open(path.c_str(), O_WRONLY | O_APPEND | O_CLOEXEC | O_NOFOLLOW));
  if (!fd) {
    if (errno == ENOENT) return fail(Errc::kNotSupported, "{}", no_probe_file_reason(type, root));
    return fail_errno(errno, "opening " + path);
  }
  const std::string text = line + "\n";
  const ssize_t n = ::write(fd.get(), text.data(), text.size());
  if (n == static_cast<ssize_t>(text.size())) return {};
  const int err = n < 0 ? errno : EIO;
  std::string why = kernel_reason(root);
  if (err == EBUSY) why = "it is in use (a perf session has it open)";
  if (err == EEXIST) why = "an event of that name exists";
  if (why.empty()) why = std::strerror(err);
  return fail(err == EACCES || err == EPERM ? Errc::kPermission : Errc::kInvalidArgument,
              "the kernel refused '{}' in {}: {}", line, path, why);
}

Result<std::vector<ProbeDefinition>> read_probes(const std::string& root, ProbeType type) {
  std::vector<ProbeDefinition> out;
  auto text = sys::read_text_file(root + "/" + probe_file(type));
  if (!text) {
    if (text.error().code() == Errc::kNotFound) return out;
    return tl::unexpected(std::move(text).error());
  }
  std::string_view rest = *text;
  while (!rest.empty()) {
    const auto nl = rest.find('\n');
    const std::string_view line = rest.substr(0, nl);
    rest = nl == std::string_view::npos ? std::string_view{} : rest.substr(nl + 1);
    if (line.empty()) continue;
    if (auto d = parse_probe_definition(line, type)) out.push_back(std::move(*d));
  }
  return out;
}

Result<ProbeDefinition> resolve_kprobe(const event::ProbePoint& pt) {
  if (!pt.source.empty()) {
    return fail(Errc::kNotSupported,
                "'{}:{}': kernel probes by source line need the kernel's DWARF (vmlinux), "
                "which perfx does not read; use FUNC[+OFFS]",
                pt.source, pt.line);
  }
  ProbeDefinition d;
  d.type = ProbeType::kKprobe;
  d.retprobe = pt.retprobe;
  d.target = pt.function;
  d.offset = pt.offset;
  PERFX_CHECK(require_fetch_args(pt.args, Errc::kNotSupported, "kernel probe argument ",
                                 "variables need the kernel's DWARF; write a fetch argument "
                                 "(%di, $arg1, $retval, +8(%sp):u32)"));
  d.args = pt.args;
  d.group = pt.group.empty() ? "probe" : pt.group;
  d.event = pt.event.empty() ? event::default_probe_event(pt, {}) : pt.event;
  return d;
}

}  // namespace

Result<ProbeDefinition> resolve_probe(const ProbeRequest& request) {
  PERFX_TRY(pt, event::parse_probe_point(request.spec));
  ProbeDefinition d;
  if (request.binary.empty()) {
    PERFX_TRY(k, resolve_kprobe(pt));
    d = std::move(k);
  } else {
    char real[PATH_MAX];
    if (::realpath(request.binary.c_str(), real) == nullptr) {
      return fail_errno(errno, "probe target '" + request.binary + "'");
    }
    d.type = ProbeType::kUprobe;
    d.retprobe = pt.retprobe;
    d.target = real;
    std::string function = pt.function;
    std::uint64_t site = 0;  // virtual address when known (lines), else 0 = function entry
    if (!pt.source.empty()) {
      PERFX_TRY(s, symbol::dwarf_line_site(d.target, pt.source, pt.line));
      function = s.function;
      site = s.address;
      PERFX_TRY(off, symbol::elf_address_file_offset(d.target, site));
      d.offset = off;
    } else {
      PERFX_TRY(off, symbol::elf_symbol_file_offset(d.target, pt.function));
      d.offset = off + pt.offset;
    }
    if (!pt.args.empty()) {
      if (pt.retprobe) {
        PERFX_CHECK(require_fetch_args(pt.args, Errc::kInvalidArgument, "",
                                       "a return probe sees no variables; use $retval"));
        d.args = pt.args;
      } else {
        if (function.empty()) {
          return fail(Errc::kNotFound, "{}:{} is in no function DWARF names", pt.source, pt.line);
        }
        if (pt.offset != 0) {
          PERFX_CHECK(require_fetch_args(
              pt.args, Errc::kNotSupported, "",
              "variables are found at a function's entry or a source line, not at FUNC+OFFS; "
              "write a fetch argument (%di, +8(%sp):u32)"));
        }
        const std::uint64_t before = site;
        PERFX_TRY(args, symbol::dwarf_fetch_args(d.target, function, pt.args, site));
        d.args = std::move(args);
        if (site != before) {
          PERFX_TRY(off, symbol::elf_address_file_offset(d.target, site));
          d.offset = off;
        }
      }
    }
    d.group = pt.group.empty() ? event::default_probe_group(d.target) : pt.group;
    d.event = pt.event.empty() ? event::default_probe_event(pt, function) : pt.event;
    if (d.event == "_")
      return fail(Errc::kNotFound, "no function around {}:{}", pt.source, pt.line);
  }
  if (!request.group.empty()) d.group = request.group;
  d.place = request.spec.substr(0, request.spec.find_first_of(" \t"));
  return d;
}

Result<ProbeDefinition> add_probe(const ProbeRequest& request, const SystemPaths& paths) {
  PERFX_TRY(d, resolve_probe(request));
  PERFX_TRY(root, tracefs_root(paths));
  PERFX_TRY(existing, list_probes(paths));
  auto taken = [&](const std::string& ev) {
    for (const auto& e : existing)
      if (e.group == d.group && e.event == ev) return true;
    return false;
  };
  if (taken(d.event)) {
    if (!request.force) {
      return fail(Errc::kInvalidArgument,
                  "event \"{}\" already exists; remove it with 'perfx probe -d {}' or add a "
                  "duplicate with -f",
                  d.name(), d.name());
    }
    for (int i = 1;; ++i) {
      std::string ev = fmt::format("{}_{}", d.event, i);
      if (!taken(ev)) {
        d.event = std::move(ev);
        break;
      }
    }
  }
  PERFX_CHECK(write_line(root, d.type, d.definition()));
  return d;
}

Result<std::vector<ProbeDefinition>> list_probes(const SystemPaths& paths) {
  PERFX_TRY(root, tracefs_root(paths));
  PERFX_TRY(out, read_probes(root, ProbeType::kUprobe));
  PERFX_TRY(k, read_probes(root, ProbeType::kKprobe));
  for (auto& d : k) out.push_back(std::move(d));
  return out;
}

Result<std::vector<std::string>> delete_probes(std::string_view pattern, const SystemPaths& paths) {
  if (pattern.empty()) return fail(Errc::kInvalidArgument, "empty probe name to delete");
  PERFX_TRY(root, tracefs_root(paths));
  PERFX_TRY(all, list_probes(paths));
  std::vector<std::string> done;
  for (const auto& d : all) {
    if (!event::probe_name_matches(pattern, d.group, d.event)) continue;
    const std::string name = d.name();
    bool seen = false;  // several definitions may share one event: delete it once
    for (const auto& n : done) seen = seen || n == name;
    if (seen) continue;
    PERFX_CHECK(write_line(root, d.type, fmt::format("-:{}/{}", d.group, d.event)));
    done.push_back(name);
  }
  if (done.empty())
    return fail(Errc::kNotFound, "no probe matches '{}' (see 'perfx probe -l')", pattern);
  return done;
}

}  // namespace perfx
