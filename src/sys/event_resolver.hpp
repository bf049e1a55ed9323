#pragma once
/// \file
/// The real event::Resolver: PMUs from sysfs, tracepoints from tracefs (or debugfs),
/// uprobe symbol offsets from the ELF file (libelf).

#include <map>
#include <memory>
#include <mutex>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "event/resolver.hpp"

namespace perfx::sys {

/// Where the resolver looks. Defaults are the running system's paths.
struct ResolverPaths {
  /// Directory with one sub-directory per PMU.
  std::string pmu_dir = "/sys/bus/event_source/devices";
  /// tracefs (or debugfs/tracing) root holding events/. Empty: found from /proc/mounts.
  std::string tracefs;
  /// Mount table used to find tracefs when `tracefs` is empty.
  std::string mounts = "/proc/mounts";
};

/// Reads sysfs/tracefs lazily and caches what it read (PMUs by name, the tracefs root).
/// Thread-safe.
class SystemResolver final : public event::Resolver {
 public:
  SystemResolver() = default;
  explicit SystemResolver(ResolverPaths paths) : paths_(std::move(paths)) {}

  [[nodiscard]] Result<event::PmuInfo> find_pmu(std::string_view name) const override;
  [[nodiscard]] std::vector<std::string> pmu_names() const override;
  [[nodiscard]] Result<std::uint64_t> tracepoint_id(std::string_view subsys,
                                                    std::string_view name) const override;
  [[nodiscard]] Result<std::vector<event::TracepointName>> tracepoints() const override;
  [[nodiscard]] Result<std::uint64_t> uprobe_offset(std::string_view path,
                                                    std::string_view symbol) const override;

  /// The tracefs root in use ("/sys/kernel/tracing"), or kNotFound with the mount hint.
  [[nodiscard]] Result<std::string> tracefs_root() const;

 private:
  ResolverPaths paths_;
  mutable std::mutex mu_;
  mutable std::map<std::string, event::PmuInfo, std::less<>> pmu_cache_;
  mutable std::optional<std::string> tracefs_cache_;
};

/// A process-wide SystemResolver with default paths.
const SystemResolver& system_resolver();

}  // namespace perfx::sys
