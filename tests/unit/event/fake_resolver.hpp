#pragma once
// A Resolver with canned sysfs/tracefs/ELF data for unit tests (test double for the
// filesystem). The data mirrors what the development VM has, plus a fake "cpu" PMU
// with split format fields.

#include <cerrno>
#include <map>
#include <string>
#include <utility>

#include "core/error_format.hpp"
#include "event/resolver.hpp"

namespace perfx::event::testing {

class FakeResolver : public Resolver {
 public:
  FakeResolver() {
    add_pmu("software", 1, {}, {});
    add_pmu("tracepoint", 2, {}, {});
    add_pmu("breakpoint", 5, {}, {});
    add_pmu("msr", 9, {{"event", "config:0-63"}}, {{"tsc", "event=0x00"}});
    add_pmu("uprobe", 8, {{"retprobe", "config:0"}, {"ref_ctr_offset", "config:32-63"}}, {});
    add_pmu("cpu", 4,
            {{"event", "config:0-7"}, {"umask", "config:8-15"}, {"ext", "config1:0-3,8-11"}},
            {{"inst_retired", "event=0xc0,umask=0x1"}});
    tracepoints_[{"sched", "sched_switch"}] = 316;
    tracepoints_[{"sched", "sched_wakeup"}] = 317;
    tracepoints_[{"sched", "sched_waking"}] = 318;
    tracepoints_[{"syscalls", "sys_enter_getppid"}] = 305;
    symbols_[{"/bin/fake", "main"}] = 0x1130;
    symbols_[{"/bin/fake", "foo"}] = 0x2000;
  }

  void add_pmu(std::string name, std::uint32_t type,
               std::vector<std::pair<std::string, std::string>> format,
               std::vector<std::pair<std::string, std::string>> aliases) {
    PmuInfo p;
    p.name = name;
    p.type = type;
    for (auto& [n, text] : format) p.format.push_back(*parse_format_field(n, text));
    for (auto& [n, terms] : aliases) p.aliases.push_back({n, terms, "", "", ""});
    pmus_[name] = std::move(p);
  }

  bool tracefs_mounted = true;

  Result<PmuInfo> find_pmu(std::string_view name) const override {
    auto it = pmus_.find(std::string(name));
    if (it == pmus_.end()) return fail(Errc::kNotFound, "unknown PMU '{}'", name);
    return it->second;
  }
  std::vector<std::string> pmu_names() const override {
    std::vector<std::string> out;
    for (const auto& [n, p] : pmus_) out.push_back(n);
    return out;
  }
  Result<std::uint64_t> tracepoint_id(std::string_view subsys,
                                      std::string_view name) const override {
    if (!tracefs_mounted) {
      return fail(Errc::kNotFound,
                  "tracefs is not mounted (tracepoints need it); as root run "
                  "'mount -t tracefs nodev /sys/kernel/tracing'");
    }
    auto it = tracepoints_.find({std::string(subsys), std::string(name)});
    if (it == tracepoints_.end()) {
      return fail(Errc::kNotFound, "unknown tracepoint '{}:{}'", subsys, name);
    }
    return it->second;
  }
  Result<std::vector<TracepointName>> tracepoints() const override {
    std::vector<TracepointName> out;
    for (const auto& [k, id] : tracepoints_) out.push_back({k.first, k.second});
    return out;
  }
  Result<std::uint64_t> uprobe_offset(std::string_view path,
                                      std::string_view symbol) const override {
    if (path.starts_with("/nonexistent")) {
      return fail_errno(ENOENT, fmt::format("opening '{}'", path));
    }
    if (path == "/etc/passwd") return fail(Errc::kMalformedData, "'{}' is not an ELF file", path);
    auto it = symbols_.find({std::string(path), std::string(symbol)});
    if (it == symbols_.end()) return fail(Errc::kNotFound, "no symbol '{}' in '{}'", symbol, path);
    return it->second;
  }

 private:
  std::map<std::string, PmuInfo> pmus_;
  std::map<std::pair<std::string, std::string>, std::uint64_t> tracepoints_;
  std::map<std::pair<std::string, std::string>, std::uint64_t> symbols_;
};

}  // namespace perfx::event::testing
