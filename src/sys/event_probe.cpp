// perfx list's probe: one quick perf_event_open per event (see event_probe.hpp).

#include "sys/event_probe.hpp"
#include "sys/breakpoint_check.hpp"

#include <linux/perf_event.h>

#include <fmt/format.h>

#include <algorithm>
#include <atomic>
#include <cerrno>
#include <cstring>
#include <optional>
#include <thread>

#include "sys/perf_event_open.hpp"
#include "sys/pmu_sysfs.hpp"

namespace perfx::sys {
namespace {

// A variable the breakpoint probe watches.
volatile int g_probe_target = 0;

// The uprobe PMU checks permissions, then looks the path up: ENOENT on a path that does
// not exist means uprobes work here, without creating one.
constexpr const char* kMissingUprobePath = "/nonexistent/perfx-list-probe";

std::string paranoid_text() {
  auto v = read_text_file("/proc/sys/kernel/perf_event_paranoid");
  return v ? *v : std::string("?");
}

struct Outcome {
  bool supported = false;
  std::string text;
};

Outcome probe_one(const raw::EventAttr& attr_in, bool enoent_means_ok, std::string_view paranoid) {
  raw::EventAttr attr = attr_in;
  attr.disabled = 1;
  auto fd = perf_event_open(attr, 0, -1, -1);
  if (fd) return {true, "supported"};
  int err = fd.error().sys_errno();
  if (enoent_means_ok && err == ENOENT) return {true, "supported"};
  if ((err == EACCES || err == EPERM) && attr.exclude_kernel == 0) {
    // perf_event_paranoid >= 2 without privileges: user-space-only counting may work.
    attr.exclude_kernel = 1;
    attr.exclude_hv = 1;
    if (perf_event_open(attr, 0, -1, -1)) return {true, "supported (user space only)"};
    err = EACCES;
  }
  return {false, probe_failure_reason(err, attr_in, paranoid)};
}

}  // namespace

std::string probe_failure_reason(int err, const raw::EventAttr& attr, std::string_view paranoid) {
  const bool hw = attr.type == PERF_TYPE_HARDWARE || attr.type == PERF_TYPE_HW_CACHE ||
                  attr.type == PERF_TYPE_RAW;
  switch (err) {
    case ENOENT:
      return hw ? "not supported: no hardware PMU" : "not supported: unknown to this kernel";
    case EOPNOTSUPP:
      return hw ? "not supported: no hardware PMU" : "not supported by this PMU";
    case ENODEV:
      return "not supported: no such device";
    case EACCES:
    case EPERM:
      return fmt::format("not permitted (perf_event_paranoid={})", paranoid);
    case EINVAL:
      return "not supported: rejected as invalid";
    case ENOSPC:
      return "not available: no free slot";
    case EMFILE:
      return "not probed: out of file descriptors";
    default:
      return fmt::format("not supported: {}", std::strerror(err));
  }
}

void probe_event_list(std::vector<event::ListEntry>& entries, const event::Resolver& resolver,
                      const ProbeOptions& options) {
  struct Job {
    std::size_t index;
    raw::EventAttr attr;
    bool enoent_means_ok;
  };
  std::vector<Job> jobs;
  const std::string uprobe_path = options.full ? options.self_path : kMissingUprobePath;
  std::optional<std::uint64_t> uprobe_offset;
  for (std::size_t i = 0; i < entries.size(); ++i) {
    auto& e = entries[i];
    e.probed = false;
    e.supported = false;
    if (!e.unavailable.empty()) {
      e.status = "not available: " + e.unavailable;
      continue;
    }
    if (!e.attr) {
      e.status = "syntax only";
      continue;
    }
    if (!options.probe) {
      e.status = "not probed";
      continue;
    }
    if (e.kind == event::EventKind::kTracepoint && !options.full) {
      // Opening a tracepoint registers and unregisters a kernel probe, which waits for an
      // RCU grace period on close: ~30 ms each here, over a minute for all of them.
      e.supported = true;
      e.status = "available";
      continue;
    }
    raw::EventAttr attr = *e.attr;
    bool quick_uprobe = false;
    if (e.kind == event::EventKind::kBreakpoint) {
      attr.bp_addr = reinterpret_cast<std::uintptr_t>(&g_probe_target);
    } else if (e.kind == event::EventKind::kUprobe) {
      if (!uprobe_offset) {
        uprobe_offset = options.full ? resolver.uprobe_offset(uprobe_path, "main").value_or(0) : 0;
      }
      attr.config1 = reinterpret_cast<std::uintptr_t>(uprobe_path.c_str());
      attr.config2 = *uprobe_offset;
      quick_uprobe = !options.full;
    }
    jobs.push_back({i, attr, quick_uprobe});
  }
  // Closing a uprobe or tracepoint event waits for an RCU grace period; probing from a few
  // threads overlaps those waits (pid 0 = the probing thread, fine for a probe).
  const std::string paranoid = paranoid_text();  // read once, not per failed probe
  std::atomic<std::size_t> next{0};
  const auto worker = [&] {
    for (std::size_t j = next++; j < jobs.size(); j = next++) {
      auto outcome = probe_one(jobs[j].attr, jobs[j].enoent_means_ok, paranoid);
      auto& e = entries[jobs[j].index];
      e.supported = outcome.supported;
      e.status = std::move(outcome.text);
      e.probed = true;
    }
  };
  std::vector<std::thread> threads;
  const std::size_t n = std::min<std::size_t>(jobs.size(), 8);
  for (std::size_t t = 1; t < n; ++t) threads.emplace_back(worker);
  worker();
  for (auto& t : threads) t.join();
  // A breakpoint that opens may still never fire (hypervisors without debug traps).
  for (auto& e : entries) {
    if (e.kind == event::EventKind::kBreakpoint && e.probed && e.supported &&
        check_hardware_breakpoints() == BreakpointCheck::kSilent) {
      e.supported = false;
      e.status = kSilentBreakpointsReason;
    }
  }
}

}  // namespace perfx::sys
