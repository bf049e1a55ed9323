#pragma once
// Records shared by the codec and typed-record tests. The every-field sample: an attr
// with every sample_type field (WEIGHT_STRUCT), a group read with every read_format bit,
// a branch stack with hw_idx, 3 user and 2 interrupt registers and a 16-byte user stack,
// and a sample of that attr with a value in each field. An MMAP2 and a sample_id trailer.

#include <gtest/gtest.h>
#include <linux/perf_event.h>

#include <cstdint>
#include <span>
#include <tuple>
#include <vector>

#include "../test_records.hpp"
#include "perfx/raw.hpp"
#include "perfx/records.hpp"

namespace perfx::test_support {

/// The id of the every-field attr (the sample's identifier and id).
inline constexpr std::uint64_t kEveryFieldId = 501;

/// The every-field attr (v8, software, sample_id_all).
inline raw::EventAttr every_field_attr() {
  raw::EventAttr a{};
  a.size = raw::kAttrSizeVer8;
  a.type = PERF_TYPE_SOFTWARE;
  a.sample_type = PERF_SAMPLE_IDENTIFIER | PERF_SAMPLE_IP | PERF_SAMPLE_TID | PERF_SAMPLE_TIME |
                  PERF_SAMPLE_ADDR | PERF_SAMPLE_ID | PERF_SAMPLE_STREAM_ID | PERF_SAMPLE_CPU |
                  PERF_SAMPLE_PERIOD | PERF_SAMPLE_READ | PERF_SAMPLE_CALLCHAIN | PERF_SAMPLE_RAW |
                  PERF_SAMPLE_BRANCH_STACK | PERF_SAMPLE_REGS_USER | PERF_SAMPLE_STACK_USER |
                  PERF_SAMPLE_WEIGHT_STRUCT | PERF_SAMPLE_DATA_SRC | PERF_SAMPLE_TRANSACTION |
                  PERF_SAMPLE_REGS_INTR | PERF_SAMPLE_PHYS_ADDR | PERF_SAMPLE_CGROUP |
                  PERF_SAMPLE_DATA_PAGE_SIZE | PERF_SAMPLE_CODE_PAGE_SIZE | PERF_SAMPLE_AUX;
  a.read_format = PERF_FORMAT_GROUP | PERF_FORMAT_ID | PERF_FORMAT_LOST |
                  PERF_FORMAT_TOTAL_TIME_ENABLED | PERF_FORMAT_TOTAL_TIME_RUNNING;
  a.branch_sample_type = PERF_SAMPLE_BRANCH_ANY | PERF_SAMPLE_BRANCH_HW_INDEX;
  a.sample_regs_user = 0b1011;  // 3 regs
  a.sample_regs_intr = 0x30;    // 2 regs
  a.sample_stack_user = 16;
  a.sample_id_all = 1;
  return a;
}

/// Backing storage for the views the every-field sample points at.
struct SamplePayloads {
  std::vector<std::uint64_t> group = {1, kEveryFieldId, 0, 2, 502, 9};
  std::vector<std::uint64_t> chain = {PERF_CONTEXT_USER, 0x401000, 0x401100, 0x401200};
  std::vector<std::byte> raw = std::vector<std::byte>(12, std::byte{0x5a});  // 4 + 12: no pad
  std::vector<std::uint64_t> branches = {0x10, 0x20, 0x11, 0x30, 0x40, 0x2};
  std::vector<std::uint64_t> regs_u = {1, 2, 3};
  std::vector<std::uint64_t> regs_i = {4, 5};
  std::vector<std::byte> stack = std::vector<std::byte>(16, std::byte{0x33});
  std::vector<std::byte> aux = std::vector<std::byte>(8, std::byte{0x44});
};

// Designated initializers name the fields they set; GCC 12 still warns about the ones left
// at their defaults (-Wmissing-field-initializers), which is what they are for.
#pragma GCC diagnostic push
#pragma GCC diagnostic ignored "-Wmissing-field-initializers"

/// A sample of every_field_attr() with a value in every field, its views into `p`.
inline record::Sample every_field_sample(const SamplePayloads& p) {
  const raw::EventAttr attr = every_field_attr();
  record::Sample s{.identifier = kEveryFieldId,
                   .ip = 0x401000,
                   .pid = 100,
                   .tid = 101,
                   .time = 555,
                   .addr = 0xdead,
                   .id = kEveryFieldId,
                   .stream_id = 502,
                   .cpu = 1,
                   .period = 4000};
  s.read.read_format = attr.read_format;
  s.read.nr = 2;
  s.read.time_enabled = 7;
  s.read.time_running = 6;
  s.read.entries = std::as_bytes(std::span(p.group));
  s.callchain = record::U64Array::of(p.chain);
  s.raw = p.raw;
  s.branch_stack.nr = 2;
  s.branch_stack.has_hw_idx = true;
  s.branch_stack.hw_idx = 5;
  s.branch_stack.entries = std::as_bytes(std::span(p.branches));
  s.regs_user = {PERF_SAMPLE_REGS_ABI_64, attr.sample_regs_user, record::U64Array::of(p.regs_u)};
  s.stack_user = {16, p.stack, 12};
  s.weight = (std::uint64_t{3} << 48) | (std::uint64_t{2} << 32) | 1;
  s.data_src = 0x1234;
  s.transaction = PERF_TXN_ELISION;
  s.regs_intr = {PERF_SAMPLE_REGS_ABI_64, attr.sample_regs_intr, record::U64Array::of(p.regs_i)};
  s.phys_addr = 0x9000;
  s.cgroup = 42;
  s.data_page_size = 4096;
  s.code_page_size = 2 << 20;
  s.aux = p.aux;
  return s;
}

#pragma GCC diagnostic pop

/// Checks that `s`, decoded from every_field_sample(), holds every value put in it.
inline void expect_every_field(const record::Sample& s) {
  // identifier, ip, pid, tid, time, addr, id, stream_id, cpu, period
  EXPECT_EQ(std::tie(s.identifier, s.ip, s.pid, s.tid, s.time, s.addr, s.id, s.stream_id, s.cpu,
                     s.period),
            std::make_tuple(kEveryFieldId, 0x401000u, 100u, 101u, 555u, 0xdeadu, kEveryFieldId,
                            502u, 1u, 4000u));
  ASSERT_TRUE(s.read.group());
  ASSERT_EQ(s.read.size(), 2u);
  EXPECT_EQ(s.read.time_enabled, 7u);
  EXPECT_EQ(s.read.time_running, 6u);
  EXPECT_EQ(s.read[0].value, 1u);
  EXPECT_EQ(s.read[1].id, 502u);
  EXPECT_EQ(s.read[1].lost, 9u);
  ASSERT_EQ(s.callchain.size(), 4u);
  EXPECT_EQ(s.callchain[0], static_cast<std::uint64_t>(PERF_CONTEXT_USER));
  EXPECT_EQ(s.callchain[3], 0x401200u);
  ASSERT_EQ(s.raw.size(), 12u);
  EXPECT_EQ(s.raw[11], std::byte{0x5a});
  ASSERT_EQ(s.branch_stack.size(), 2u);
  EXPECT_TRUE(s.branch_stack.has_hw_idx);
  EXPECT_EQ(s.branch_stack.hw_idx, 5u);
  EXPECT_EQ(s.branch_stack[1].from, 0x30u);
  EXPECT_EQ(s.branch_stack[1].to, 0x40u);
  EXPECT_TRUE(s.branch_stack[0].mispred());
  EXPECT_TRUE(s.branch_stack[1].predicted());
  EXPECT_EQ(s.regs_user.abi, static_cast<std::uint64_t>(PERF_SAMPLE_REGS_ABI_64));
  ASSERT_EQ(s.regs_user.regs.size(), 3u);
  EXPECT_EQ(s.regs_user.regs[2], 3u);
  EXPECT_EQ(s.stack_user.size, 16u);
  EXPECT_EQ(s.stack_user.dyn_size, 12u);
  EXPECT_EQ(s.stack_user.data.size(), 16u);
  EXPECT_EQ(s.weight_var1_dw(), 1u);
  EXPECT_EQ(s.weight_var2_w(), 2u);
  EXPECT_EQ(s.weight_var3_w(), 3u);
  EXPECT_EQ(s.data_src, 0x1234u);
  EXPECT_EQ(s.transaction, static_cast<std::uint64_t>(PERF_TXN_ELISION));
  ASSERT_EQ(s.regs_intr.regs.size(), 2u);
  EXPECT_EQ(s.regs_intr.regs[1], 5u);
  // phys_addr, cgroup, data_page_size, code_page_size, aux size
  EXPECT_EQ(std::tie(s.phys_addr, s.cgroup, s.data_page_size, s.code_page_size),
            std::make_tuple(0x9000u, 42u, 4096u, 2u << 20));
  EXPECT_EQ(s.aux.size(), 8u);
}

/// An MMAP2 of libc's text in its inode form (device, inode, generation) by thread 11/12.
inline record::Mmap2 libc_mmap2() {
  record::Mmap2 m = text_mmap2(11, 12, 0x7f0000000000, 0x21000, 0x1000, "/usr/lib/libc.so.6");
  m.maj = 8;
  m.min = 1;
  m.ino = 123456;
  m.ino_generation = 7;
  return m;
}

/// The sample_id trailer of a record of the attr `id` at `time`: every field, from
/// thread 11/12 on CPU 1 (stream 78).
inline record::SampleId full_sample_id(std::uint64_t id, std::uint64_t time) {
  record::SampleId s;
  s.fields = PERF_SAMPLE_TID | PERF_SAMPLE_TIME | PERF_SAMPLE_ID | PERF_SAMPLE_STREAM_ID |
             PERF_SAMPLE_CPU | PERF_SAMPLE_IDENTIFIER;
  s.pid = 11;
  s.tid = 12;
  s.time = time;
  s.id = id;
  s.stream_id = 78;
  s.cpu = 1;
  return s;
}

}  // namespace perfx::test_support
