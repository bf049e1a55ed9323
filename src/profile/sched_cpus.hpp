#pragma once
/// \file
/// Per-cpu state for the sched analyses (latency, map, timehist): a switch event's cpu as
/// an index, and tables that grow to hold it (a recording may name cpus past nr_cpus).

#include <cstddef>
#include <optional>
#include <utility>
#include <vector>

#include "perfx/sched.hpp"

namespace perfx::profile {

/// `ev.cpu` as an index into per-cpu tables; nullopt outside [0, kSchedMaxCpus).
[[nodiscard]] inline std::optional<std::size_t> sched_cpu(const SchedEvent& ev) noexcept {
  if (ev.cpu < 0 || ev.cpu >= kSchedMaxCpus) return std::nullopt;
  return static_cast<std::size_t>(ev.cpu);
}

/// A per-cpu table of `size` slots holding `init`, grown (with `init`) by operator[].
template <typename T>
class PerCpu {
 public:
  PerCpu(std::size_t size, T init) : slots_(size, init), init_(std::move(init)) {}

  T& operator[](std::size_t cpu) {
    if (cpu >= slots_.size()) slots_.resize(cpu + 1, init_);
    return slots_[cpu];
  }
  [[nodiscard]] std::size_t size() const noexcept { return slots_.size(); }
  auto begin() noexcept { return slots_.begin(); }
  auto end() noexcept { return slots_.end(); }

 private:
  std::vector<T> slots_;
  T init_;
};

}  // namespace perfx::profile
