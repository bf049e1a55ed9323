// One perf-trace line per event (perfx/trace.hpp): time, duration, comm/tid, the
// syscall with its decoded arguments, and the return value aligned like perf trace.

#include <fcntl.h>
#include <fmt/format.h>
#include <sys/mman.h>

#include <string>

#include "perfx/trace.hpp"

namespace perfx {
namespace {

bool shows_zero(const SyscallArg& arg) {
  const std::string_view n = arg.name;
  return n == "fd" || n == "oldfd" || n == "newfd" || n == "in_fd" || n == "out_fd" ||
         n == "fd_in" || n == "fd_out" || n == "epfd" || n == "dfd";
}

// perf trace's masking: arguments that mean nothing for this call.
bool hidden(const TraceEvent& ev, const std::vector<SyscallArg>& args, std::size_t i) {
  const SyscallArg& arg = args[i];
  const std::uint64_t v = ev.args[i];
  if (v == 0 && !shows_zero(arg) && !ev.strings[i]) return true;
  auto value_of = [&](std::string_view name) -> std::optional<std::uint64_t> {
    for (std::size_t k = 0; k < args.size() && k < ev.args.size(); ++k)
      if (args[k].name == name) return ev.args[k];
    return std::nullopt;
  };
  if (arg.name == "mode" && (ev.name == "open" || ev.name == "openat")) {
    const auto flags = value_of("flags");
    return !flags || (*flags & (O_CREAT | O_TMPFILE)) == 0;
  }
  if (arg.name == "fd" && ev.name == "mmap") {
    const auto flags = value_of("flags");
    return flags && (*flags & MAP_ANONYMOUS) != 0;
  }
  return false;
}

std::string syscall_text(const TraceEvent& ev, const TraceFormatOptions& opt) {
  std::string out = ev.name + "(";
  const std::vector<SyscallArg>* args = opt.catalog ? opt.catalog->args(ev.name) : nullptr;
  bool first = true;
  if (args != nullptr) {
    for (std::size_t i = 0; i < args->size() && i < ev.args.size(); ++i) {
      if (hidden(ev, *args, i)) continue;
      out += first ? "" : ", ";
      first = false;
      out += (*args)[i].name + ": " +
             format_syscall_arg(ev.name, (*args)[i], ev.args[i], ev.strings[i]);
    }
  } else {
    for (std::size_t i = 0; i < ev.args.size(); ++i) {
      if (ev.args[i] == 0) continue;
      out += fmt::format("{}arg{}: {:#x}", first ? "" : ", ", i, ev.args[i]);
      first = false;
    }
  }
  out += ")";
  return out;
}

}  // namespace

bool TracePrintFilter::passes(const TraceEvent& ev) const noexcept {
  if (ev.kind != TraceEventKind::kSyscall) return min_duration_ns == 0 && !failure_only;
  if (failure_only && !(ev.exited && ev.ret < 0 && ev.ret >= -4095)) return false;
  if (min_duration_ns > 0) {
    const auto d = ev.duration();
    return d && *d > min_duration_ns;
  }
  return true;
}

std::string format_trace_event(const TraceEvent& ev, const TraceFormatOptions& opt) {
  const double ts =
      static_cast<double>(ev.time >= opt.base_time ? ev.time - opt.base_time : 0) / 1e6;
  std::string out = fmt::format("{:10.3f} ", ts);
  if (ev.kind == TraceEventKind::kSyscall) {
    const auto d = ev.duration();
    out += d ? fmt::format("({:6.3f} ms): ", static_cast<double>(*d) / 1e6)
             : std::string("(         ): ");
  } else if (ev.kind == TraceEventKind::kPageFault) {
    out += "( 0.000 ms): ";
  } else {
    out += "(         ): ";
  }
  out += fmt::format("{}/{} ", ev.comm.empty() ? "?" : ev.comm, ev.tid);
  switch (ev.kind) {
    case TraceEventKind::kSyscall: {
      std::string call = syscall_text(ev, opt);
      if (!ev.entered) call = "... [continued]: " + call;
      const std::string ret = ev.exited ? format_syscall_return(ev.name, ev.ret) : "?";
      if (call.size() < opt.args_alignment) {
        out += fmt::format("{:<{}}= {}", call, opt.args_alignment, ret);
      } else {
        out += call + " = " + ret;
      }
      break;
    }
    case TraceEventKind::kPageFault: {
      out += ev.major ? "majfault [" : "minfault [";
      out += ev.ip_location.empty() ? fmt::format("{:#x}", ev.ip) : ev.ip_location;
      out += "] => ";
      out += ev.addr_location.empty() ? fmt::format("{:#x}", ev.addr) : ev.addr_location;
      out += fmt::format(" ({}.)", ev.addr_map_type);
      break;
    }
    case TraceEventKind::kTracepoint:
      out += ev.event + "(" + ev.fields + ")";
      break;
  }
  out += '\n';
  return out;
}

}  // namespace perfx
