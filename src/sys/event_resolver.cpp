// The real event::Resolver: sysfs, tracefs, ELF.

#include "sys/event_resolver.hpp"

#include "symbol/elf_symbol_offset.hpp"
#include "sys/pmu_sysfs.hpp"
#include "sys/tracefs.hpp"

namespace perfx::sys {

Result<event::PmuInfo> SystemResolver::find_pmu(std::string_view name) const {
  std::lock_guard lock(mu_);
  if (auto it = pmu_cache_.find(name); it != pmu_cache_.end()) return it->second;
  PERFX_TRY(pmu, read_pmu(paths_.pmu_dir, name));
  pmu_cache_.emplace(std::string(name), pmu);
  return pmu;
}

std::vector<std::string> SystemResolver::pmu_names() const { return list_pmus(paths_.pmu_dir); }

Result<std::string> SystemResolver::tracefs_root() const {
  std::lock_guard lock(mu_);
  if (tracefs_cache_) return *tracefs_cache_;
  if (!paths_.tracefs.empty()) {
    tracefs_cache_ = paths_.tracefs;
    return paths_.tracefs;
  }
  PERFX_TRY(root, find_tracefs(paths_.mounts));
  tracefs_cache_ = root;
  return root;
}

Result<std::uint64_t> SystemResolver::tracepoint_id(std::string_view subsys,
                                                    std::string_view name) const {
  PERFX_TRY(root, tracefs_root());
  return read_tracepoint_id(root, subsys, name);
}

Result<std::vector<event::TracepointName>> SystemResolver::tracepoints() const {
  PERFX_TRY(root, tracefs_root());
  return list_tracepoints(root);
}

Result<std::uint64_t> SystemResolver::uprobe_offset(std::string_view path,
                                                    std::string_view symbol) const {
  return symbol::elf_symbol_file_offset(std::string(path), symbol);
}

const SystemResolver& system_resolver() {
  static const SystemResolver resolver;
  return resolver;
}

}  // namespace perfx::sys
