#pragma once
// Records shared by the codec and typed-record tests. The every-field sample: an attr
// with every sample_type field (WEIGHT_STRUCT), a group read with every read_format bit,
// a branch stack with hw_idx, 3 user and 2 interrupt registers and a 16-byte user stack,
// and a sample of that attr with a value in each field. An MMAP2 and a sample_id trailer.

#include <linux/perf_event.h>

#include <cstdint>
#include <span>
#include <vector>

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

/// A sample of every_field_attr() with a value in every field, its views into `p`.
inline record::Sample every_field_sample(const SamplePayloads& p) {
  const raw::EventAttr attr = every_field_attr();
  record::Sample s;
  s.identifier = kEveryFieldId;
  s.ip = 0x401000;
  s.pid = 100;
  s.tid = 101;
  s.time = 555;
  s.addr = 0xdead;
  s.id = kEveryFieldId;
  s.stream_id = 502;
  s.cpu = 1;
  s.period = 4000;
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

/// An MMAP2 of libc's text in its inode form (device, inode, generation) by thread 11/12.
inline record::Mmap2 libc_mmap2() {
  record::Mmap2 m;
  m.pid = 11;
  m.tid = 12;
  m.addr = 0x7f0000000000;
  m.len = 0x21000;
  m.pgoff = 0x1000;
  m.maj = 8;
  m.min = 1;
  m.ino = 123456;
  m.ino_generation = 7;
  m.prot = 5;   // r-x
  m.flags = 2;  // MAP_PRIVATE
  m.filename = "/usr/lib/libc.so.6";
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
