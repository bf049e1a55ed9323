// perf -vv style attr dump (perf's util/perf_event_attr_fprintf.c layout: one
// "  %-32s %s" line per non-zero field, bit masks spelled out).

#include <fmt/format.h>
#include <linux/hw_breakpoint.h>

#include <string>
#include <utility>
#include <vector>

#include "core/attr_flags.hpp"
#include "event/attr_dump.hpp"
#include "event/event_names.hpp"
#include "event/event_spec.hpp"

namespace perfx::event {
namespace {

std::string type_text(std::uint32_t type) {
  switch (type) {
    case PERF_TYPE_HARDWARE:
      return "0 (PERF_TYPE_HARDWARE)";
    case PERF_TYPE_SOFTWARE:
      return "1 (PERF_TYPE_SOFTWARE)";
    case PERF_TYPE_TRACEPOINT:
      return "2 (PERF_TYPE_TRACEPOINT)";
    case PERF_TYPE_HW_CACHE:
      return "3 (PERF_TYPE_HW_CACHE)";
    case PERF_TYPE_RAW:
      return "4 (PERF_TYPE_RAW)";
    case PERF_TYPE_BREAKPOINT:
      return "5 (PERF_TYPE_BREAKPOINT)";
    default:
      return fmt::format("{} (dynamic PMU)", type);
  }
}

std::string config_text(const raw::EventAttr& a) {
  std::string out = fmt::format("{:#x}", a.config);
  if (a.type == PERF_TYPE_HARDWARE || a.type == PERF_TYPE_SOFTWARE) {
    const auto table = a.type == PERF_TYPE_HARDWARE ? hardware_events() : software_events();
    for (const SymbolicEvent& e : table) {
      if (e.config == a.config) return out + fmt::format(" ({})", e.name);
    }
  }
  if (a.type == PERF_TYPE_HW_CACHE) {
    for (const CacheEvent& e : cache_events()) {
      if (e.config == a.config) return out + fmt::format(" ({})", e.name);
    }
  }
  return out;
}

}  // namespace

std::string dump_attr(const raw::EventAttr& a) {
  std::vector<std::pair<std::string, std::string>> rows;
  auto add = [&rows](std::string name, std::string value) {
    rows.emplace_back(std::move(name), std::move(value));
  };
  auto num = [&add](const char* name, unsigned long long v) {
    if (v != 0) add(name, std::to_string(v));
  };
  auto hex = [&add](const char* name, unsigned long long v) {
    if (v != 0) add(name, fmt::format("{:#x}", v));
  };
  add("type", type_text(a.type));
  add("size", std::to_string(a.size));
  add("config", config_text(a));
  if (a.sample_period != 0) {
    add(a.freq ? "sample_freq" : "sample_period", std::to_string(a.sample_period));
  }
  if (a.sample_type != 0) add("sample_type", core::sample_type_names(a.sample_type));
  if (a.read_format != 0)
    add("read_format", core::bit_names(a.read_format, core::kReadFormatBits, true));
  core::for_each_attr_flag(a, num);
  num(a.watermark ? "wakeup_watermark" : "wakeup_events", a.wakeup_events);
  if (a.type == PERF_TYPE_BREAKPOINT) {
    if (a.bp_type != 0) {
      add("bp_type", fmt::format("{} ({})", a.bp_type, breakpoint_access_text(a.bp_type)));
    }
    hex("bp_addr", a.bp_addr);
    num("bp_len", a.bp_len);
  } else {
    num("bp_type", a.bp_type);
    hex("config1", a.config1);
    hex("config2", a.config2);
  }
  hex("config3", a.config3);
  hex("branch_sample_type", a.branch_sample_type);
  hex("sample_regs_user", a.sample_regs_user);
  num("sample_stack_user", a.sample_stack_user);
  if (a.use_clockid != 0 || a.clockid != 0) add("clockid", std::to_string(a.clockid));
  hex("sample_regs_intr", a.sample_regs_intr);
  num("aux_watermark", a.aux_watermark);
  num("sample_max_stack", a.sample_max_stack);
  num("aux_sample_size", a.aux_sample_size);
  hex("sig_data", a.sig_data);
  std::string out = "perf_event_attr:\n";
  for (const auto& [name, value] : rows) out += fmt::format("  {:<32} {}\n", name, value);
  return out;
}

}  // namespace perfx::event
