#include "profile/off_cpu.hpp"

#include <cstring>

namespace perfx::profile {
namespace {

template <typename T>
T load(std::span<const std::byte> raw, std::size_t at) {
  T v{};
  std::memcpy(&v, raw.data() + at, sizeof v);
  return v;
}

}  // namespace

std::optional<SchedSwitch> decode_sched_switch(std::span<const std::byte> raw) {
  if (raw.size() < 64) return std::nullopt;
  SchedSwitch s;
  s.prev_pid = load<std::int32_t>(raw, 24);
  s.prev_state = load<std::int64_t>(raw, 32);
  s.next_pid = load<std::int32_t>(raw, 56);
  return s;
}

void OffCpuTracker::switch_out(std::int32_t tid, std::uint64_t time, bool blocked,
                               std::uint32_t stack, std::uint32_t thread, std::uint16_t cpu) {
  if (tid <= 0) return;  // the idle task is never "off CPU"
  OffCpuInterval& iv = open_[tid];
  iv = OffCpuInterval{stack, thread, cpu, time, 0, blocked};
}

std::optional<OffCpuInterval> OffCpuTracker::switch_in(std::int32_t tid, std::uint64_t time) {
  auto it = open_.find(tid);
  if (it == open_.end()) return std::nullopt;
  OffCpuInterval iv = it->second;
  open_.erase(it);
  if (time < iv.start_ns) {
    ++unpaired_;
    return std::nullopt;
  }
  iv.duration_ns = time - iv.start_ns;
  return iv;
}

}  // namespace perfx::profile
