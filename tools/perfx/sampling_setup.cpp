#include "sampling_setup.hpp"

#include <fmt/core.h>
#include <linux/perf_event.h>
#include <unistd.h>

#include <bit>
#include <cerrno>
#include <cstdlib>

#include "core/error_format.hpp"
#include "core/x86_regs.hpp"
#include "event/parse.hpp"
#include "sys/event_resolver.hpp"
#include "sys/process.hpp"
#include "sys/system_info.hpp"

namespace perfx::cli {

Result<EventChoices> parse_event_choices(const std::vector<std::string>& specs) {
  EventChoices out;
  std::string spec;
  for (const auto& e : specs) spec += (spec.empty() ? "" : ",") + e;
  out.default_event = specs.empty();
  if (out.default_event) spec = "cycles";
  PERFX_TRY(groups, event::parse_event_list(spec, sys::system_resolver()));
  out.specs = std::move(groups);
  for (const auto& g : out.specs) {
    const int leader = static_cast<int>(out.events.size());
    for (std::size_t i = 0; i < g.events.size(); ++i) {
      const auto& ev = g.events[i];
      EventChoice c;
      c.name = ev.name;
      c.canonical = ev.canonical;
      c.attr = ev.attr_for_open();  // after the move into `out`: its strings stay put
      c.kind = ev.kind;
      c.default_period = ev.default_period;
      c.period_from_term = ev.period_from_term;
      c.is_default = out.default_event;
      c.group_leader = (g.is_group && i > 0) ? leader : -1;
      c.explicit_privilege = ev.explicit_privilege;
      out.events.push_back(std::move(c));
    }
  }
  return out;
}

Result<Sampler> open_with_fallback(EventChoices& choices,
                                   const std::function<SamplerOptions()>& options_for, bool verbose,
                                   bool quiet) {
  auto sampler = Sampler::open(options_for());
  auto& first = choices.events.front();
  if (!sampler && choices.default_event && first.attr.type == PERF_TYPE_HARDWARE &&
      (sampler.error().sys_errno() == ENOENT || sampler.error().sys_errno() == EOPNOTSUPP ||
       sampler.error().sys_errno() == ENODEV)) {
    if (verbose) {
      fmt::print(stderr,
                 "Warning:\nThe cycles event is not supported, trying to fall back to "
                 "cpu-clock\n");
    }
    first.name = "cpu-clock";
    first.attr.type = PERF_TYPE_SOFTWARE;
    first.attr.config = PERF_COUNT_SW_CPU_CLOCK;
    first.kind = event::EventKind::kSoftware;
    sampler = Sampler::open(options_for());
  }
  const int err = sampler ? 0 : sampler.error().sys_errno();
  if (err == EACCES || err == EPERM) {
    // perf's evsel__fallback(): kernel samples are not allowed for this user, user-space
    // ones may be. perf says so only with -v; perfx always does (unless -q), since the
    // profile then lacks the kernel.
    const auto paranoid = sys::read_int_file("/proc/sys/kernel/perf_event_paranoid");
    std::vector<std::size_t> changed;
    if (paranoid && *paranoid >= 2) {
      for (std::size_t i = 0; i < choices.events.size(); ++i) {
        const auto& a = choices.events[i].attr;
        if (a.exclude_kernel == 0 && a.exclude_user == 0 && !choices.events[i].explicit_privilege)
          changed.push_back(i);
      }
    }
    if (!changed.empty()) {
      std::vector<EventChoice> before = choices.events;
      std::string names;
      for (std::size_t i : changed) {
        auto& c = choices.events[i];
        c.attr.exclude_kernel = 1;
        c.attr.exclude_hv = 1;
        c.name = user_only_name(c.name);
        const bool tracking =
            c.attr.type == PERF_TYPE_SOFTWARE && c.attr.config == PERF_COUNT_SW_DUMMY;
        if (!tracking) names += (names.empty() ? "" : ", ") + c.name;
      }
      auto retry = Sampler::open(options_for());
      if (retry) {
        if (!quiet) {
          fmt::print(stderr,
                     "perfx: perf_event_paranoid is {}, which does not let this user sample the "
                     "kernel: recording user space only ({}), as perf does. For kernel samples "
                     "too, run as root or lower kernel.perf_event_paranoid to 1.\n",
                     *paranoid, names);
        }
        return retry;
      }
      choices.events = std::move(before);  // the first error says what kernel sampling needs
    }
  }
  return sampler;
}

std::string user_only_name(const std::string& name) {
  if (!name.empty() && name.back() == '/') return name + "u";
  if (name.find(':') == std::string::npos && name.find('/') == std::string::npos) {
    return name + ":u";
  }
  return name;
}

Result<TaskTarget> resolve_task_target(const std::string& pids, const std::string& tids) {
  TaskTarget t;
  if (!pids.empty()) {
    PERFX_TRY(list, sys::parse_pid_list(pids));
    for (pid_t p : list) {
      PERFX_TRY(threads, sys::process_threads(p));
      t.tasks.insert(t.tasks.end(), threads.begin(), threads.end());
      t.synth_pids.push_back(p);
    }
  }
  if (!tids.empty()) {
    PERFX_TRY(list, sys::parse_pid_list(tids));
    for (pid_t tid : list) {
      t.tasks.push_back(tid);
      auto status = sys::read_text_file(fmt::format("/proc/{}/status", tid));
      if (!status) return fail(Errc::kNotFound, "no thread with tid {}", tid);
      const auto pos = status->find("\nTgid:");
      pid_t tgid = tid;
      if (pos != std::string::npos) tgid = std::atoi(status->c_str() + pos + 6);
      t.synth_pids.push_back(tgid);
    }
  }
  return t;
}

Result<std::size_t> parse_mmap_pages(const std::string& text, bool& rounded) {
  rounded = false;
  if (text.empty()) return std::size_t{0};
  char* end = nullptr;
  const unsigned long long n = std::strtoull(text.c_str(), &end, 10);
  if (end == text.c_str()) {
    return fail(Errc::kInvalidArgument, "-m '{}': expected pages or a size like 512K", text);
  }
  std::uint64_t pages = n;
  const std::string unit(end);
  const std::uint64_t page = static_cast<std::uint64_t>(::sysconf(_SC_PAGESIZE));
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

std::optional<long long> max_sample_rate() {
  auto v = sys::read_int_file("/proc/sys/kernel/perf_event_max_sample_rate");
  if (!v) return std::nullopt;
  return *v;
}

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

Result<CallGraph> parse_call_graph(bool fp_flag, std::string_view v) {
  CallGraph cg;
  if (fp_flag) cg.mode = CallGraph::kFp;
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

}  // namespace perfx::cli
