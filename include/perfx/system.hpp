#pragma once
/// \file
/// What the running kernel allows for perf events: the `/proc/sys/kernel` perf sysctls,
/// the caller's CAP_PERFMON / CAP_SYS_ADMIN, and whether perf events exist at all.
///
///   if (!perfx::perf_events_supported()) return;   // no perf_event_paranoid: no perf
///   auto s = perfx::perf_settings();
///   if (s.paranoid > 1 && !s.cap_perfmon) { /* user-space only (exclude_kernel) */ }

#include <sys/types.h>

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "perfx/events.hpp"
#include "perfx/export.hpp"

namespace perfx {

/// The perf sysctls and the caller's capabilities. A file that is missing or unreadable
/// leaves its field nullopt (perf_cpu_time_max_percent is absent on some kernels).
struct PERFX_API PerfSettings {
  /// perf_event_paranoid: -1 everything, 0 no raw tracepoints for users, 1 no
  /// CPU-wide events for users, 2 user-space only for users (>2: distro "no perf").
  std::optional<int> paranoid;
  std::optional<int> max_sample_rate;       ///< perf_event_max_sample_rate (samples/s)
  std::optional<int> max_stack;             ///< perf_event_max_stack (callchain frames)
  std::optional<int> mlock_kb;              ///< perf_event_mlock_kb (ring buffers, per user)
  std::optional<int> cpu_time_max_percent;  ///< perf_cpu_time_max_percent (0 = no limit)
  std::uint64_t cap_effective = 0;          ///< CapEff of this process (bit mask)
  bool cap_perfmon = false;                 ///< CAP_PERFMON (38) is effective
  bool cap_sys_admin = false;               ///< CAP_SYS_ADMIN (21) is effective
  /// perf_event_paranoid exists: the kernel has perf events (the man page's test).
  [[nodiscard]] bool supported() const noexcept { return paranoid.has_value(); }
  /// Privileged for perf (CAP_PERFMON, or CAP_SYS_ADMIN on older kernels): paranoid
  /// does not apply.
  [[nodiscard]] bool privileged() const noexcept { return cap_perfmon || cap_sys_admin; }
};

/// Reads the settings from `paths.procfs` (default /proc). Never fails.
[[nodiscard]] PERFX_API PerfSettings perf_settings(const SystemPaths& paths = {});

/// True when `<procfs>/sys/kernel/perf_event_paranoid` exists: the official test for
/// perf_event_open(2) support.
[[nodiscard]] PERFX_API bool perf_events_supported(const SystemPaths& paths = {});

/// Parses a CPU list as perf's -C and the kernel's sysfs files write it ("0,2-3") into
/// sorted, de-duplicated CPU numbers; whitespace and a trailing newline are allowed.
/// Errors (kInvalidArgument) name the bad item: "bad CPU list '0,x': 'x' is not a CPU
/// number"; an empty list is an error.
[[nodiscard]] PERFX_API Result<std::vector<int>> parse_cpu_list(std::string_view text);

/// The online CPUs (`<sysfs>/devices/system/cpu/online`).
[[nodiscard]] PERFX_API Result<std::vector<int>> online_cpus(const SystemPaths& paths = {});

/// Parses a perf-style pid/tid list ("123,456", -p/-t); kInvalidArgument naming the bad
/// item.
[[nodiscard]] PERFX_API Result<std::vector<pid_t>> parse_pid_list(std::string_view text);

// ------------------------------------------------------------------ stop signals

/// Keeps SIGINT and SIGTERM from killing the process between sessions, as perf's tools
/// keep their handlers for the whole run. Each session (record, top, trace) stops on
/// them while it runs and gives the previous handler back when it ends; after this call
/// that handler only remembers the signal: one that comes before a session starts stops
/// the session at once, and one that comes after it ended (while the tool still writes
/// what it collected) is kept for take_stop_signal(). `timeout -s INT` sends its signal
/// twice, to the command and to its process group: without the latch the second can
/// kill a tool in the middle of writing its output.
PERFX_API void latch_stop_signals();

/// The stop signal latched and not taken by a session since the last call (0: none).
[[nodiscard]] PERFX_API int take_stop_signal() noexcept;

}  // namespace perfx
