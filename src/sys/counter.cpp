// CounterSet: the counting half of perf_event_open (include/perfx/counter.hpp).

#include "perfx/counter.hpp"

#include <linux/perf_event.h>
#include <unistd.h>

#include <atomic>
#include <cerrno>
#include <cstring>
#include <optional>

#include <fmt/format.h>

#include "core/enum_names.hpp"
#include "core/error_format.hpp"
#include "event/record_plan.hpp"
#include "perfx/event_handle.hpp"
#include "sys/breakpoint_check.hpp"
#include "sys/counter_read.hpp"
#include "sys/explain.hpp"
#include "sys/ioctl.hpp"
#include "sys/perf_event_open.hpp"
#include "sys/unique_fd.hpp"

namespace perfx {

const char* trust_name(Trust trust) noexcept {
  static constexpr const char* kNames[] = {"counted", "scaled", "not counted", "not supported",
                                           "cannot fire"};
  static_assert(std::size(kNames) == static_cast<std::size_t>(Trust::kCannotFire) + 1);
  return core::enum_name(kNames, trust, "?");
}

std::string explain_count(const Count& c) {
  switch (c.trust) {
    case Trust::kCounted:
      return "counted";
    case Trust::kScaled:
      return fmt::format(
          "multiplexed: ran {:.2f}% of the time it was enabled, value scaled from {} to "
          "an estimate",
          c.running_pct, c.raw);
    case Trust::kNotSupported:
      return "not supported: the event could not be opened on this machine";
    case Trust::kCannotFire:
      return "cannot fire: the event opened but this machine never delivers it, so its "
             "value says nothing about the program";
    case Trust::kNotCounted:
      if (c.time_enabled == 0) {
        return "not counted: never enabled (time_enabled 0): enable the event (or let the "
               "workload exec with enable_on_exec) before reading";
      }
      return fmt::format(
          "not counted: enabled {} ns but never scheduled on the PMU (time_running 0): "
          "the counters were busy, or the task never ran while enabled",
          c.time_enabled);
  }
  return "?";
}

RawCount& RawCount::operator+=(const RawCount& o) noexcept {
  value += o.value;
  time_enabled += o.time_enabled;
  time_running += o.time_running;
  lost += o.lost;
  return *this;
}

RawCount operator-(const RawCount& now, const RawCount& before) noexcept {
  auto sub = [](std::uint64_t a, std::uint64_t b) { return a >= b ? a - b : 0; };
  return RawCount{sub(now.value, before.value), sub(now.time_enabled, before.time_enabled),
                  sub(now.time_running, before.time_running), sub(now.lost, before.lost)};
}

Count scale_count(const RawCount& c) noexcept {
  Count out;
  out.raw = c.value;
  out.time_enabled = c.time_enabled;
  out.time_running = c.time_running;
  out.lost = c.lost;
  if (c.time_running == 0 || c.time_enabled == 0) {
    out.trust = Trust::kNotCounted;
    out.value = 0;
    out.running_pct = 0;
    return out;
  }
  if (c.time_running < c.time_enabled) {
    out.trust = Trust::kScaled;
    out.value = static_cast<double>(c.value) * static_cast<double>(c.time_enabled) /
                static_cast<double>(c.time_running);
    out.running_pct =
        100.0 * static_cast<double>(c.time_running) / static_cast<double>(c.time_enabled);
    return out;
  }
  out.trust = Trust::kCounted;
  out.value = static_cast<double>(c.value);
  out.running_pct = 100.0;
  return out;
}

Count sum_counts(std::span<const RawCount> instances) noexcept {
  Count out;
  bool any_ran = false;
  bool any_scaled = false;
  for (const RawCount& c : instances) {
    const Count s = scale_count(c);
    out.raw += c.value;
    out.time_enabled += c.time_enabled;
    out.time_running += c.time_running;
    out.lost += c.lost;
    if (s.trust == Trust::kNotCounted) continue;
    any_ran = true;
    any_scaled = any_scaled || s.trust == Trust::kScaled;
    out.value += s.value;
  }
  if (!any_ran) {
    out.trust = Trust::kNotCounted;
    out.running_pct = 0;
    return out;
  }
  out.trust = any_scaled ? Trust::kScaled : Trust::kCounted;
  out.running_pct = out.time_enabled == 0 ? 100.0
                                          : 100.0 * static_cast<double>(out.time_running) /
                                                static_cast<double>(out.time_enabled);
  if (!any_scaled) out.running_pct = 100.0;
  return out;
}

CountTarget CountTarget::self() { return CountTarget{}; }

CountTarget CountTarget::tasks(std::vector<pid_t> tids) {
  CountTarget t;
  t.threads = std::move(tids);
  return t;
}

CountTarget CountTarget::workload(pid_t pid) {
  CountTarget t;
  t.threads = {pid};
  t.inherit = true;
  t.enable_on_exec = true;
  return t;
}

CountTarget CountTarget::system_wide(std::vector<int> cpus) {
  CountTarget t;
  t.kind = Kind::kSystemWide;
  t.threads = {-1};
  t.cpus = std::move(cpus);
  t.inherit = false;
  return t;
}

CountTarget CountTarget::cgroup(int cgroup_fd, std::vector<int> cpus) {
  CountTarget t;
  t.kind = Kind::kCgroup;
  t.threads = {-1};
  t.cpus = std::move(cpus);
  t.cgroup_fd = cgroup_fd;
  t.inherit = false;
  return t;
}

namespace {

/// An event that cannot fire here is never "counted", whatever it read.
Count with_event_trust(const CounterSnapshot::Event& e, Count c) {
  if (e.cannot_fire) c.trust = Trust::kCannotFire;
  return c;
}

/// The sum of the instances of `e` that `pick(e, part)` appends to `part` (a cpu's, a
/// thread's); an event not supported here has no count.
template <typename Pick>
Count sum_of_some(const CounterSnapshot::Event& e, Pick&& pick) {
  if (!e.supported) {
    Count c;
    c.trust = Trust::kNotSupported;
    return c;
  }
  std::vector<RawCount> part;
  pick(e, part);
  return with_event_trust(e, sum_counts(part));
}

}  // namespace

Count CounterSnapshot::total(std::size_t ev) const {
  const Event& e = events.at(ev);
  if (!e.supported) {
    Count c;
    c.trust = Trust::kNotSupported;
    c.running_pct = 0;
    return c;
  }
  return with_event_trust(e, sum_counts(e.instances));
}

Count CounterSnapshot::for_cpu(std::size_t ev, std::size_t cpu_index) const {
  return for_cpus(ev, std::span(&cpu_index, 1));
}

Count CounterSnapshot::for_cpus(std::size_t ev, std::span<const std::size_t> cpu_indices) const {
  const std::size_t nt = threads.size();
  return sum_of_some(events.at(ev), [&](const Event& e, std::vector<RawCount>& part) {
    for (std::size_t ci : cpu_indices)
      for (std::size_t t = 0; t < nt; ++t) part.push_back(e.instances.at(ci * nt + t));
  });
}

Count CounterSnapshot::for_thread(std::size_t ev, std::size_t thread_index) const {
  const std::size_t nt = threads.size();
  return sum_of_some(events.at(ev), [&](const Event& e, std::vector<RawCount>& part) {
    for (std::size_t c = 0; c < cpus.size(); ++c) {
      part.push_back(e.instances.at(c * nt + thread_index));
    }
  });
}

CounterSnapshot delta(const CounterSnapshot& now, const CounterSnapshot& before) {
  CounterSnapshot out = now;
  for (std::size_t e = 0; e < out.events.size() && e < before.events.size(); ++e) {
    auto& inst = out.events[e].instances;
    const auto& prev = before.events[e].instances;
    for (std::size_t i = 0; i < inst.size() && i < prev.size(); ++i) inst[i] = inst[i] - prev[i];
  }
  return out;
}

// ---------------------------------------------------------------- CounterSet

namespace {

/// PERF_FORMAT_LOST arrived in Linux 6.0; older kernels reject the bit with EINVAL.
std::atomic<bool> g_lost_format_ok{true};

/// What CounterSet needs whatever the caller asked: the times (scaling, "never ran")
/// and the ids (matching group members in a group read).
constexpr std::uint64_t kBaseFormat =
    PERF_FORMAT_TOTAL_TIME_ENABLED | PERF_FORMAT_TOTAL_TIME_RUNNING | PERF_FORMAT_ID;
#ifdef PERF_FORMAT_LOST
constexpr std::uint64_t kLostFormat = PERF_FORMAT_LOST;
#else
constexpr std::uint64_t kLostFormat = 1U << 4;
#endif

/// One opened fd of one event.
struct Member {
  std::size_t event = 0;  // index into snapshot events
  sys::UniqueFd fd;
  std::uint64_t id = 0;
};

/// One group (or lone event) on one (cpu, thread).
struct GroupInstance {
  std::size_t instance = 0;       // cpu_index * nthreads + thread_index
  std::uint64_t read_format = 0;  // the leader's, as opened: the layout of read()
  std::vector<Member> members;    // members[0] is the leader
};

}  // namespace

struct CounterSet::Impl {
  CounterSnapshot shape;  // names, attrs, supported flags, cpus, threads
  std::vector<GroupInstance> groups;
};

CounterSet::CounterSet(std::unique_ptr<Impl> impl) noexcept : impl_(std::move(impl)) {}
CounterSet::CounterSet(CounterSet&&) noexcept = default;
CounterSet& CounterSet::operator=(CounterSet&&) noexcept = default;
CounterSet::~CounterSet() = default;

namespace {

/// Opens with the PERF_FORMAT_LOST fallback.
Result<sys::UniqueFd> open_one(raw::EventAttr& attr, pid_t pid, int cpu, int group_fd,
                               unsigned long flags) {
  if (!g_lost_format_ok.load(std::memory_order_relaxed)) attr.read_format &= ~kLostFormat;
  auto fd = sys::perf_event_open_fallback(attr, pid, cpu, group_fd, flags);
  if (!fd && fd.error().sys_errno() == EINVAL && (attr.read_format & kLostFormat) != 0) {
    raw::EventAttr retry = attr;
    retry.read_format &= ~kLostFormat;
    auto fd2 = sys::perf_event_open_fallback(retry, pid, cpu, group_fd, flags);
    if (fd2) {
      g_lost_format_ok.store(false, std::memory_order_relaxed);
      attr = retry;
      return fd2;
    }
  }
  return fd;
}

bool is_permission(int err) { return err == EACCES || err == EPERM; }

}  // namespace

Result<CounterSet> CounterSet::open(std::span<const CounterGroupSpec> groups,
                                    const CountTarget& target) {
  auto impl = std::make_unique<Impl>();
  CounterSnapshot& shape = impl->shape;

  std::vector<pid_t> threads;
  std::vector<int> cpus;
  unsigned long flags = 0;
  switch (target.kind) {
    case CountTarget::Kind::kThreads:
      threads = target.threads.empty() ? std::vector<pid_t>{0} : target.threads;
      cpus = target.cpus.empty() ? std::vector<int>{-1} : target.cpus;
      break;
    case CountTarget::Kind::kSystemWide:
      threads = {-1};
      cpus = target.cpus;
      break;
    case CountTarget::Kind::kCgroup:
      if (target.cgroup_fd < 0) {
        return fail(Errc::kInvalidArgument, "cgroup target without a cgroup directory fd");
      }
      threads = {static_cast<pid_t>(target.cgroup_fd)};
      cpus = target.cpus;
      flags = PERF_FLAG_PID_CGROUP;
      break;
  }
  if (cpus.empty()) {
    return fail(Errc::kInvalidArgument, "system-wide and cgroup counting need a CPU list");
  }
  // Breakpoints that open but never fire (some hypervisors) would read 0 as "counted".
  // The self-test runs before our own breakpoints take debug registers.
  bool silent_breakpoints = false;
  for (const CounterGroupSpec& g : groups) {
    for (const CounterEvent& ev : g.events) {
      if (ev.attr.type == PERF_TYPE_BREAKPOINT && !silent_breakpoints) {
        silent_breakpoints = sys::check_hardware_breakpoints() == sys::BreakpointCheck::kSilent;
        if (!silent_breakpoints) break;
      }
    }
  }
  for (const CounterGroupSpec& g : groups) {
    for (const CounterEvent& ev : g.events) {
      if (ev.cgroup_fd >= 0 && target.kind == CountTarget::Kind::kThreads) {
        return fail(Errc::kInvalidArgument,
                    "event '{}' counts a cgroup: that needs system-wide or CPU counting, not "
                    "threads",
                    ev.name);
      }
    }
  }
  shape.cpus = cpus;
  shape.threads = target.kind == CountTarget::Kind::kThreads ? threads : std::vector<pid_t>{-1};
  const std::size_t ninst = cpus.size() * threads.size();

  std::optional<sys::SystemReadings> readings;
  auto get_readings = [&]() -> const sys::SystemReadings& {
    if (!readings) readings = sys::read_system_readings();
    return *readings;
  };
  std::string target_hint = target.description;
  if (target_hint.empty() && target.kind == CountTarget::Kind::kSystemWide) {
    target_hint = "system-wide counting (-a)";
  }
  if (target_hint.empty() && target.kind == CountTarget::Kind::kCgroup) {
    target_hint = "cgroup counting (-G)";
  }

  for (const CounterGroupSpec& g : groups) {
    const std::size_t first_event = shape.events.size();
    for (const CounterEvent& ev : g.events) {
      CounterSnapshot::Event se;
      se.name = ev.name;
      se.attr = ev.attr;
      se.instances.assign(ninst, RawCount{});
      se.ids.assign(ninst, 0);
      if (silent_breakpoints && ev.attr.type == PERF_TYPE_BREAKPOINT) {
        se.cannot_fire = true;
        se.note = sys::kSilentBreakpointsReason;
      }
      shape.events.push_back(std::move(se));
    }
    const bool grouped = g.grouped && g.events.size() > 1;
    for (std::size_t ci = 0; ci < cpus.size(); ++ci) {
      for (std::size_t ti = 0; ti < threads.size(); ++ti) {
        const std::size_t inst = ci * threads.size() + ti;
        // A lone event is a group of one; grouped events share one GroupInstance.
        std::vector<GroupInstance> opened;
        for (std::size_t k = 0; k < g.events.size(); ++k) {
          const std::size_t ev_index = first_event + k;
          CounterSnapshot::Event& se = shape.events[ev_index];
          if (!se.supported) continue;
          if (!grouped || opened.empty()) opened.emplace_back();
          GroupInstance& gi = opened.back();
          const bool is_leader = gi.members.empty();
          raw::EventAttr attr = se.attr;
          attr.size = raw::kAttrSizeVer8;
          // The caller's read_format is kept; CounterSet adds what it needs.
          attr.read_format = se.attr.read_format | kBaseFormat |
                             (se.attr.read_format == 0 ? kLostFormat : std::uint64_t{0}) |
                             (grouped ? std::uint64_t{PERF_FORMAT_GROUP} : std::uint64_t{0});
          attr.disabled = is_leader ? 1 : 0;  // kernel behaviour 5
          attr.enable_on_exec = (is_leader && target.enable_on_exec) ? 1 : 0;
          const int group_fd = is_leader ? -1 : gi.members.front().fd.get();
          const int own_cgroup = g.events[k].cgroup_fd;
          // As perf stat: inherit on task and CPU-wide counters alike (the kernel ignores
          // it for pid -1), never on a cgroup's.
          const bool cgroup = target.kind == CountTarget::Kind::kCgroup || own_cgroup >= 0;
          attr.inherit = (target.inherit && !cgroup) ? 1 : 0;
          const pid_t pid = own_cgroup >= 0 ? static_cast<pid_t>(own_cgroup) : threads[ti];
          const unsigned long ev_flags = own_cgroup >= 0 ? PERF_FLAG_PID_CGROUP : flags;
          const int cpu = cpus[ci];
          auto fd = open_one(attr, pid, cpu, group_fd, ev_flags);
          bool auto_user = false;  // the failing open is perfx's automatic ':u' retry
          if (!fd && is_permission(fd.error().sys_errno()) &&
              target.kind == CountTarget::Kind::kThreads && attr.exclude_kernel == 0 &&
              g.events[k].allow_user_only_fallback) {
            raw::EventAttr user = attr;
            user.exclude_kernel = 1;
            user.exclude_hv = 1;
            auto fd2 = open_one(user, pid, cpu, group_fd, ev_flags);
            // On failure too, explain the user-only attempt: kernel counting was then
            // not the only problem (e.g. another user's process, or a PMU without
            // privilege filtering such as msr). Like perf, the event keeps its ':u' name
            // either way, so a <not supported> line shows what was tried.
            auto_user = !fd2.has_value();
            fd = std::move(fd2);
            attr = user;
            if (se.attr.exclude_kernel == 0) {
              se.attr.exclude_kernel = 1;
              se.attr.exclude_hv = 1;
              se.name = event::user_only_name(se.name);
            }
          }
          if (!fd) {
            const int err = fd.error().sys_errno();
            sys::OpenRequest req;
            req.attr = attr;
            req.event_name = se.name;
            req.pid = pid;
            req.cpu = cpu;
            req.group_fd = group_fd;
            req.flags = ev_flags;
            req.target_hint = target_hint;
            req.auto_user_only = auto_user;
            if (err == EINVAL) {
              // A field the caller set wrong is an error, not "<not supported>".
              if (auto field = sys::attr_field_error(req)) {
                return tl::unexpected(Error(Errc::kInvalidArgument,
                                            fmt::format("opening event '{}': {}", se.name, *field),
                                            EINVAL));
              }
            }
            Error e = err != 0 ? sys::explain_open_error(err, req, get_readings()) : fd.error();
            if (err != 0 && sys::is_unsupported_event_errno(err)) {
              se.supported = false;
              se.error = e.message();
              se.attr = attr;  // as tried: a stat file records it (perf's attr too)
              continue;
            }
            return tl::unexpected(std::move(e));
          }
          Member m;
          m.event = ev_index;
          m.fd = std::move(*fd);
          auto id = sys::ioc_id(m.fd.get());
          if (!id)
            return tl::unexpected(
                std::move(id).error().context(fmt::format("event '{}'", se.name)));
          m.id = *id;
          se.ids[inst] = *id;
          se.attr = attr;  // as opened (read_format, disabled, inherit, ...)
          gi.instance = inst;
          if (is_leader) gi.read_format = attr.read_format;
          gi.members.push_back(std::move(m));
        }
        for (auto& gi : opened) {
          if (!gi.members.empty()) impl->groups.push_back(std::move(gi));
        }
      }
    }
  }
  return CounterSet(std::move(impl));
}

Result<void> CounterSet::enable() {
  for (auto& g : impl_->groups) {
    PERFX_CHECK(sys::ioc_enable(g.members.front().fd.get()));
  }
  return {};
}

Result<void> CounterSet::disable() {
  for (auto& g : impl_->groups) {
    PERFX_CHECK(sys::ioc_disable(g.members.front().fd.get()));
  }
  return {};
}

Result<void> CounterSet::reset() {
  for (auto& g : impl_->groups) {
    PERFX_CHECK(sys::ioc_reset(g.members.front().fd.get(), sys::IocScope::kGroup));
  }
  return {};
}

Result<CounterSnapshot> CounterSet::read() const {
  CounterSnapshot snap = impl_->shape;
  std::vector<sys::GroupMemberRef> refs;
  for (const auto& g : impl_->groups) {
    const Member& leader = g.members.front();
    auto r = EventHandle(leader.fd.get()).read(g.read_format, g.members.size());
    if (!r) {
      return tl::unexpected(
          std::move(r).error().context(fmt::format("event '{}'", snap.events[leader.event].name)));
    }
    refs.clear();
    for (const Member& m : g.members) refs.push_back({m.event, m.id});
    PERFX_CHECK(sys::apply_group_read(snap, refs, g.instance, *r));
  }
  return snap;
}

std::vector<EventHandle> CounterSet::handles(std::size_t ev) const {
  std::vector<EventHandle> out(impl_->shape.events.at(ev).instances.size());
  for (const auto& g : impl_->groups) {
    for (const Member& m : g.members) {
      if (m.event == ev) out.at(g.instance) = EventHandle(m.fd.get());
    }
  }
  return out;
}

std::vector<EventHandle> CounterSet::leaders() const {
  std::vector<EventHandle> out;
  out.reserve(impl_->groups.size());
  for (const auto& g : impl_->groups) out.emplace_back(g.members.front().fd.get());
  return out;
}

std::vector<std::uint64_t> CounterSet::ids(std::size_t ev) const {
  return impl_->shape.events.at(ev).ids;
}

std::size_t CounterSet::size() const noexcept { return impl_->shape.events.size(); }

std::size_t CounterSet::fd_count() const noexcept {
  std::size_t n = 0;
  for (const auto& g : impl_->groups) n += g.members.size();
  return n;
}

}  // namespace perfx
