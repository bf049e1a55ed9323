#include "event/event_spec.hpp"

#include <fmt/format.h>
#include <linux/hw_breakpoint.h>

#include <iterator>

namespace perfx::event {

namespace {

struct KindNames {
  const char* label;  // perf list's column
  const char* key;    // perfx list --json
};

// By EventKind, in enumerator order.
constexpr KindNames kKindNames[] = {
    {"Hardware event", "hardware"},        {"Software event", "software"},
    {"Hardware cache event", "hw_cache"},  {"Raw hardware event descriptor", "raw"},
    {"Kernel PMU event", "pmu"},           {"Tracepoint event", "tracepoint"},
    {"Hardware breakpoint", "breakpoint"}, {"Uprobe", "uprobe"},
};
static_assert(std::size(kKindNames) == static_cast<std::size_t>(EventKind::kUprobe) + 1);

constexpr KindNames names_of(EventKind kind) noexcept {
  const auto i = static_cast<std::size_t>(kind);
  return i < std::size(kKindNames) ? kKindNames[i] : KindNames{"Unknown", "unknown"};
}

}  // namespace

const char* kind_name(EventKind kind) noexcept { return names_of(kind).label; }

const char* kind_key(EventKind kind) noexcept { return names_of(kind).key; }

std::string breakpoint_access_text(std::uint32_t bp_type) {
  std::string text;
  if (bp_type & HW_BREAKPOINT_R) text += 'r';
  if (bp_type & HW_BREAKPOINT_W) text += 'w';
  if (bp_type & HW_BREAKPOINT_X) text += 'x';
  return text;
}

raw::EventAttr EventSpec::attr_for_open() const {
  raw::EventAttr a = attr;
  if (kind == EventKind::kUprobe) {
    // The kernel copies the path from this user pointer during perf_event_open(2).
    a.config1 = reinterpret_cast<std::uintptr_t>(uprobe_path.c_str());
  }
  return a;
}

std::string describe_attr(const raw::EventAttr& attr) {
  const char* type_name = "";
  switch (attr.type) {
    case PERF_TYPE_HARDWARE:
      type_name = " (hardware)";
      break;
    case PERF_TYPE_SOFTWARE:
      type_name = " (software)";
      break;
    case PERF_TYPE_TRACEPOINT:
      type_name = " (tracepoint)";
      break;
    case PERF_TYPE_HW_CACHE:
      type_name = " (hw-cache)";
      break;
    case PERF_TYPE_RAW:
      type_name = " (raw)";
      break;
    case PERF_TYPE_BREAKPOINT:
      type_name = " (breakpoint)";
      break;
    default:
      break;
  }
  std::string out = fmt::format("type={}{} config={:#x}", attr.type, type_name, attr.config);
  if (attr.type == PERF_TYPE_BREAKPOINT) {
    out +=
        fmt::format(" bp_type={} bp_addr={:#x} bp_len={}", attr.bp_type, attr.bp_addr, attr.bp_len);
  } else {
    if (attr.config1 != 0) out += fmt::format(" config1={:#x}", attr.config1);
    if (attr.config2 != 0) out += fmt::format(" config2={:#x}", attr.config2);
  }
  if (attr.config3 != 0) out += fmt::format(" config3={:#x}", attr.config3);
  if (attr.sample_period != 0) {
    out += fmt::format(" {}={}", attr.freq ? "sample_freq" : "sample_period", attr.sample_period);
  }
  const auto flag = [&out](const char* name, unsigned long long v) {
    if (v != 0) out += fmt::format(" {}={}", name, v);
  };
  flag("exclude_user", attr.exclude_user);
  flag("exclude_kernel", attr.exclude_kernel);
  flag("exclude_hv", attr.exclude_hv);
  flag("exclude_idle", attr.exclude_idle);
  flag("exclude_host", attr.exclude_host);
  flag("exclude_guest", attr.exclude_guest);
  flag("precise_ip", attr.precise_ip);
  flag("pinned", attr.pinned);
  flag("exclusive", attr.exclusive);
  return out;
}

}  // namespace perfx::event
