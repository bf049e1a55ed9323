#include "profile/live_counts.hpp"

#include <fmt/format.h>
#include <linux/perf_event.h>

#include <algorithm>
#include <tuple>

#include "core/c_hex.hpp"
#include "core/error_format.hpp"
#include "record/decoder.hpp"

namespace perfx::profile {
namespace {

// perf 6.1's symbol__is_idle(): kernel functions where an idle CPU sits.
bool is_idle(std::string_view name) {
  static constexpr std::string_view kIdle[] = {
      "acpi_idle_do_entry",
      "acpi_processor_ffh_cstate_enter",
      "arch_cpu_idle",
      "cpu_idle",
      "cpu_startup_entry",
      "idle_cpu",
      "intel_idle",
      "intel_idle_ibrs",
      "default_idle",
      "native_safe_halt",
      "enter_idle",
      "exit_idle",
      "mwait_idle",
      "mwait_idle_with_hints",
      "mwait_idle_with_hints.constprop.0",
      "poll_idle",
      "ppc64_runlatch_off",
      "pseries_dedicated_idle_sleep",
      "psw_idle",
      "psw_idle_exit",
  };
  return std::find(std::begin(kIdle), std::end(kIdle), name) != std::end(kIdle);
}

constexpr std::uint64_t kUnresolved = std::uint64_t{1} << 63;

}  // namespace

namespace {

constexpr std::pair<std::string_view, LiveKey> kLiveKeys[] = {{"comm", LiveKey::kComm},
                                                              {"pid", LiveKey::kPid},
                                                              {"dso", LiveKey::kDso},
                                                              {"sym", LiveKey::kSym}};

}  // namespace

std::string_view live_key_name(LiveKey key) noexcept {
  for (const auto& [name, k] : kLiveKeys)
    if (k == key) return name;
  return {};
}

Result<std::vector<LiveKey>> parse_live_keys(std::string_view list) {
  std::vector<LiveKey> keys;
  while (!list.empty()) {
    const auto comma = list.find(',');
    const std::string_view k = list.substr(0, comma);
    list = comma == std::string_view::npos ? std::string_view{} : list.substr(comma + 1);
    if (k.empty()) continue;
    const auto* known = std::find_if(std::begin(kLiveKeys), std::end(kLiveKeys),
                                     [&](const auto& e) { return e.first == k; });
    if (known == std::end(kLiveKeys))
      return fail(Errc::kInvalidArgument, "unknown sort key '{}' (valid: comm, pid, dso, sym)", k);
    if (std::find(keys.begin(), keys.end(), known->second) == keys.end())
      keys.push_back(known->second);
  }
  if (keys.empty()) return fail(Errc::kInvalidArgument, "--sort needs at least one key");
  return keys;
}

std::size_t LiveCounts::KeyHash::operator()(const Key& k) const noexcept {
  std::size_t h = 0xcbf29ce484222325ULL;
  for (auto x : k) h = (h ^ x) * 0x100000001b3ULL;
  return h;
}

LiveCounts::LiveCounts(record::AttrTable attrs, std::vector<LiveKey> keys,
                       symbol::SearchPaths paths)
    : attrs_(std::move(attrs)), keys_(std::move(keys)), machine_(std::move(paths)) {}

void LiveCounts::add(std::span<const std::byte> record) {
  if (record.size() < sizeof(perf_event_header)) return;  // a torn record
  order_.emplace_back(attrs_.time_of_record(record, false), queued_.size());
  queued_.insert(queued_.end(), record.begin(), record.end());
}

void LiveCounts::flush() {
  std::stable_sort(order_.begin(), order_.end(),
                   [](const auto& a, const auto& b) { return a.first < b.first; });
  for (const auto& [time, off] : order_) {
    std::uint16_t size = 0;
    __builtin_memcpy(&size, queued_.data() + off + 6, 2);
    apply(std::span<const std::byte>(queued_).subspan(off, size));
  }
  order_.clear();
  queued_.clear();
}

void LiveCounts::apply(std::span<const std::byte> bytes) {
  if (!record::decode_record(bytes, attrs_, {}, decoded_)) return;
  symbol::ThreadState* thread = apply_record(machine_, decoded_);
  if (const auto* l = decoded_.get<record::Lost>()) {
    interval_.lost += l->lost;
    lost_total_ += l->lost;
  }
  if (const auto* s = decoded_.get<record::Sample>(); s != nullptr && thread != nullptr)
    count(*s, decoded_.header.misc, *thread);
}

void LiveCounts::count(const record::Sample& s, std::uint16_t misc, const symbol::ThreadState& t) {
  ++interval_.samples;
  const bool kernel = (misc & PERF_RECORD_MISC_CPUMODE_MASK) == PERF_RECORD_MISC_KERNEL;
  if (kernel) ++interval_.kernel_samples;
  if (misc & PERF_RECORD_MISC_EXACT_IP) ++interval_.exact_samples;
  if (kernel ? hide_kernel_ : hide_user_) return;
  sample_locations(machine_, t, s, misc, callchains_, table_, locs_);
  if (locs_.empty()) return;
  const Location& loc = table_.location(locs_[0]);
  const Resolved& res = table_.resolve(locs_[0], false, InlineMode::kNone);
  if (res.sym != nullptr && loc.kernel && is_idle(res.sym->name)) return;
  if (callchains_) {
    count_chain(s, t, loc.kernel);
    return;
  }

  Key key{};
  for (std::size_t i = 0; i < keys_.size(); ++i) {
    switch (keys_[i]) {
      case LiveKey::kComm:
        key[i] = comm_ids_.try_emplace(t.comm, comm_ids_.size()).first->second;
        break;
      case LiveKey::kPid:
        key[i] = static_cast<std::uint32_t>(t.tid);
        break;
      case LiveKey::kDso:
        key[i] = reinterpret_cast<std::uintptr_t>(loc.dso);
        break;
      case LiveKey::kSym:
        key[i] = res.sym != nullptr ? reinterpret_cast<std::uintptr_t>(res.sym)
                                    : (kUnresolved | loc.map_addr);
        break;
    }
  }
  auto [it, added] = entries_.try_emplace(key);
  Entry& e = it->second;
  if (added) {
    LiveRow& r = e.row;
    r.comm = t.comm;
    r.tid = t.tid;
    r.kernel = loc.kernel;
    r.resolved = res.sym != nullptr;
    if (loc.dso == nullptr)
      r.dso = "[unknown]";
    else
      r.dso = loc.dso->kind() == symbol::DsoKind::kKernel ? "[kernel]" : loc.dso->short_name();
    const char level = loc.kernel ? 'k' : '.';
    r.symbol = fmt::format(
        "[{}] {}", level,
        res.sym != nullptr ? std::string(res.sym->name) : core::c_alt_hex18(loc.map_addr));
  }
  e.add(s.period);
}

std::vector<LiveRow> LiveCounts::refresh(bool zero) {
  std::vector<LiveRow> rows;
  for (auto it = entries_.begin(); it != entries_.end();) {
    // perf decays (or deletes) what was shown before, then merges the new samples in.
    Entry& e = it->second;
    if (!e.refresh(zero) || (e.row.kernel ? hide_kernel_ : hide_user_)) {
      it = entries_.erase(it);
      continue;
    }
    LiveRow r = e.row;
    r.period = e.period;
    r.samples = e.samples;
    rows.push_back(std::move(r));
    ++it;
  }
  std::sort(rows.begin(), rows.end(), [](const LiveRow& a, const LiveRow& b) {
    if (a.period != b.period) return a.period > b.period;
    return std::tie(a.comm, a.tid, a.dso, a.symbol) < std::tie(b.comm, b.tid, b.dso, b.symbol);
  });
  return rows;
}

void LiveCounts::count_chain(const record::Sample& s, const symbol::ThreadState& t, bool kernel) {
  auto [sit, new_stack] = stack_ids_.try_emplace(locs_, static_cast<std::uint32_t>(stacks_.size()));
  if (new_stack) stacks_.push_back(&sit->first);
  auto [tit, new_thread] = thread_ids_.try_emplace(fmt::format("{} {}", t.tid, t.comm),
                                                   static_cast<std::uint32_t>(threads_.size()));
  if (new_thread) threads_.push_back(Thread{t.pid, t.tid, t.comm});
  Chain& c = chains_[static_cast<std::uint64_t>(sit->second) << 32 | tit->second];
  c.stack = sit->second;
  c.thread = tit->second;
  c.kernel = kernel;
  c.add(s.period);
}

Profile LiveCounts::refresh_profile(bool zero, const std::string& event) {
  Profile prof;
  Event ev{event, event_unit(event)};
  ev.has_callchain = true;
  // The stacks still shown, renumbered in the order of their ids.
  std::vector<std::uint32_t> stack_of(stacks_.size(), UINT32_MAX);
  std::vector<const std::vector<std::uint32_t>*> shown;
  for (auto it = chains_.begin(); it != chains_.end();) {
    Chain& c = it->second;
    if (!c.refresh(zero) || (c.kernel ? hide_kernel_ : hide_user_)) {
      it = chains_.erase(it);
      continue;
    }
    stack_of[c.stack] = 0;
    ++it;
  }
  for (std::size_t i = 0; i < stacks_.size(); ++i) {
    if (stack_of[i] == UINT32_MAX) continue;
    stack_of[i] = static_cast<std::uint32_t>(shown.size());
    shown.push_back(stacks_[i]);
  }
  for (const auto& [key, c] : chains_) {
    Sample out;
    out.stack = stack_of[c.stack];
    out.thread = c.thread;
    out.period = c.period;
    out.count = static_cast<std::uint32_t>(std::clamp<std::uint64_t>(c.samples, 1, UINT32_MAX));
    prof.samples.push_back(out);
    ev.total_samples += c.samples;
    ev.total_period += c.period;
  }
  // Samples in a fixed order (the report's ties do not depend on the hash map's).
  std::sort(prof.samples.begin(), prof.samples.end(), [](const Sample& a, const Sample& b) {
    return std::tie(a.stack, a.thread) < std::tie(b.stack, b.thread);
  });
  table_.resolve_all(false, InlineMode::kNone, 1);
  add_location_frames(table_, shown, prof);
  for (auto& f : prof.frames)  // perf top's name for the kernel's map
    if (f.kind == FrameKind::kKernel && f.dso == "[kernel.kallsyms]") f.dso = "[kernel]";
  prof.threads = threads_;
  prof.events.push_back(std::move(ev));
  return prof;
}

LiveInterval LiveCounts::take_interval() {
  const LiveInterval i = interval_;
  interval_ = {};
  return i;
}

}  // namespace perfx::profile
