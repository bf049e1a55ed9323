// Overflow signals with PERF_EVENT_IOC_REFRESH (man page "Signal overflow"): a sampling
// event with a ring buffer raises a signal on each overflow; REFRESH(n) lets n overflows
// through, then the kernel disables the event (the last signal has si_code POLL_HUP).
// A real-time signal is used because those queue: SIGIO would merge.
//
//   $ build/examples/example_overflow_signal_refresh
//   overflow signals: 3 (asked for 3), last si_code POLL_HUP

#include <linux/perf_event.h>
#include <signal.h>
#include <sys/mman.h>

#include <csignal>
#include <cstdio>

#include "perfx/event_handle.hpp"
#include "perfx/events.hpp"

namespace {

volatile sig_atomic_t g_count = 0;
volatile sig_atomic_t g_last_code = 0;

void on_overflow(int, siginfo_t* info, void*) {
  g_count = g_count + 1;
  g_last_code = info->si_code;
}

void touch_pages(int n) {
  const std::size_t len = static_cast<std::size_t>(n) * 4096;
  void* p = mmap(nullptr, len, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
  if (p == MAP_FAILED) return;
  for (std::size_t off = 0; off < len; off += 4096) static_cast<volatile char*>(p)[off] = 1;
  munmap(p, len);
}

}  // namespace

int main() {
  struct sigaction sa {};
  sa.sa_sigaction = on_overflow;
  sa.sa_flags = SA_SIGINFO;
  const int sig = SIGRTMIN + 1;
  sigaction(sig, &sa, nullptr);

  perfx::raw::EventAttr attr = perfx::software_event(perfx::SoftwareEvent::kPageFaults).attr;
  attr.sample_period = 4;  // overflow every 4 page faults
  attr.sample_type = PERF_SAMPLE_IP;
  attr.wakeup_events = 1;  // signal on each overflow
  attr.disabled = 1;
  attr.exclude_kernel = 1;
  auto ev = perfx::EventFd::open(attr, perfx::OpenTarget::self(), "page-faults");
  if (!ev) {
    std::fprintf(stderr, "overflow_signal_refresh: %s\n", ev.error().message().c_str());
    return 1;
  }
  // The kernel signals from the ring buffer's wakeups: map one (metadata + one data page).
  void* ring = mmap(nullptr, 2 * 4096, PROT_READ | PROT_WRITE, MAP_SHARED, ev->fd(), 0);
  if (ring == MAP_FAILED) {
    std::perror("overflow_signal_refresh: mmap");
    return 1;
  }
  if (auto r = ev->route_signals(sig); !r) {
    std::fprintf(stderr, "overflow_signal_refresh: %s\n", r.error().message().c_str());
    return 1;
  }
  if (!ev->refresh(3)) return 1;  // enable for three overflows
  touch_pages(64);                // 64 faults = 16 periods, only 3 get through
  std::printf("overflow signals: %d (asked for 3), last si_code %s\n", static_cast<int>(g_count),
              g_last_code == POLL_HUP ? "POLL_HUP" : "POLL_IN");
  munmap(ring, 2 * 4096);
  return 0;
}
