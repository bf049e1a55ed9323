#pragma once
// A small but realistic Profile for the exporter tests: two processes, three threads,
// user + kernel + JIT frames, an inline frame, mappings with build-ids.
//   demo (pid 100, tid 100): 60 hot_loop (inlined into compute), 25 checksum,
//                            10 slow_path, 5 write syscall (user -> kernel)
//   demo (pid 100, tid 101): 20 worker_loop -> JIT frame
//   sh   (pid 200, tid 200):  3 kernel-only
// 123 samples of cpu-clock, period 1,000,000 ns each (the write ones 2,000,000).

#include "profile/profile.hpp"

namespace perfx::report::testing {

inline profile::Profile make_test_profile() {
  using profile::FrameKind;
  profile::Profile p;
  p.command_line = "demo 1";
  p.hostname = "testhost";
  p.events = {{"cpu-clock", "nanoseconds"}};
  p.threads = {{100, 100, "demo"}, {100, 101, "demo"}, {200, 200, "sh"}};
  p.mappings = {
      {0x400000, 0x401000, 0, "/usr/bin/demo", "0123456789abcdef0123456789abcdef01234567"},
      {0x7f0000000000, 0x7f0000200000, 0x28000, "/usr/lib/x86_64-linux-gnu/libc.so.6",
       "fedcba9876543210fedcba9876543210fedcba98"},
      {0xffffffff81000000, 0xffffffff83000000, 0, "[kernel.kallsyms]", ""},
  };
  auto frame = [](const char* fn, const char* dso, std::uint64_t addr, FrameKind kind,
                  std::int32_t mapping, const char* file = "", std::uint32_t line = 0,
                  bool inlined = false) {
    profile::Frame f;
    f.function = fn;
    f.dso = dso;
    f.address = addr;
    f.kind = kind;
    f.mapping = mapping;
    f.file = file;
    f.line = line;
    f.inlined = inlined;
    return f;
  };
  p.frames = {
      frame("_start", "demo", 0x400100, FrameKind::kUser, 0),                        // 0
      frame("__libc_start_main", "libc.so.6", 0x7f0000029d90, FrameKind::kUser, 1),  // 1
      frame("main", "demo", 0x400200, FrameKind::kUser, 0, "demo.c", 40),            // 2
      frame("compute", "demo", 0x400300, FrameKind::kUser, 0, "demo.c", 16),         // 3
      frame("hot_loop", "demo", 0x400300, FrameKind::kUser, 0, "demo.c", 12, true),  // 4
      frame("checksum", "demo", 0x400400, FrameKind::kUser, 0, "demo.c", 22),        // 5
      frame("slow_path", "demo", 0x400500, FrameKind::kUser, 0, "demo.c", 29),       // 6
      frame("entry_SYSCALL_64", "[kernel.kallsyms]", 0xffffffff81e00000, FrameKind::kKernel, 2),
      frame("do_syscall_64", "[kernel.kallsyms]", 0xffffffff81d00000, FrameKind::kKernel, 2),
      frame("__x64_sys_write", "[kernel.kallsyms]", 0xffffffff81300000, FrameKind::kKernel, 2),
      frame("write", "libc.so.6", 0x7f0000100000, FrameKind::kUser, 1),           // 10
      frame("LFoo;::bar", "[jit]", 0x7e0000001000, FrameKind::kJit, -1),          // 11
      frame("start_thread", "libc.so.6", 0x7f0000090000, FrameKind::kUser, 1),    // 12
      frame("worker_loop", "demo", 0x400600, FrameKind::kUser, 0, "demo.c", 50),  // 13
  };
  p.stacks = {
      {0, 1, 2, 3, 4},         // hot path, hot_loop inlined into compute
      {0, 1, 2, 5},            // checksum
      {0, 1, 2, 6},            // slow_path
      {0, 1, 2, 10, 7, 8, 9},  // write syscall
      {12, 13, 11},            // worker -> JIT
      {7, 8, 9},               // kernel only
  };
  std::uint64_t t = 1'000'000'000;
  auto add = [&](std::uint32_t stack, std::uint32_t thread, int n, std::uint64_t period) {
    for (int i = 0; i < n; ++i) {
      profile::Sample s;
      s.stack = stack;
      s.thread = thread;
      s.cpu = thread % 2;
      s.time_ns = t;
      s.period = period;
      t += 1'000'000;
      p.samples.push_back(s);
    }
  };
  // Interleave a little so per-thread time order matters.
  add(0, 0, 30, 1'000'000);
  add(4, 1, 10, 1'000'000);
  add(1, 0, 25, 1'000'000);
  add(0, 0, 30, 1'000'000);
  add(2, 0, 10, 1'000'000);
  add(4, 1, 10, 1'000'000);
  add(3, 0, 5, 2'000'000);
  add(5, 2, 3, 1'000'000);
  p.start_time_ns = p.samples.front().time_ns;
  p.end_time_ns = p.samples.back().time_ns;
  return p;
}

}  // namespace perfx::report::testing
