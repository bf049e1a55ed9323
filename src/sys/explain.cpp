#include "sys/explain.hpp"

#include <linux/hw_breakpoint.h>
#include <linux/perf_event.h>

#include <time.h>

#include <cerrno>
#include <cstring>
#include <optional>

#include <fmt/format.h>

namespace perfx::sys {
namespace {

std::string paranoid_text(const SystemReadings& sys) {
  return sys.paranoid ? std::to_string(*sys.paranoid) : std::string("unknown");
}

bool is_hw_type(std::uint32_t type) {
  return type == PERF_TYPE_HARDWARE || type == PERF_TYPE_HW_CACHE || type == PERF_TYPE_RAW;
}

const char* type_name(std::uint32_t type) {
  switch (type) {
    case PERF_TYPE_HARDWARE:
      return "hardware";
    case PERF_TYPE_SOFTWARE:
      return "software";
    case PERF_TYPE_TRACEPOINT:
      return "tracepoint";
    case PERF_TYPE_HW_CACHE:
      return "hardware cache";
    case PERF_TYPE_RAW:
      return "raw";
    case PERF_TYPE_BREAKPOINT:
      return "breakpoint";
    default:
      return "dynamic PMU";
  }
}

bool cgroup_mode(const OpenRequest& req) { return (req.flags & PERF_FLAG_PID_CGROUP) != 0; }

/// What the request is, in the words of a perf user (for permission messages).
std::string target_words(const OpenRequest& req) {
  if (!req.target_hint.empty()) return req.target_hint;
  if (cgroup_mode(req)) return "cgroup counting (-G)";
  if (req.pid == -1) return "system-wide counting (-a)";
  if (req.pid > 0) return fmt::format("attaching to pid {} (-p)", req.pid);
  return "this event";
}

std::string explain_permission(int err, const OpenRequest& req, const SystemReadings& sys) {
  const std::string level = paranoid_text(sys);
  const int paranoid = sys.paranoid.value_or(2);
  std::string msg;
  if (sys.caps.can_perfmon()) {
    msg = fmt::format(
        "permission denied although this process has CAP_PERFMON/CAP_SYS_ADMIN "
        "(perf_event_paranoid is {}); a security module (SELinux, AppArmor, lockdown) or a "
        "container seccomp policy probably forbids perf_event_open",
        level);
  } else if (cgroup_mode(req) || req.pid == -1) {
    msg = fmt::format(
        "{} needs perf_event_paranoid <= 0 (it is {}) or CAP_PERFMON; as root run: "
        "sysctl -w kernel.perf_event_paranoid=0",
        target_words(req), level);
  } else if (paranoid >= 3) {
    msg = fmt::format(
        "perf_event_paranoid is {}: unprivileged use of perf_event_open is disabled; it needs "
        "perf_event_paranoid <= 2 or CAP_PERFMON; as root run: sysctl -w "
        "kernel.perf_event_paranoid=2",
        level);
  } else if (req.attr.exclude_kernel == 0 && paranoid >= 2) {
    msg = fmt::format(
        "counting kernel-mode events needs perf_event_paranoid <= 1 (it is {}) or CAP_PERFMON; "
        "add ':u' to the event to count user space only, or as root run: sysctl -w "
        "kernel.perf_event_paranoid=1",
        level);
  } else if (req.attr.type == PERF_TYPE_TRACEPOINT &&
             (req.attr.sample_type & PERF_SAMPLE_RAW) != 0 && paranoid > -1) {
    msg = fmt::format(
        "raw tracepoint data (PERF_SAMPLE_RAW) needs perf_event_paranoid = -1 (it is {}) or "
        "CAP_PERFMON; as root run: sysctl -w kernel.perf_event_paranoid=-1",
        level);
  } else if (req.pid > 0) {
    msg = fmt::format(
        "{} needs permission to ptrace that process (same user, and "
        "kernel.yama.ptrace_scope allowing it) or CAP_PERFMON/CAP_SYS_PTRACE "
        "(perf_event_paranoid is {})",
        target_words(req), level);
  } else if (req.attr.type == PERF_TYPE_BREAKPOINT) {
    msg = fmt::format(
        "a breakpoint on a kernel address, or without ':u', needs perf_event_paranoid <= 1 "
        "(it is {}) or CAP_PERFMON",
        level);
  } else {
    msg = fmt::format(
        "{} needs more privilege than perf_event_paranoid {} allows: try the ':u' modifier, "
        "run with CAP_PERFMON, or as root run: sysctl -w kernel.perf_event_paranoid=-1",
        target_words(req), level);
  }
  if (err == EPERM && !sys.caps.can_perfmon()) {
    msg +=
        " (EPERM can also mean this PMU does not support the requested exclude_user/"
        "exclude_kernel/exclude_hv/exclude_idle setting)";
  }
  return msg;
}

std::string explain_einval(const OpenRequest& req, const SystemReadings& sys) {
  const auto& a = req.attr;
  if (req.pid == -1 && req.cpu == -1 && !cgroup_mode(req)) {
    return "pid -1 with cpu -1 is invalid: system-wide counting needs one event per CPU";
  }
  if (cgroup_mode(req) && req.cpu < 0) {
    return "cgroup mode (PERF_FLAG_PID_CGROUP) needs a CPU number, not -1: open one event "
           "per CPU";
  }
  if (req.cpu < -1 || (sys.configured_cpus > 0 && req.cpu >= sys.configured_cpus)) {
    return fmt::format("cpu {} does not exist (this machine has {} CPUs, 0-{})", req.cpu,
                       sys.configured_cpus, sys.configured_cpus - 1);
  }
  if (a.freq != 0 && sys.max_sample_rate &&
      a.sample_freq > static_cast<std::uint64_t>(*sys.max_sample_rate)) {
    return fmt::format(
        "attr.sample_freq {} is above perf_event_max_sample_rate {}: lower the frequency "
        "(-F) or as root run: sysctl -w kernel.perf_event_max_sample_rate={}",
        a.sample_freq, *sys.max_sample_rate, a.sample_freq);
  }
  if (auto field = attr_field_error(req)) return *field;
  if (a.type >= PERF_TYPE_MAX && req.auto_user_only) {
    return std::string(
        "this PMU does not support privilege filtering (attr.exclude_kernel/exclude_hv, e.g. "
        "the msr PMU), so it counts kernel mode too: that needs perf_event_paranoid <= 1 or "
        "CAP_PERFMON");
  }
  if (a.type >= PERF_TYPE_MAX &&
      (a.exclude_kernel != 0 || a.exclude_user != 0 || a.exclude_hv != 0)) {
    return "this PMU does not support privilege filtering (attr.exclude_kernel/exclude_user/"
           "exclude_hv, e.g. the msr PMU): drop the ':u'/':k' modifier";
  }
  if (a.type >= PERF_TYPE_MAX && a.sample_period != 0) {
    return "this PMU may not support sampling (e.g. the msr PMU counts only): count the "
           "event instead, or check attr.config against the PMU's format/";
  }
  if (a.precise_ip != 0 && is_hw_type(a.type)) {
    return fmt::format(
        "attr.precise_ip {} (':p' modifiers) is too high for this PMU: use fewer "
        "'p'",
        a.precise_ip);
  }
  if (a.use_clockid != 0) {
    return fmt::format(
        "attr.clockid {} may be unsupported (use MONOTONIC, MONOTONIC_RAW, "
        "REALTIME, BOOTTIME or TAI)",
        a.clockid);
  }
  if (a.type == PERF_TYPE_TRACEPOINT) {
    return fmt::format("tracepoint id {} (attr.config) is not valid", a.config);
  }
  return fmt::format(
      "the kernel rejected the event attributes ({} event, type={} config={:#x}); a field is "
      "out of range or unsupported by this PMU: check the modifiers, period and read_format",
      type_name(a.type), a.type, a.config);
}

std::string explain_enoent(const OpenRequest& req) {
  const auto& a = req.attr;
  if (cgroup_mode(req)) {
    return "the cgroup is not a cgroup2 (unified hierarchy) directory";
  }
  if (is_hw_type(a.type)) {
    return fmt::format(
        "this machine has no PMU for this {} event (common in virtual machines without a "
        "virtual PMU); software events such as task-clock still work",
        type_name(a.type));
  }
  if (a.type == PERF_TYPE_SOFTWARE) {
    return fmt::format("software event config {} is not known to this kernel", a.config);
  }
  if (a.type == PERF_TYPE_TRACEPOINT) {
    return fmt::format("no tracepoint with id {}", a.config);
  }
  if (a.type >= PERF_TYPE_MAX) {
    return fmt::format(
        "no PMU with type {} or the event (config={:#x}) does not exist on it (a uprobe's file "
        "may be missing); see /sys/bus/event_source/devices/*/type",
        a.type, a.config);
  }
  return fmt::format("attr.type {} is not supported by this kernel", a.type);
}

std::string explain_eopnotsupp(const OpenRequest& req) {
  const auto& a = req.attr;
  if (a.branch_sample_type != 0 || (a.sample_type & PERF_SAMPLE_BRANCH_STACK) != 0) {
    return "branch stack sampling (PERF_SAMPLE_BRANCH_STACK, -b/-j) is not supported by this "
           "PMU";
  }
  if (a.precise_ip != 0) {
    return fmt::format("attr.precise_ip {} (':p') needs a PMU with precise sampling (PEBS/IBS)",
                       a.precise_ip);
  }
  if (a.aux_output != 0 || a.aux_watermark != 0 || a.aux_sample_size != 0) {
    return "AUX area features (aux_output, aux_sample_size) need an AUX-capable PMU such as "
           "intel_pt";
  }
  if ((a.sample_type & (PERF_SAMPLE_REGS_USER | PERF_SAMPLE_REGS_INTR)) != 0) {
    return "a requested register (attr.sample_regs_user/sample_regs_intr, e.g. XMM) is not "
           "supported here";
  }
  if (a.sample_period != 0) {
    return "this PMU cannot sample (no overflow interrupt): count the event instead";
  }
  return fmt::format("the {} PMU does not support a requested feature", type_name(a.type));
}

}  // namespace

std::optional<std::string> attr_field_error(const OpenRequest& req) {
  const auto& a = req.attr;
  if (a.freq == 0 && (a.sample_period >> 63) != 0) {
    return fmt::format("attr.sample_period {} is too large (bit 63 must be clear)",
                       a.sample_period);
  }
  if (req.group_fd >= 0 && (a.pinned != 0 || a.exclusive != 0)) {
    return std::string("attr.pinned/attr.exclusive are only allowed on a group leader");
  }
  if (a.inherit != 0 && (a.sample_type & PERF_SAMPLE_READ) != 0) {
    return std::string("attr.inherit cannot be combined with PERF_SAMPLE_READ in attr.sample_type");
  }
  if (a.inherit_thread != 0 && a.inherit == 0) {
    return std::string("attr.inherit_thread needs attr.inherit");
  }
  if (a.sigtrap != 0 && a.remove_on_exec == 0) {
    return std::string("attr.sigtrap needs attr.remove_on_exec");
  }
  if (a.type == PERF_TYPE_BREAKPOINT) {
    const auto len = a.bp_len;
    if (a.bp_type == HW_BREAKPOINT_X) {
      if (len != sizeof(long)) {
        return fmt::format("attr.bp_len {} is invalid for an execute breakpoint: it must be {}",
                           len, sizeof(long));
      }
    } else if (a.bp_type == HW_BREAKPOINT_R || a.bp_type == HW_BREAKPOINT_EMPTY ||
               (a.bp_type & HW_BREAKPOINT_X) != 0) {
      return fmt::format(
          "attr.bp_type {} is not supported: use w (write) or rw (read/write) for data, x "
          "alone for code",
          a.bp_type);
    }
    if (len != 1 && len != 2 && len != 4 && len != 8) {
      return fmt::format("attr.bp_len {} is invalid: it must be 1, 2, 4 or 8", len);
    }
    if (len != 0 && a.bp_addr % len != 0) {
      return fmt::format("attr.bp_addr {:#x} is not aligned to attr.bp_len {}", a.bp_addr, len);
    }
  }
  if ((a.sample_type & PERF_SAMPLE_STACK_USER) != 0 &&
      (a.sample_stack_user % 8 != 0 || a.sample_stack_user > 65528)) {
    return fmt::format(
        "attr.sample_stack_user {} is invalid: it must be a multiple of 8 and at most 65528",
        a.sample_stack_user);
  }
  if (a.precise_ip > 3) {
    return fmt::format("attr.precise_ip {} is out of range (0-3)", a.precise_ip);
  }
  if (a.use_clockid != 0) {
    switch (a.clockid) {
      case CLOCK_MONOTONIC:
      case CLOCK_MONOTONIC_RAW:
      case CLOCK_REALTIME:
      case CLOCK_BOOTTIME:
      case CLOCK_TAI:
        break;
      default:
        return fmt::format(
            "attr.clockid {} is not a clock perf events accept (use_clockid takes "
            "CLOCK_MONOTONIC, CLOCK_MONOTONIC_RAW, CLOCK_REALTIME, CLOCK_BOOTTIME or "
            "CLOCK_TAI)",
            a.clockid);
    }
  }
  // read_format bits past PERF_FORMAT_LOST (1 << 4) are unknown to every kernel.
  if ((a.read_format >> 5) != 0) {
    return fmt::format("attr.read_format {:#x} has bits no kernel knows (past PERF_FORMAT_LOST)",
                       a.read_format);
  }
  return std::nullopt;
}

std::string errno_name(int err) {
  switch (err) {
#define PERFX_ERRNO(e) \
  case e:              \
    return #e;
    PERFX_ERRNO(EPERM)
    PERFX_ERRNO(ENOENT)
    PERFX_ERRNO(ESRCH)
    PERFX_ERRNO(EINTR)
    PERFX_ERRNO(EIO)
    PERFX_ERRNO(E2BIG)
    PERFX_ERRNO(EBADF)
    PERFX_ERRNO(ENOMEM)
    PERFX_ERRNO(EACCES)
    PERFX_ERRNO(EFAULT)
    PERFX_ERRNO(EBUSY)
    PERFX_ERRNO(EEXIST)
    PERFX_ERRNO(ENODEV)
    PERFX_ERRNO(EINVAL)
    PERFX_ERRNO(ENFILE)
    PERFX_ERRNO(EMFILE)
    PERFX_ERRNO(ENOTTY)
    PERFX_ERRNO(ENOSPC)
    PERFX_ERRNO(ENOSYS)
    PERFX_ERRNO(EOPNOTSUPP)
    PERFX_ERRNO(EOVERFLOW)
#undef PERFX_ERRNO
    default:
      return fmt::format("errno {}", err);
  }
}

std::string explain_open_errno(int err, const OpenRequest& req, const SystemReadings& sys) {
  const auto& a = req.attr;
  switch (err) {
    case EACCES:
    case EPERM:
      return explain_permission(err, req, sys);
    case ENOENT:
      return explain_enoent(req);
    case EMFILE: {
      const std::string soft =
          sys.nofile_soft ? std::to_string(*sys.nofile_soft) : std::string("unknown");
      const std::string hard =
          sys.nofile_hard ? std::to_string(*sys.nofile_hard) : std::string("unknown");
      // perfx already raised the soft limit to the hard one (raise_fd_limit): suggesting
      // 'ulimit -n' only helps when the hard limit is higher, or for root.
      const bool can_raise =
          sys.nofile_soft && sys.nofile_hard && *sys.nofile_hard > *sys.nofile_soft;
      return fmt::format(
          "too many open files: every event needs one file descriptor per CPU and thread, and "
          "the limit (RLIMIT_NOFILE) is {} (hard limit {}); {}count fewer events, CPUs or "
          "threads",
          soft, hard,
          can_raise ? fmt::format("raise it with 'ulimit -n {}' or ", hard)
                    : std::string("raise the hard limit (as root: 'ulimit -Hn N', or "
                                  "limits.conf) or "));
    }
    case ENFILE:
      return "the system-wide open file table is full (fs.file-max): close files or raise "
             "fs.file-max";
    case E2BIG:
      return fmt::format(
          "attr.size {} is not accepted by this kernel: a field it does not know (beyond the "
          "size it supports, e.g. config3 before Linux 6.3) is non-zero",
          a.size);
    case EINVAL:
      return explain_einval(req, sys);
    case ENOSPC:
      if (a.type == PERF_TYPE_BREAKPOINT) {
        return "no free hardware breakpoint slot: x86 has 4 debug registers and every "
               "breakpoint event on this task or CPU (even a disabled one) holds one; use "
               "fewer mem: events";
      }
      return "not enough room for the event on the PMU (no free counter)";
    case EOVERFLOW: {
      const std::string max =
          sys.max_stack ? std::to_string(*sys.max_stack) : std::string("unknown");
      return fmt::format(
          "attr.sample_max_stack {} is above perf_event_max_stack {}: ask for a shorter call "
          "chain or as root run: sysctl -w kernel.perf_event_max_stack={}",
          a.sample_max_stack, max, a.sample_max_stack);
    }
    case EBUSY:
      return "another event has exclusive access to the PMU (an 'exclusive' event, another "
             "profiler, or the NMI watchdog): stop it and retry";
    case ESRCH:
      return fmt::format("no process or thread with id {} (it may have exited)", req.pid);
    case EOPNOTSUPP:
      return explain_eopnotsupp(req);
    case ENODEV:
      return "the CPU lacks a feature this event needs";
    case ENOSYS:
      if ((a.sample_type & PERF_SAMPLE_STACK_USER) != 0) {
        return "user stack sampling (PERF_SAMPLE_STACK_USER) is not supported by this hardware";
      }
      return "perf_event_open is not available: the kernel was built without CONFIG_PERF_EVENTS";
    case EBADF:
      if (cgroup_mode(req)) {
        return fmt::format("the cgroup file descriptor {} is not an open cgroup directory",
                           req.pid);
      }
      return fmt::format("the group leader fd {} is not a valid perf event fd", req.group_fd);
    case EFAULT:
      return "the kernel could not read the attr (bad pointer; a uprobe path pointer in "
             "attr.config1?)";
    case EINTR:
      return "interrupted: mixing perf and ftrace handling of a uprobe; retry";
    default:
      return std::strerror(err);
  }
}

Error explain_open_error(int err, const OpenRequest& req, const SystemReadings& sys) {
  Errc code = errc_from_errno(err);
  if (err == ENOENT && (is_hw_type(req.attr.type) || req.attr.type == PERF_TYPE_SOFTWARE)) {
    code = Errc::kNotSupported;
  }
  std::string where;
  if (cgroup_mode(req)) {
    where = fmt::format(" (cgroup, cpu {})", req.cpu);
  } else if (req.pid == -1) {
    where = fmt::format(" (cpu {})", req.cpu);
  } else if (req.pid > 0) {
    where = req.cpu >= 0 ? fmt::format(" (pid {}, cpu {})", req.pid, req.cpu)
                         : fmt::format(" (pid {})", req.pid);
  } else if (req.cpu >= 0) {
    where = fmt::format(" (cpu {})", req.cpu);
  }
  const std::string name = req.event_name.empty()
                               ? fmt::format("type={} config={:#x}", req.attr.type, req.attr.config)
                               : req.event_name;
  std::string msg = fmt::format("opening event '{}'{}: {} ({})", name, where,
                                explain_open_errno(err, req, sys), errno_name(err));
  if (req.auto_user_only) {
    msg += fmt::format(
        "; the ':u' (user space only) was added by perfx after kernel-mode counting was "
        "refused (perf_event_paranoid is {})",
        paranoid_text(sys));
  }
  return Error(code, std::move(msg), err);
}

bool is_unsupported_event_errno(int err) noexcept {
  return err == EINVAL || err == ENOENT || err == ENOSYS || err == EOPNOTSUPP || err == ENXIO ||
         err == ENODEV;
}

}  // namespace perfx::sys

namespace perfx {

std::string explain_exec_errno(int err, std::string_view command) {
  switch (err) {
    case ENOENT:
      return fmt::format("command not found: {}", command);
    case EACCES:
      return fmt::format("permission denied: {} (not executable?)", command);
    case ENOEXEC:
      return fmt::format("cannot execute {}: exec format error", command);
    default:
      return fmt::format("cannot execute {}: {}", command, std::strerror(err));
  }
}

int exec_failure_exit_code(int err) noexcept { return err == ENOENT ? 127 : 126; }

}  // namespace perfx
