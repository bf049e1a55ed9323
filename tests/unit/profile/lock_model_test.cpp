// perfx lock contention math on synthetic contention_begin/end events (include/perfx/lock.hpp).

#include <gtest/gtest.h>

#include "perfx/lock.hpp"

namespace perfx {
namespace {

// A kernel with lock text at 0x1000..0x2000 and sched text at 0x2000..0x3000.
const char* kKallsyms =
    "0000000000001000 T __lock_text_start\n"
    "0000000000001000 T _raw_spin_lock\n"
    "0000000000002000 T __lock_text_end\n"
    "0000000000002000 T __sched_text_start\n"
    "0000000000002000 T rwsem_down_write_slowpath\n"
    "0000000000003000 T __sched_text_end\n"
    "0000000000003000 T wake_fn\n"
    "0000000000003100 T timer_fn\n"
    "0000000000003200 T do_munmap\n"
    "0000000000003300 T do_syscall\n"
    "0000000000004000 D static_lock\n"
    "0000000000005000 T _etext\n";

LockEvent ev(bool begin, std::uint64_t t, int tid, std::uint64_t addr, std::uint32_t flags,
             std::vector<std::uint64_t> chain) {
  LockEvent e;
  e.begin = begin;
  e.time = t;
  e.tid = tid;
  e.pid = 1;
  e.addr = addr;
  e.flags = begin ? flags : 0;
  e.callchain = std::move(chain);
  return e;
}

LockTrace sample_trace() {
  // Rwsem waits from do_munmap (two threads), a spinlock from timer_fn.
  const std::vector<std::uint64_t> munmap = {0x2010, 0x2020, 0x2030, 0x2040, 0x3210, 0x3310};
  const std::vector<std::uint64_t> timer = {0x1010, 0x1020, 0x3010, 0x3110, 0x3320};
  LockTrace t;
  t.events = {
      ev(true, 100, 5, 0xa000, kLockWrite, munmap), ev(true, 110, 6, 0xa000, kLockWrite, munmap),
      ev(false, 300, 5, 0xa000, 0, munmap),         ev(true, 310, 7, 0x4000, kLockSpin, timer),
      ev(false, 320, 7, 0x4000, 0, timer),          ev(false, 1110, 6, 0xa000, 0, munmap),
      ev(false, 2000, 6, 0xa000, 0, munmap),  // an end without a begin
  };
  t.comms = {{5, "storm"}, {6, "storm"}, {7, "worker"}};
  return t;
}

TEST(LockContention, PerCallerSkipsLockFunctionsAndNamesTheCaller) {
  const LockSymbols syms = LockSymbols::from_text(kKallsyms);
  EXPECT_TRUE(syms.is_lock_function(0x1010));
  EXPECT_TRUE(syms.is_lock_function(0x2040));
  EXPECT_FALSE(syms.is_lock_function(0x3210));
  EXPECT_EQ(syms.name(0x3210).value_or(""), "do_munmap+0x10");
  EXPECT_EQ(syms.name(0x3200).value_or(""), "do_munmap");
  const LockContention c = lock_contention(sample_trace(), syms);
  ASSERT_EQ(c.rows.size(), 2U);
  EXPECT_EQ(c.rows[0].name, "do_munmap+0x10");  // skipped 3, then the sched-text 0x2040
  EXPECT_EQ(c.rows[0].type, "rwsem:W");
  EXPECT_EQ(c.rows[0].contended, 2U);
  EXPECT_EQ(c.rows[0].wait_total_ns, 200U + 1000U);
  EXPECT_EQ(c.rows[0].wait_max_ns, 1000U);
  EXPECT_EQ(c.rows[0].wait_min_ns, 200U);
  EXPECT_EQ(c.rows[0].wait_avg_ns, 600U);
  EXPECT_TRUE(c.rows[0].broken);
  EXPECT_EQ(c.rows[1].name, "timer_fn+0x10");  // the 3rd entry (wake_fn) is skipped
  EXPECT_EQ(c.rows[1].type, "spinlock");
  EXPECT_EQ(c.rows[1].wait_total_ns, 10U);
  EXPECT_EQ(c.broken_sequences, 1U);
  const std::string text = format_lock_contention(c);
  EXPECT_NE(text.find("         2      1.20 us      1.00 us       600 ns      rwsem:W   "
                      "do_munmap+0x10\n"),
            std::string::npos)
      << text;
}

TEST(LockContention, PerAddressPerThreadSortAndEntries) {
  const LockSymbols syms = LockSymbols::from_text(kKallsyms);
  LockContentionOptions o;
  o.by = LockAggregation::kAddress;
  LockContention c = lock_contention(sample_trace(), syms, o);
  ASSERT_EQ(c.rows.size(), 2U);
  EXPECT_EQ(c.rows[0].key, 0xa000U);
  EXPECT_EQ(c.rows[1].key, 0x4000U);
  EXPECT_EQ(c.rows[1].name, "static_lock");
  o.by = LockAggregation::kThread;
  o.sort = "wait_max";
  c = lock_contention(sample_trace(), syms, o);
  ASSERT_EQ(c.rows.size(), 3U);
  EXPECT_EQ(c.rows[0].key, 6U);  // waited 1000 ns
  EXPECT_EQ(c.rows[0].name, "storm");
  EXPECT_EQ(c.rows[2].name, "worker");
  o.entries = 1;
  EXPECT_EQ(lock_contention(sample_trace(), syms, o).rows.size(), 1U);
  EXPECT_TRUE(check_lock_sort_key("avg_wait"));
  EXPECT_FALSE(check_lock_sort_key("bogus"));
}

TEST(LockContention, TypeNames) {
  EXPECT_STREQ(lock_type_name(kLockSpin), "spinlock");
  EXPECT_STREQ(lock_type_name(kLockRead), "rwsem:R");
  EXPECT_STREQ(lock_type_name(kLockMutex | kLockSpin), "mutex");
  EXPECT_STREQ(lock_type_name(kLockPercpu | kLockWrite), "pcpu-sem:W");
  EXPECT_STREQ(lock_type_name(0), "semaphore");
  EXPECT_STREQ(lock_type_name(0x40), "unknown");
}

}  // namespace
}  // namespace perfx
