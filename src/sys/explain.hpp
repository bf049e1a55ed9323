#pragma once
/// \file
/// errno -> a message a person can act on. Pure functions of (errno, the request, the
/// system readings) so every message is unit-tested; the callers collect the readings
/// with sys::read_system_readings() only when something failed.
///
/// Sources: perf_event_open(2) ERRORS, capabilities.md section 9, and what was observed
/// on the development VM (capabilities.md Part B).

#include <sys/types.h>

#include <optional>
#include <string>
#include <string_view>

#include "perfx/error.hpp"
#include "perfx/raw.hpp"
#include "perfx/workload.hpp"
#include "sys/system_info.hpp"

namespace perfx::sys {

/// What was being opened when perf_event_open failed.
struct OpenRequest {
  raw::EventAttr attr{};    ///< the attr as sent
  std::string event_name;   ///< the event as the user wrote it ("cycles:u"); may be empty
  pid_t pid = 0;            ///< perf_event_open's pid (a cgroup fd with kCgroup flag)
  int cpu = -1;             ///< perf_event_open's cpu
  int group_fd = -1;        ///< the leader's fd, -1 for a leader
  unsigned long flags = 0;  ///< PERF_FLAG_* bits
  /// How the tool's user asked for this target, used in permission messages:
  /// "system-wide counting (-a)". Empty: derived from pid/cpu/flags.
  std::string target_hint;
  /// True when the tool, not the user, set exclude_kernel/exclude_hv (perf's ':u'
  /// fallback after EACCES/EPERM): messages then say the ':u' was added automatically.
  bool auto_user_only = false;
};

/// The symbolic name of an errno value ("EACCES"); "errno N" when unknown.
std::string errno_name(int err);

/// The explanation for `err` returned by perf_event_open(2) for `req`. Names the attr
/// field most likely at fault, the sysctl and its current value, the limit, and what
/// to do. Does not include the event name (explain_open_error adds it).
std::string explain_open_errno(int err, const OpenRequest& req, const SystemReadings& sys);

/// The attr field at fault when an EINVAL is certainly the caller's mistake (a clockid
/// no perf clock has, bp_len/bp_addr/bp_type, sample_period bit 63, inherit with
/// PERF_SAMPLE_READ, pinned on a member, unknown read_format bits, ...), naming it
/// ("attr.clockid 99 is not a clock ..."); nullopt when EINVAL may just mean the
/// machine cannot count the event (perf stat's <not supported>).
std::optional<std::string> attr_field_error(const OpenRequest& req);

/// Builds the full error: code from errno (ENOENT on a hardware/cache/raw event becomes
/// kNotSupported), message "opening event 'NAME' (pid P, cpu C): EXPLANATION (ERRNO)".
Error explain_open_error(int err, const OpenRequest& req, const SystemReadings& sys);

/// True when the error means "this machine cannot count this event": perf stat 6.1
/// (stat_handle_error) prints <not supported> for EINVAL, ENOENT, ENOSYS, EOPNOTSUPP and
/// ENXIO and carries on; perfx adds ENODEV ("the CPU lacks a feature").
bool is_unsupported_event_errno(int err) noexcept;

// The words and exit code for a workload that could not be executed (public:
// perfx/workload.hpp).
using perfx::exec_failure_exit_code;
using perfx::explain_exec_errno;

}  // namespace perfx::sys
