// Sample timestamps to wall time (perf_event_open(2), "time_zero" and "use_clockid").
// With cap_user_time_zero the kernel publishes how its perf clock relates to the TSC, and
// perfx ties both to CLOCK_MONOTONIC and wall time. Without it (VMs whose sched_clock is
// not the TSC, like our CI machine) the fallback is use_clockid: the events are opened
// with CLOCK_MONOTONIC, so their timestamps convert to wall time directly.
//
//   $ build/examples/example_timestamps_to_wall_time
//   perf clock -> TSC not available: cap_user_time_zero is 0 in the metadata page: ...
//   using use_clockid (CLOCK_MONOTONIC) for the samples
//   sample at 12.345678901 s (CLOCK_MONOTONIC) = 2026-11-27 05:12:01.123456789 UTC

#include <linux/perf_event.h>

#include <cstdio>
#include <cstring>
#include <ctime>
#include <span>
#include <vector>

#include "perfx/sampler.hpp"
#include "perfx/self_monitor.hpp"
#include "perfx/time_conv.hpp"

namespace {

void print_wall(std::uint64_t wall_ns) {
  const auto secs = static_cast<std::time_t>(wall_ns / 1'000'000'000ULL);
  std::tm tm{};
  ::gmtime_r(&secs, &tm);
  char buf[32];
  std::strftime(buf, sizeof buf, "%Y-%m-%d %H:%M:%S", &tm);
  std::printf("%s.%09llu UTC", buf, static_cast<unsigned long long>(wall_ns % 1'000'000'000ULL));
}

}  // namespace

int main() {
  // Any event's metadata page says whether the perf clock can be related to the TSC.
  perfx::raw::EventAttr probe{};
  probe.type = PERF_TYPE_SOFTWARE;
  probe.config = PERF_COUNT_SW_DUMMY;
  auto mon = perfx::SelfMonitor::open(probe);
  if (!mon) {
    std::fprintf(stderr, "timestamps_to_wall_time: %s\n", mon.error().message().c_str());
    return 1;
  }
  auto conv = perfx::time_converter_for_perf_clock(mon->page());
  const bool use_clockid = !conv;
  if (use_clockid) {
    std::printf("perf clock -> TSC not available: %s\n", conv.error().message().c_str());
    std::printf("using use_clockid (CLOCK_MONOTONIC) for the samples\n");
    conv = perfx::time_converter_for_clockid(CLOCK_MONOTONIC);
    if (!conv) {
      std::fprintf(stderr, "timestamps_to_wall_time: %s\n", conv.error().message().c_str());
      return 1;
    }
  }

  // Sample this thread's CPU time every millisecond, with timestamps.
  perfx::SamplerOptions opt;
  perfx::SamplerEvent ev;
  ev.name = "cpu-clock";
  ev.attr.type = PERF_TYPE_SOFTWARE;
  ev.attr.config = PERF_COUNT_SW_CPU_CLOCK;
  ev.attr.sample_period = 1'000'000;
  ev.attr.sample_type = PERF_SAMPLE_TIME;
  ev.attr.disabled = 1;
  if (use_clockid) perfx::set_sample_clock(ev.attr, CLOCK_MONOTONIC);
  opt.events.push_back(ev);
  opt.pids = {0};
  opt.cpus = {-1};
  opt.data_pages = 8;
  auto sampler = perfx::Sampler::open(std::move(opt));
  if (!sampler) {
    std::fprintf(stderr, "timestamps_to_wall_time: %s\n", sampler.error().message().c_str());
    return 1;
  }
  if (!sampler->enable()) return 1;
  volatile std::uint64_t x = 0;
  for (std::uint64_t i = 0; i < 30'000'000; ++i) x = x + i;
  if (!sampler->disable()) return 1;

  int shown = 0;
  auto drained = sampler->drain([&](std::span<const std::byte> first,
                                    std::span<const std::byte> second, int) -> perfx::Result<void> {
    // A SAMPLE with only PERF_SAMPLE_TIME is {header (8 bytes), u64 time}.
    std::vector<std::byte> bytes(first.begin(), first.end());
    bytes.insert(bytes.end(), second.begin(), second.end());
    for (std::size_t off = 0; off + 16 <= bytes.size() && shown < 3;) {
      std::uint32_t type = 0;
      std::uint16_t size = 0;
      std::memcpy(&type, &bytes[off], 4);
      std::memcpy(&size, &bytes[off + 6], 2);
      if (size < 8) break;
      if (type == PERF_RECORD_SAMPLE) {
        std::uint64_t time = 0;
        std::memcpy(&time, &bytes[off + 8], 8);
        const std::uint64_t mono = conv->sample_to_monotonic(time);
        std::printf("sample at %llu.%09llu s (CLOCK_MONOTONIC) = ",
                    static_cast<unsigned long long>(mono / 1'000'000'000ULL),
                    static_cast<unsigned long long>(mono % 1'000'000'000ULL));
        print_wall(conv->sample_to_wall(time));
        if (auto tsc = conv->sample_to_tsc(time)) {
          std::printf(", TSC %llu", static_cast<unsigned long long>(*tsc));
        }
        std::printf("\n");
        ++shown;
      }
      off += size;
    }
    return {};
  });
  if (!drained) {
    std::fprintf(stderr, "timestamps_to_wall_time: %s\n", drained.error().message().c_str());
    return 1;
  }
  if (shown == 0) std::printf("no samples were taken (the loop ran under 1 ms of CPU)\n");
  return 0;
}
