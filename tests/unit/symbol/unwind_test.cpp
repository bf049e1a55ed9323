// DWARF unwinding (symbol::Unwinder): register lookup by perf mask, damaged input, and
// a real unwind of this test's own stack (registers captured with inline asm, the
// stack copied as the kernel would, maps from /proc/self/maps).
#include "symbol/unwind.hpp"

#include <gtest/gtest.h>
#include <unistd.h>

#include <cstring>
#include <fstream>
#include <sstream>
#include <string>
#include <vector>

#include "symbol/machine.hpp"

namespace perfx::symbol {
namespace {

TEST(UserRegs, LooksUpByMaskBit) {
  const std::uint64_t vals[] = {10, 11, 12};
  // bits 0 (AX), 7 (SP), 8 (IP)
  UserRegs r{core::kRegsAbi64, (1u << 0) | (1u << 7) | (1u << 8), vals};
  std::uint64_t v = 0;
  EXPECT_TRUE(r.get(core::X86Reg::kAx, v));
  EXPECT_EQ(v, 10u);
  EXPECT_TRUE(r.get(core::X86Reg::kSp, v));
  EXPECT_EQ(v, 11u);
  EXPECT_TRUE(r.get(core::X86Reg::kIp, v));
  EXPECT_EQ(v, 12u);
  EXPECT_FALSE(r.get(core::X86Reg::kBx, v));
  UserRegs short_values{core::kRegsAbi64, 0xff0fff, vals};  // mask says 20 values, 3 given
  EXPECT_FALSE(short_values.get(core::X86Reg::kR15, v));
  UserRegs none{core::kRegsAbiNone, 0xff0fff, vals};
  EXPECT_FALSE(none.get(core::X86Reg::kAx, v));
}

void load_self_maps(Machine& m, std::int32_t pid) {
  std::ifstream in("/proc/self/maps");
  std::string line;
  while (std::getline(in, line)) {
    std::istringstream ls(line);
    std::string range, perms, off, dev, inode, path;
    ls >> range >> perms >> off >> dev >> inode >> path;
    if (path.empty() || path.front() != '/') continue;
    const auto dash = range.find('-');
    const std::uint64_t lo = std::stoull(range.substr(0, dash), nullptr, 16);
    const std::uint64_t hi = std::stoull(range.substr(dash + 1), nullptr, 16);
    m.on_mmap(pid, pid, lo, hi - lo, std::stoull(off, nullptr, 16), path, "");
  }
}

TEST(Unwinder, GarbageNeverCrashes) {
  Machine m;
  const auto pid = static_cast<std::int32_t>(::getpid());
  load_self_maps(m, pid);
  auto& t = m.thread(pid, pid);
  std::vector<std::uint64_t> vals(20);
  std::vector<std::byte> stack(4096);
  std::uint64_t seed = 0x9e3779b97f4a7c15ULL;
  auto next = [&] {
    seed ^= seed << 13;
    seed ^= seed >> 7;
    seed ^= seed << 17;
    return seed;
  };
  // The leaf in a real file (this test's code), everything else random.
  const auto self_ip = reinterpret_cast<std::uint64_t>(&load_self_maps);
  std::vector<std::uint64_t> out;
  for (int round = 0; round < 200; ++round) {
    for (auto& v : vals) v = next();
    vals[8] = round % 2 == 0 ? self_ip + (next() % 64) : next();  // IP
    for (auto& b : stack) b = static_cast<std::byte>(next());
    UserRegs r{core::kRegsAbi64, 0xff0fff, vals};
    out.clear();
    const std::size_t n = m.unwinder().unwind(t.maps, pid, r, stack, out, 16);
    EXPECT_LE(n, 16u);
    EXPECT_EQ(n, out.size());
  }
  // No registers / no maps: nothing.
  out.clear();
  EXPECT_EQ(m.unwinder().unwind(t.maps, pid, UserRegs{}, stack, out), 0u);
  EXPECT_EQ(
      m.unwinder().unwind(nullptr, pid, UserRegs{core::kRegsAbi64, 0xff0fff, vals}, stack, out),
      0u);
  EXPECT_EQ(m.unwinder().cached_spaces(), 1u);
}

#if defined(__x86_64__)
struct Captured {
  std::uint64_t ip = 0, sp = 0, bp = 0;
  std::vector<std::byte> stack;
};

// Copies the stack as the kernel does for PERF_SAMPLE_STACK_USER: raw bytes, ASan's stack
// redzones included, so this copy must not be instrumented (volatile reads keep the
// compiler from turning the loop into an intercepted memcpy).
__attribute__((no_sanitize("address"), noinline)) void copy_raw_stack(std::byte* dst,
                                                                      std::uint64_t src,
                                                                      std::size_t n) {
  const volatile std::byte* s = reinterpret_cast<const volatile std::byte*>(src);
  for (std::size_t i = 0; i < n; ++i) dst[i] = s[i];
}

extern "C" __attribute__((noinline)) void perfx_unwind_leaf(Captured* c) {
  std::uint64_t ip, sp, bp;
  asm volatile(
      "lea 0(%%rip), %0\n\t"
      "mov %%rsp, %1\n\t"
      "mov %%rbp, %2"
      : "=r"(ip), "=r"(sp), "=r"(bp));
  c->ip = ip;
  c->sp = sp;
  c->bp = bp;
  c->stack.resize(2048);  // the frames above this one: well inside the stack mapping
  copy_raw_stack(c->stack.data(), sp, c->stack.size());
}
extern "C" __attribute__((noinline)) void perfx_unwind_mid(Captured* c) {
  perfx_unwind_leaf(c);
  asm volatile("" ::: "memory");  // not a tail call
}
extern "C" __attribute__((noinline)) void perfx_unwind_top(Captured* c) {
  perfx_unwind_mid(c);
  asm volatile("" ::: "memory");
}

TEST(Unwinder, UnwindsOwnStack) {
  Captured c;
  perfx_unwind_top(&c);
  Machine m;
  const auto pid = static_cast<std::int32_t>(::getpid());
  load_self_maps(m, pid);
  auto& t = m.thread(pid, pid);
  // perf's x86_64 dwarf mask 0xff0fff: AX..SS (0-11), R8..R15 (16-23).
  std::vector<std::uint64_t> vals(20, 0);
  vals[6] = c.bp;  // BP
  vals[7] = c.sp;  // SP
  vals[8] = c.ip;  // IP
  UserRegs r{core::kRegsAbi64, 0xff0fff, vals};
  std::vector<std::uint64_t> out;
  const std::size_t n = m.unwinder().unwind(t.maps, pid, r, c.stack, out);
  ASSERT_GE(n, 3u);
  std::vector<std::string> names;
  for (std::uint64_t ip : out) {
    const Location l = m.resolve(t, ip, false);
    const Symbol* s = nullptr;
    if (l.map != nullptr && l.map->dso != nullptr)
      s = l.map->dso->find(l.map->dso->to_symbol_address(l.map_addr));
    names.emplace_back(s != nullptr ? s->name : "?");
  }
  EXPECT_EQ(names[0], "perfx_unwind_leaf");
  EXPECT_EQ(names[1], "perfx_unwind_mid");
  EXPECT_EQ(names[2], "perfx_unwind_top");
  // Bounded by max_frames.
  out.clear();
  EXPECT_EQ(m.unwinder().unwind(t.maps, pid, r, c.stack, out, 2), 2u);
  // A stack copy cut short: the walk stops inside it, never reads past it.
  out.clear();
  const std::size_t cut = m.unwinder().unwind(t.maps, pid, r, std::span(c.stack).first(8), out);
  EXPECT_LE(cut, n);
}
#endif

}  // namespace
}  // namespace perfx::symbol
