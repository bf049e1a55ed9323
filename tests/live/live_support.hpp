#pragma once
// What several live tests do to the running kernel the same way: burn CPU, fault pages in,
// sample this thread with one event, sample getppid() through its tracepoint, aim a
// write breakpoint, and walk the records of a drained ring-buffer chunk.

#include <gtest/gtest.h>
#include <linux/hw_breakpoint.h>
#include <linux/perf_event.h>
#include <sys/mman.h>
#include <time.h>
#include <unistd.h>

#include <cstdint>
#include <cstring>
#include <span>
#include <string>

#include "perfx/sampler.hpp"
#include "sys/event_resolver.hpp"

namespace perfx::live_support {

constexpr std::size_t kPage = 4096;

/// Burns `ms` of `clock` (this thread's CPU time by default: the machine may be busy).
inline void burn_ms(int ms, clockid_t clock = CLOCK_THREAD_CPUTIME_ID) {
  timespec start{}, now{};
  ::clock_gettime(clock, &start);
  volatile std::uint64_t x = 0;
  for (;;) {
    for (int i = 0; i < 10000; ++i) x = x + static_cast<std::uint64_t>(i);
    ::clock_gettime(clock, &now);
    const long el = (now.tv_sec - start.tv_sec) * 1000 + (now.tv_nsec - start.tv_nsec) / 1000000;
    if (el >= ms) break;
  }
}

/// Maps `n` fresh anonymous pages, writes one byte to each (one page fault a page), unmaps.
inline void touch_pages(std::size_t n) {
  void* p = ::mmap(nullptr, n * kPage, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
  ASSERT_NE(p, MAP_FAILED);
  auto* bytes = static_cast<volatile char*>(p);
  for (std::size_t i = 0; i < n; ++i) bytes[i * kPage] = 1;
  ::munmap(p, n * kPage);
}

/// A software event `config` sampled every `period` with `sample_type`, user and kernel,
/// starting disabled.
inline raw::EventAttr sw_sampling(std::uint64_t config, std::uint64_t period,
                                  std::uint64_t sample_type) {
  raw::EventAttr a{};
  a.type = PERF_TYPE_SOFTWARE;
  a.config = config;
  a.sample_period = period;
  a.sample_type = sample_type;
  a.disabled = 1;
  a.exclude_kernel = 0;
  return a;
}

/// Options sampling this thread (pid 0, any CPU: one buffer) with the one event `ev`.
inline SamplerOptions this_thread(SamplerEvent ev) {
  SamplerOptions opt;
  opt.events.push_back(std::move(ev));
  opt.pids = {0};
  opt.cpus = {-1};
  return opt;
}

/// The id of the syscalls:sys_enter_getppid tracepoint (an error where tracefs lacks it).
inline Result<std::uint64_t> getppid_tracepoint() {
  return sys::system_resolver().tracepoint_id("syscalls", "sys_enter_getppid");
}

/// A sampler that saw this thread call getppid() `calls` times through the tracepoint `id`
/// (every hit sampled with IP, TID and RAW), disabled again with its records undrained.
inline Result<Sampler> sample_getppid_calls(std::uint64_t id, int calls) {
  raw::EventAttr a{};
  a.type = PERF_TYPE_TRACEPOINT;
  a.config = id;
  a.sample_period = 1;
  a.sample_type = PERF_SAMPLE_IP | PERF_SAMPLE_TID | PERF_SAMPLE_RAW;
  a.disabled = 1;
  auto s = Sampler::open(this_thread({"syscalls:sys_enter_getppid", a}));
  if (!s) return s;
  if (auto on = s->enable(); !on) return tl::unexpected(on.error());
  for (int i = 0; i < calls; ++i) (void)::getppid();
  if (auto off = s->disable(); !off) return tl::unexpected(off.error());
  return s;
}

/// A hardware breakpoint on writes to the 8 bytes at `addr`.
inline raw::EventAttr write_breakpoint(const volatile void* addr) {
  raw::EventAttr a{};
  a.type = PERF_TYPE_BREAKPOINT;
  a.bp_type = HW_BREAKPOINT_W;
  a.bp_addr = reinterpret_cast<std::uintptr_t>(addr);
  a.bp_len = HW_BREAKPOINT_LEN_8;
  return a;
}

/// Calls `fn(type, record)` for each whole perf record packed in `bytes`, from the start.
/// Returns how many bytes those records hold: it stops at a header whose size is under 8
/// or runs past the end, and before fewer than 8 trailing bytes.
template <class Fn>
std::size_t for_each_packed_record(std::span<const std::byte> bytes, Fn&& fn) {
  std::size_t off = 0;
  while (off + 8 <= bytes.size()) {
    std::uint32_t type = 0;
    std::uint16_t size = 0;
    std::memcpy(&type, bytes.data() + off, 4);
    std::memcpy(&size, bytes.data() + off + 6, 2);
    if (size < 8 || size > bytes.size() - off) break;
    fn(type, bytes.subspan(off, size));
    off += size;
  }
  return off;
}

}  // namespace perfx::live_support
