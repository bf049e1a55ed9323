// Synthesis from the running system (/proc, /proc/kallsyms, ELF notes, tracefs) and the
// system feature gatherer, decoded back with the record decoder.
#include "sys/synthesize.hpp"

#include <gtest/gtest.h>
#include <linux/perf_event.h>
#include <sys/mman.h>
#include <unistd.h>

#include <cstring>
#include <string>
#include <variant>
#include <vector>

#include "record/decoder.hpp"
#include "record/records.hpp"
#include "record/sample_layout.hpp"
#include "sys/synthesize_tracing.hpp"
#include "sys/system_info_features.hpp"

namespace perfx::sys {
namespace {

record::SampleLayout test_layout() {
  raw::EventAttr a{};
  a.sample_type = PERF_SAMPLE_IP | PERF_SAMPLE_TID | PERF_SAMPLE_TIME | PERF_SAMPLE_PERIOD;
  a.sample_id_all = 1;
  return record::SampleLayout::from_attr(a);
}

std::vector<record::Record> decode_all(const std::vector<std::byte>& bytes,
                                       const record::SampleLayout& layout) {
  std::vector<record::Record> out;
  std::size_t off = 0;
  while (off + 8 <= bytes.size()) {
    auto span = std::span<const std::byte>(bytes).subspan(off);
    auto rec = record::decode_record(span, layout);
    EXPECT_TRUE(rec) << "at offset " << off << ": " << rec.error().message();
    if (!rec) break;
    off += rec->header.size;
    out.push_back(*rec);
  }
  EXPECT_EQ(off, bytes.size());
  return out;
}

TEST(Synthesize, ParsesProcMapsLines) {
  const std::string text =
      "55d0c5a00000-55d0c5a02000 r--p 00000000 fe:00 248139     /usr/bin/true\n"
      "55d0c5a02000-55d0c5a06000 r-xp 00002000 fe:00 248139     /usr/bin/true\n"
      "7ffd1a1e5000-7ffd1a206000 rw-p 00000000 00:00 0          [stack]\n"
      "7f00aa000000-7f00aa001000 rwxs 00001000 00:05 77 /memfd:x (deleted)\n"
      "garbage line\n";
  auto maps = parse_proc_maps(text);
  ASSERT_EQ(maps.size(), 4u);
  EXPECT_EQ(maps[1].start, 0x55d0c5a02000u);
  EXPECT_EQ(maps[1].end, 0x55d0c5a06000u);
  EXPECT_EQ(maps[1].pgoff, 0x2000u);
  EXPECT_EQ(maps[1].prot, static_cast<std::uint32_t>(PROT_READ | PROT_EXEC));
  EXPECT_EQ(maps[1].flags, static_cast<std::uint32_t>(MAP_PRIVATE));
  EXPECT_EQ(maps[1].maj, 0xfeu);
  EXPECT_EQ(maps[1].ino, 248139u);
  EXPECT_EQ(maps[1].path, "/usr/bin/true");
  EXPECT_EQ(maps[2].path, "[stack]");
  EXPECT_EQ(maps[3].flags, static_cast<std::uint32_t>(MAP_SHARED));
  EXPECT_EQ(maps[3].path, "/memfd:x (deleted)");
}

TEST(Synthesize, OwnProcessGivesForkCommAndExecutableMmap2) {
  const auto layout = test_layout();
  std::vector<std::byte> out;
  ASSERT_TRUE(synthesize_process(::getpid(), layout, {}, out));
  auto recs = decode_all(out, layout);
  bool fork_first = false, comm = false, self_exe = false;
  char exe[4096] = {};
  ASSERT_GT(::readlink("/proc/self/exe", exe, sizeof(exe) - 1), 0);
  for (std::size_t i = 0; i < recs.size(); ++i) {
    if (auto* f = std::get_if<record::Fork>(&recs[i].body)) {
      if (f->tid == static_cast<std::uint32_t>(::getpid())) {
        fork_first = i + 1 < recs.size() && std::holds_alternative<record::Comm>(recs[i + 1].body);
        EXPECT_EQ(f->ppid, static_cast<std::uint32_t>(::getppid()));
      }
    }
    if (auto* c = std::get_if<record::Comm>(&recs[i].body)) {
      if (c->tid == static_cast<std::uint32_t>(::getpid())) comm = true;
    }
    if (auto* m = std::get_if<record::Mmap2>(&recs[i].body)) {
      EXPECT_NE(m->prot & PROT_EXEC, 0u) << m->filename;
      EXPECT_EQ(m->pid, static_cast<std::uint32_t>(::getpid()));
      if (m->filename == exe) self_exe = true;
    }
  }
  EXPECT_TRUE(fork_first) << "FORK must precede COMM like perf";
  EXPECT_TRUE(comm);
  EXPECT_TRUE(self_exe) << "no MMAP2 for " << exe;
}

TEST(Synthesize, KernelMapLikePerf) {
  const auto layout = test_layout();
  std::vector<std::byte> out;
  auto r = synthesize_kernel_mmap(layout, out);
  if (!r) GTEST_SKIP() << r.error().message();
  auto recs = decode_all(out, layout);
  ASSERT_EQ(recs.size(), 1u);
  auto* m = std::get_if<record::Mmap>(&recs[0].body);
  ASSERT_NE(m, nullptr);
  EXPECT_EQ(m->filename, "[kernel.kallsyms]_text");
  EXPECT_EQ(m->pid, static_cast<std::uint32_t>(-1));
  EXPECT_EQ(m->pgoff, m->addr);
  EXPECT_GT(m->len, 0u);
  EXPECT_EQ(recs[0].header.misc & PERF_RECORD_MISC_CPUMODE_MASK, PERF_RECORD_MISC_KERNEL);
}

TEST(Synthesize, ReadsBuildIds) {
  char exe[4096] = {};
  ASSERT_GT(::readlink("/proc/self/exe", exe, sizeof(exe) - 1), 0);
  auto id = read_elf_build_id(exe);
  ASSERT_TRUE(id.has_value()) << "the test binary has a GNU build-id note";
  EXPECT_EQ(id->size(), 20u);
  EXPECT_FALSE(read_elf_build_id("/proc/self/status").has_value());
  auto kid = read_kernel_build_id();
  if (kid) {
    EXPECT_GE(kid->size(), 8u);
  }
}

TEST(Synthesize, HitTrackerMarksOnlyDsosWithSamples) {
  raw::EventAttr a{};
  a.sample_type = PERF_SAMPLE_IP | PERF_SAMPLE_TID | PERF_SAMPLE_TIME;
  const auto layout = record::SampleLayout::from_attr(a);
  HitTracker t(layout);
  auto mmap2 = [](std::uint32_t pid, std::uint64_t start, std::uint64_t len, const char* name) {
    std::vector<std::byte> r(72 + 32);
    const std::uint32_t type = PERF_RECORD_MMAP2;
    const std::uint16_t misc = PERF_RECORD_MISC_USER, size = static_cast<std::uint16_t>(r.size());
    std::memcpy(r.data(), &type, 4);
    std::memcpy(r.data() + 4, &misc, 2);
    std::memcpy(r.data() + 6, &size, 2);
    std::memcpy(r.data() + 8, &pid, 4);
    std::memcpy(r.data() + 16, &start, 8);
    std::memcpy(r.data() + 24, &len, 8);
    std::memcpy(r.data() + 72, name, std::strlen(name));
    return r;
  };
  auto sample = [](std::uint32_t pid, std::uint64_t ip, std::uint64_t time, std::uint16_t mode) {
    std::vector<std::byte> r(32);
    const std::uint32_t type = PERF_RECORD_SAMPLE;
    const std::uint16_t size = 32;
    std::memcpy(r.data(), &type, 4);
    std::memcpy(r.data() + 4, &mode, 2);
    std::memcpy(r.data() + 6, &size, 2);
    std::memcpy(r.data() + 8, &ip, 8);
    std::memcpy(r.data() + 16, &pid, 4);
    std::memcpy(r.data() + 24, &time, 8);
    return r;
  };
  t.feed(mmap2(10, 0x1000, 0x1000, "/lib/a.so"));
  t.feed(mmap2(10, 0x5000, 0x1000, "/lib/b.so"));
  t.feed(sample(10, 0x1800, 100, PERF_RECORD_MISC_USER));
  t.feed(sample(10, 0x2000, 50, PERF_RECORD_MISC_USER));   // just past a.so: no hit
  t.feed(sample(11, 0x5800, 300, PERF_RECORD_MISC_USER));  // other pid: no map
  t.feed(sample(10, 0xffffffff81000000ULL, 200, PERF_RECORD_MISC_KERNEL));
  auto hits = t.hit_files();
  ASSERT_EQ(hits.size(), 1u);
  EXPECT_EQ(hits[0], "/lib/a.so");
  EXPECT_TRUE(t.kernel_hit());
  EXPECT_EQ(t.first_time(), 50u);
  EXPECT_EQ(t.last_time(), 300u);
}

TEST(Synthesize, TracingDataHoldsTheFormatFiles) {
  auto root = slurp_file("/sys/kernel/tracing/events/sched/sched_switch/format");
  if (!root) GTEST_SKIP() << "no tracefs at /sys/kernel/tracing";
  auto td = build_tracing_data("/sys/kernel/tracing", {{"sched", "sched_switch"}});
  ASSERT_TRUE(td) << td.error().message();
  const std::string text(reinterpret_cast<const char*>(td->data()), td->size());
  EXPECT_EQ(text.substr(3, 7), "tracing");
  EXPECT_EQ(text.substr(10, 4), std::string("0.6\0", 4));
  // The format file is embedded byte for byte, trailing newline included.
  EXPECT_NE(text.find(*root), std::string::npos);
  EXPECT_FALSE(build_tracing_data("/sys/kernel/tracing", {{"nosuch", "event"}}));
}

TEST(Synthesize, SystemFeatures) {
  record::Features f;
  gather_system_features(f, "perfx test");
  ASSERT_TRUE(f.hostname.has_value());
  ASSERT_TRUE(f.nrcpus.has_value());
  EXPECT_GE(f.nrcpus->online, 1u);
  EXPECT_GE(f.nrcpus->available, f.nrcpus->online);
  ASSERT_TRUE(f.total_mem_kb.has_value());
  EXPECT_GT(*f.total_mem_kb, 0u);
  ASSERT_TRUE(f.cpu_topology.has_value());
  EXPECT_EQ(f.cpu_topology->cpus.size(), f.nrcpus->available);
  EXPECT_EQ(*f.version, "perfx test");
  std::string cpuid, desc;
  parse_cpuinfo(
      "vendor_id\t: AuthenticAMD\ncpu family\t: 26\nmodel\t\t: 2\n"
      "model name\t: AMD   EPYC\nstepping\t: 1\n",
      cpuid, desc);
  EXPECT_EQ(cpuid, "AuthenticAMD,26,2,1");
  EXPECT_EQ(desc, "AMD EPYC");
}

}  // namespace
}  // namespace perfx::sys
