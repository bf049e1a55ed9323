#pragma once
/// \file
/// The perf-related settings of the running system: /proc/sys/kernel/perf_event_*,
/// the effective capabilities (CapEff in /proc/self/status) and RLIMIT_NOFILE.
/// explain.hpp turns errnos into messages using these readings.

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

#include "perfx/error.hpp"
#include "sys/text_files.hpp"

namespace perfx::sys {

/// Capability numbers (linux/capability.h) that matter for perf.
inline constexpr int kCapSysPtrace = 19;
inline constexpr int kCapSysAdmin = 21;
inline constexpr int kCapPerfmon = 38;

/// The effective capability set.
struct Capabilities {
  std::uint64_t effective = 0;  ///< CapEff bit mask
  /// True when capability number `cap` (0..63) is in the effective set.
  [[nodiscard]] bool has(int cap) const noexcept {
    return cap >= 0 && cap < 64 && ((effective >> cap) & 1U) != 0;
  }
  /// CAP_PERFMON or CAP_SYS_ADMIN: what perf_event_paranoid checks are bypassed by.
  [[nodiscard]] bool can_perfmon() const noexcept { return has(kCapPerfmon) || has(kCapSysAdmin); }
};

/// Readings of everything the error explanations mention. Missing files stay nullopt.
struct SystemReadings {
  std::optional<int> paranoid;                   ///< /proc/sys/kernel/perf_event_paranoid
  std::optional<int> max_sample_rate;            ///< perf_event_max_sample_rate (samples/s)
  std::optional<int> mlock_kb;                   ///< perf_event_mlock_kb
  std::optional<int> max_stack;                  ///< perf_event_max_stack
  std::optional<int> cpu_time_max_percent;       ///< perf_cpu_time_max_percent
  Capabilities caps;                             ///< CapEff of this process
  std::optional<std::uint64_t> nofile_soft;      ///< RLIMIT_NOFILE current (soft) limit
  std::optional<std::uint64_t> nofile_hard;      ///< RLIMIT_NOFILE maximum (hard) limit
  std::optional<std::uint64_t> memlock_soft_kb;  ///< RLIMIT_MEMLOCK soft limit in KiB
  unsigned uid = 0;                              ///< real uid
  int configured_cpus = 0;                       ///< sysconf(_SC_NPROCESSORS_CONF), 0 if unknown
};

/// Reads the current system state (the sysctls and CapEff under `proc_root`). Never
/// fails: unreadable items stay unset.
SystemReadings read_system_readings(const std::string& proc_root = "/proc");

/// Parses the CapEff line of /proc/<pid>/status text. kMalformedData when missing.
Result<Capabilities> parse_proc_status_caps(std::string_view status_text);

/// Raises the soft RLIMIT_NOFILE to the hard limit, as perf does: each event needs one fd
/// per CPU and thread, and the usual soft limit (1024) is soon reached with -a. Returns
/// the soft limit now in force; never fails (a refused raise leaves the old limit).
std::uint64_t raise_fd_limit() noexcept;

/// Reads an integer file such as /proc/sys/kernel/perf_event_paranoid.
Result<long long> read_int_file(const std::string& path);

}  // namespace perfx::sys
