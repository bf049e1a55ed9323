// The option parsers of the record plan (event/record_plan.hpp): --call-graph, -m, -k,
// --max-size, --switch-output, with perf's syntax and messages.
#include <linux/perf_event.h>
#include <time.h>

#include <algorithm>
#include <bit>
#include <cctype>
#include <cstdlib>
#include <initializer_list>
#include <utility>

#include "core/error_format.hpp"
#include "core/x86_regs.hpp"
#include "event/record_plan.hpp"

namespace perfx::event {
namespace {

// perf's parse_tag_value(): a count > 0 and one of `tags` right after it, scaled by the
// tag's multiplier; nullopt otherwise.
using Tags = std::initializer_list<std::pair<std::string_view, std::uint64_t>>;
std::optional<std::uint64_t> tagged_count(const std::string& text, Tags tags) {
  char* end = nullptr;
  const unsigned long long n = std::strtoull(text.c_str(), &end, 10);
  if (end == text.c_str() || n == 0) return std::nullopt;
  for (const auto& [tag, mul] : tags)
    if (std::string_view(end) == tag) return n * mul;
  return std::nullopt;
}

}  // namespace

std::uint64_t CallGraph::sample_type() const noexcept {
  if (mode == kNone) return 0;
  if (mode == kFp) return PERF_SAMPLE_CALLCHAIN;
  return PERF_SAMPLE_CALLCHAIN | PERF_SAMPLE_ADDR | PERF_SAMPLE_DATA_SRC | PERF_SAMPLE_REGS_USER |
         PERF_SAMPLE_STACK_USER;
}

void CallGraph::configure(raw::EventAttr& a) const noexcept {
  if (mode != kDwarf) return;
  a.exclude_callchain_user = 1;
  a.sample_regs_user = core::kX86_64RegsMask;
  a.sample_stack_user = stack_size;
  a.mmap_data = 1;
}

Result<CallGraph> parse_call_graph(std::string_view v) {
  CallGraph cg;
  if (v.empty()) return cg;
  const auto comma = v.find(',');
  const std::string_view mode = v.substr(0, comma);
  if (mode == "fp") {
    cg.mode = CallGraph::kFp;
  } else if (mode == "dwarf") {
    cg.mode = CallGraph::kDwarf;
    if (comma != std::string_view::npos) {
      const std::string size(v.substr(comma + 1));
      char* end = nullptr;
      const unsigned long long n = std::strtoull(size.c_str(), &end, 0);
      if (size.empty() || *end != '\0' || n == 0 || n > 65528) {
        return fail(Errc::kInvalidArgument,
                    "--call-graph dwarf,{}: the stack size must be 8..65528 bytes", size);
      }
      cg.stack_size = static_cast<std::uint32_t>((n + 7) & ~7ULL);
    }
  } else if (mode == "lbr") {
    return fail(Errc::kNotSupported, "--call-graph lbr needs a hardware PMU with LBR");
  } else {
    return fail(Errc::kInvalidArgument, "--call-graph '{}': use fp or dwarf[,size]", v);
  }
  return cg;
}

Result<std::size_t> parse_mmap_pages(const std::string& text, std::size_t page_size,
                                     bool& rounded) {
  rounded = false;
  if (text.empty()) return std::size_t{0};
  char* end = nullptr;
  const unsigned long long n = std::strtoull(text.c_str(), &end, 10);
  if (end == text.c_str()) {
    return fail(Errc::kInvalidArgument, "-m '{}': expected pages or a size like 512K", text);
  }
  std::uint64_t pages = n;
  const std::string unit(end);
  const std::uint64_t page = page_size;
  auto bytes_to_pages = [&](std::uint64_t mul) { return (n * mul + page - 1) / page; };
  if (unit.empty()) {
    pages = n;
  } else if (unit == "B" || unit == "b") {
    pages = bytes_to_pages(1);
  } else if (unit == "K" || unit == "k") {
    pages = bytes_to_pages(1024);
  } else if (unit == "M" || unit == "m") {
    pages = bytes_to_pages(1024 * 1024);
  } else if (unit == "G" || unit == "g") {
    pages = bytes_to_pages(1024ULL * 1024 * 1024);
  } else {
    return fail(Errc::kInvalidArgument, "-m '{}': unknown unit '{}'", text, unit);
  }
  if (pages == 0) return fail(Errc::kInvalidArgument, "-m '{}': must be at least 1 page", text);
  const std::uint64_t p2 = std::bit_ceil(pages);
  rounded = p2 != pages;
  return static_cast<std::size_t>(p2);
}

Result<int> parse_clockid(std::string name) {
  for (auto& c : name) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  if (name.rfind("clock_", 0) == 0) name.erase(0, 6);
  static constexpr std::pair<std::string_view, int> kClocks[] = {
      {"monotonic", CLOCK_MONOTONIC},
      {"monotonic_raw", CLOCK_MONOTONIC_RAW},
      {"realtime", CLOCK_REALTIME},
      {"boottime", CLOCK_BOOTTIME},
      {"tai", CLOCK_TAI},
      {"mono", CLOCK_MONOTONIC},
      {"raw", CLOCK_MONOTONIC_RAW},
      {"real", CLOCK_REALTIME},
      {"boot", CLOCK_BOOTTIME},
  };
  for (const auto& [n, id] : kClocks)
    if (name == n) return id;
  char* end = nullptr;
  const long v = std::strtol(name.c_str(), &end, 10);
  if (!name.empty() && *end == '\0' && v >= 0 && v < 64) return static_cast<int>(v);
  return fail(Errc::kInvalidArgument,
              "-k '{}': unknown clock (monotonic, monotonic_raw, realtime, boottime, tai or "
              "a number)",
              name);
}

Result<std::uint64_t> parse_max_size(const std::string& text) {
  if (auto n = tagged_count(text, {{"", 1},
                                   {"B", 1},
                                   {"b", 1},
                                   {"K", 1024},
                                   {"k", 1024},
                                   {"M", 1024 * 1024},
                                   {"m", 1024 * 1024},
                                   {"G", 1024ULL << 20},
                                   {"g", 1024ULL << 20}}))
    return *n;
  return fail(Errc::kInvalidArgument, "--max-size '{}': expected a size like 100M", text);
}

Result<SwitchOutputPlan> parse_switch_output(const std::string& text) {
  SwitchOutputPlan sw;
  sw.on = true;
  if (text == "signal") {
    sw.signal = true;
    return sw;
  }
  if (!text.empty() && std::isdigit(static_cast<unsigned char>(text[0]))) {
    if (auto size =
            tagged_count(text, {{"B", 1}, {"K", 1024}, {"M", 1024 * 1024}, {"G", 1024ULL << 20}})) {
      sw.size = *size;
      return sw;
    }
    if (auto seconds = tagged_count(text, {{"s", 1}, {"m", 60}, {"h", 3600}, {"d", 86400}})) {
      sw.seconds = *seconds;
      return sw;
    }
  }
  return fail(Errc::kInvalidArgument,
              "--switch-output '{}': use signal, a size (100M: B, K, M, G) or a time (30s: s, m, "
              "h, d)",
              text);
}

Result<std::uint64_t> parse_branch_filter(std::string_view modes) {
  static constexpr std::pair<std::string_view, std::uint64_t> kModes[] = {
      {"u", PERF_SAMPLE_BRANCH_USER},
      {"k", PERF_SAMPLE_BRANCH_KERNEL},
      {"hv", PERF_SAMPLE_BRANCH_HV},
      {"any", PERF_SAMPLE_BRANCH_ANY},
      {"any_call", PERF_SAMPLE_BRANCH_ANY_CALL},
      {"any_ret", PERF_SAMPLE_BRANCH_ANY_RETURN},
      {"ind_call", PERF_SAMPLE_BRANCH_IND_CALL},
      {"abort_tx", PERF_SAMPLE_BRANCH_ABORT_TX},
      {"in_tx", PERF_SAMPLE_BRANCH_IN_TX},
      {"no_tx", PERF_SAMPLE_BRANCH_NO_TX},
      {"cond", PERF_SAMPLE_BRANCH_COND},
      {"ind_jmp", PERF_SAMPLE_BRANCH_IND_JUMP},
      {"call", PERF_SAMPLE_BRANCH_CALL},
      {"save_type", PERF_SAMPLE_BRANCH_TYPE_SAVE},
      {"stack", PERF_SAMPLE_BRANCH_CALL_STACK},
      {"hw_index", PERF_SAMPLE_BRANCH_HW_INDEX},
  };
  std::uint64_t mask = 0;
  std::size_t pos = 0;
  while (pos <= modes.size()) {
    std::size_t comma = modes.find(',', pos);
    if (comma == std::string_view::npos) comma = modes.size();
    const std::string_view mode = modes.substr(pos, comma - pos);
    std::uint64_t bit = 0;
    for (const auto& [name, b] : kModes)
      if (name == mode) bit = b;
    if (bit == 0) {
      return fail(Errc::kInvalidArgument,
                  "unknown branch filter {}, check man page (modes: u, k, hv, any, any_call, "
                  "any_ret, ind_call, abort_tx, in_tx, no_tx, cond, ind_jmp, call, save_type, "
                  "stack, hw_index)",
                  mode.empty() ? "''" : std::string(mode));
    }
    mask |= bit;
    pos = comma + 1;
  }
  constexpr std::uint64_t kPrivilege =
      PERF_SAMPLE_BRANCH_USER | PERF_SAMPLE_BRANCH_KERNEL | PERF_SAMPLE_BRANCH_HV;
  if ((mask & ~kPrivilege) == 0) mask |= PERF_SAMPLE_BRANCH_ANY;  // perf's default
  return mask;
}

Result<std::uint64_t> parse_mmap_flush(const std::string& text, std::size_t data_pages,
                                       std::size_t page_size) {
  std::uint64_t flush = 1;
  if (!text.empty()) {
    if (auto n =
            tagged_count(text, {{"B", 1}, {"K", 1024}, {"M", 1024 * 1024}, {"G", 1ULL << 30}})) {
      flush = *n;
    } else {
      char* end = nullptr;
      const unsigned long long v = std::strtoull(text.c_str(), &end, 0);
      if (end == text.c_str() || *end != '\0' || text[0] == '-') {
        return fail(Errc::kInvalidArgument, "--mmap-flush '{}': expected a size like 4K", text);
      }
      flush = v == 0 ? 1 : v;
    }
  }
  // perf: at most a quarter of the buffer (its evlist__mmap_size(): data pages + 1).
  const std::uint64_t buffer = (std::uint64_t{data_pages == 0 ? 128U : data_pages} + 1) * page_size;
  return std::min<std::uint64_t>(flush, buffer / 4);
}

Result<ControlPlan> parse_control(const std::string& text) {
  ControlPlan c;
  c.on = true;
  const auto comma = text.find(',');
  auto first = text.substr(0, comma);
  const std::string second = comma == std::string::npos ? "" : text.substr(comma + 1);
  auto fd_of = [](const std::string& s) -> std::optional<int> {
    char* end = nullptr;
    const long v = std::strtol(s.c_str(), &end, 10);
    if (s.empty() || *end != '\0' || v < 0 || v > 1 << 20) return std::nullopt;
    return static_cast<int>(v);
  };
  if (first.rfind("fifo:", 0) == 0) {
    c.fifo = true;
    c.ctl_path = first.substr(5);
    c.ack_path = second;
    if (!c.ctl_path.empty()) return c;
  } else if (first.rfind("fd:", 0) == 0) {
    const auto ctl = fd_of(first.substr(3));
    const auto ack = second.empty() ? std::optional<int>(-1) : fd_of(second);
    if (ctl && ack) {
      c.ctl_fd = *ctl;
      c.ack_fd = *ack;
      return c;
    }
  }
  return fail(Errc::kInvalidArgument,
              "--control '{}': use fd:ctl-fd[,ack-fd] or fifo:ctl-fifo[,ack-fifo]", text);
}

std::string name_with_modifiers(std::string base, const raw::EventAttr& a) {
  // perf's evsel__add_modifiers().
  std::string mods;
  bool exclude_guest_default = false;
  if (a.exclude_kernel || a.exclude_user || a.exclude_hv) {
    if (!a.exclude_kernel) mods += 'k';
    if (!a.exclude_user) mods += 'u';
    if (!a.exclude_hv) mods += 'h';
    exclude_guest_default = true;
  }
  if (a.precise_ip) {
    mods.append(std::min<unsigned>(a.precise_ip, 3), 'p');
    exclude_guest_default = true;
  }
  if (a.exclude_host || static_cast<bool>(a.exclude_guest) == exclude_guest_default) {
    if (!a.exclude_host) mods += 'H';
    if (!a.exclude_guest) mods += 'G';
  }
  if (mods.empty()) return base;
  return base + ":" + mods;
}

std::string user_only_name(const std::string& name) {
  if (!name.empty() && name.back() == '/') return name + "u";
  if (name.find(':') == std::string::npos && name.find('/') == std::string::npos) {
    return name + ":u";
  }
  return name;
}

}  // namespace perfx::event
