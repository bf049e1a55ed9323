// perf.data writer -> reader round trips: file mode, pipe mode (file and real
// pipe), zstd with records spanning COMPRESSED records, features, truncation
// and corrupt headers, byte-swapped files, unfinalized files, golden files.
#pragma GCC diagnostic ignored "-Wnull-dereference"

#include <gtest/gtest.h>
#include <unistd.h>

#include <fmt/format.h>
#include <cstdio>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <random>
#include <thread>
#include <vector>

#include "../temp_dir.hpp"
#include "../test_files.hpp"
#include "../test_records.hpp"
#include "record/decoder.hpp"
#include "record/encoder.hpp"
#include "record/perf_data_reader.hpp"
#include "record/perf_data_writer.hpp"
#include "sample_features.hpp"

namespace perfx::record {
namespace {

namespace fs = std::filesystem;
using testing::sample_features;

constexpr std::uint64_t kSampleType = PERF_SAMPLE_IDENTIFIER | PERF_SAMPLE_IP | PERF_SAMPLE_TID |
                                      PERF_SAMPLE_TIME | PERF_SAMPLE_PERIOD | PERF_SAMPLE_CALLCHAIN;

raw::EventAttr attr_for(std::uint64_t config, std::uint64_t extra = 0) {
  raw::EventAttr a{};
  a.size = raw::kAttrSizeVer7;
  a.type = PERF_TYPE_SOFTWARE;
  a.config = config;
  a.sample_period = 1000;
  a.sample_type = kSampleType | extra;
  a.sample_id_all = 1;
  a.mmap = 1;
  a.comm = 1;
  return a;
}

using TempDir = test_support::TempDir;

// Writes: COMM, MMAP2, n samples (callchain of 3 + i), FINISHED_ROUND, EXIT.
Result<WriterStats> write_recording(const std::string& path, const WriterOptions& opts, int n,
                                    const Features* features = nullptr) {
  std::vector<WriterAttr> attrs{{attr_for(PERF_COUNT_SW_CPU_CLOCK), "cpu-clock", {41, 42}}};
  PERFX_TRY(w, PerfDataWriter::create(path, attrs, opts));
  if (features != nullptr) PERFX_CHECK(w.set_features(*features));
  auto with_id = [](Record r, std::uint64_t t) {
    r.sample_id.pid = 7;
    r.sample_id.tid = 8;
    r.sample_id.time = t;
    r.sample_id.id = 41;
    return r;
  };
  Record comm;
  comm.body = Comm{7, 8, "prog"};
  PERFX_CHECK(w.write(with_id(comm, 1)));
  Record mm;
  mm.body = test_support::mmap2_of(7, 8, 0x400000, 0x1000, "/usr/bin/prog");
  PERFX_CHECK(w.write(with_id(mm, 2)));
  std::vector<std::uint64_t> chain;
  for (int i = 0; i < n; ++i) {
    chain.assign(
        {PERF_CONTEXT_USER, 0x400100u + static_cast<std::uint64_t>(i), 0x400200, 0x400300});
    for (int k = 0; k < i % 5; ++k) chain.push_back(0x500000u + static_cast<std::uint64_t>(k));
    Sample s;
    s.identifier = i % 2 ? 41 : 42;
    s.ip = chain[1];
    s.pid = 7;
    s.tid = 8;
    s.time = 1000 + static_cast<std::uint64_t>(i);
    s.period = 1000;
    s.callchain = U64Array::of(chain);
    Record r;
    r.header.misc = PERF_RECORD_MISC_USER;
    r.body = s;
    PERFX_CHECK(w.write(r));
    if (i % 100 == 99) PERFX_CHECK(w.finish_round());
  }
  Record ex;
  ex.body = Exit{7, 1, 8, 1, 5000};
  PERFX_CHECK(w.write(with_id(ex, 5000)));
  PERFX_CHECK(w.finalize());
  return w.stats();
}

struct Seen {
  int samples = 0, comm = 0, mmap2 = 0, exit = 0, rounds = 0, other = 0;
  std::uint64_t ip_sum = 0, chain_frames = 0;
};

// How many records `r` gives before it stops (at the end or at an error).
int count_records(PerfDataReader& r) {
  RawRecord raw;
  int n = 0;
  while (r.next(raw)) ++n;
  return n;
}

Seen read_all(PerfDataReader& r) {
  Seen s;
  RawRecord raw;
  while (r.next(raw)) {
    auto rec = r.decode(raw);
    EXPECT_TRUE(rec) << (rec ? "" : rec.error().message());
    if (!rec) continue;
    if (const auto* smp = rec->get<Sample>()) {
      ++s.samples;
      s.ip_sum += smp->ip;
      s.chain_frames += smp->callchain.size();
      EXPECT_EQ(smp->callchain[1], smp->ip);
    } else if (const auto* c = rec->get<Comm>()) {
      ++s.comm;
      EXPECT_EQ(c->comm, "prog");
      EXPECT_EQ(rec->sample_id.tid, 8u);
    } else if (rec->get<Mmap2>() != nullptr) {
      ++s.mmap2;
      EXPECT_EQ(rec->get<Mmap2>()->filename, "/usr/bin/prog");
    } else if (rec->get<Exit>() != nullptr) {
      ++s.exit;
    } else if (rec->get<FinishedRound>() != nullptr) {
      ++s.rounds;
    } else {
      ++s.other;
    }
  }
  return s;
}

std::uint64_t expected_ip_sum(int n) {
  std::uint64_t sum = 0;
  for (int i = 0; i < n; ++i) sum += 0x400100u + static_cast<std::uint64_t>(i);
  return sum;
}

// perf's write_buildid() leaves each HEADER_BUILD_ID entry's type at zero: the reader
// takes the entries by their place in the section, not by their type.
TEST(PerfDataIo, BuildIdEntriesWithAZeroTypeAsPerfWritesThem) {
  Features in;
  in.build_ids.push_back(
      {-1, PERF_RECORD_MISC_KERNEL, std::vector<std::uint8_t>(20, 0x85), "[kernel.kallsyms]"});
  in.build_ids.push_back({7, PERF_RECORD_MISC_USER, {9, 8, 7}, "/usr/bin/dash"});
  constexpr int kBuildIdBit = 2;
  auto section = encode_feature(kBuildIdBit, in);
  ASSERT_TRUE(section);
  // Zero the type of every entry, as perf does.
  for (std::size_t pos = 0; pos + 8 <= section->size();) {
    std::uint16_t size = 0;
    std::memcpy(&size, section->data() + pos + 6, 2);
    ASSERT_GT(size, 0u);
    std::memset(section->data() + pos, 0, 4);
    pos += size;
  }
  Features out;
  ASSERT_TRUE(decode_feature(kBuildIdBit, *section, false, 0, out));
  ASSERT_EQ(out.build_ids.size(), 2u);
  EXPECT_EQ(out.build_ids[0].filename, "[kernel.kallsyms]");
  EXPECT_EQ(out.build_ids[0].build_id, std::vector<std::uint8_t>(20, 0x85));
  EXPECT_EQ(out.build_ids[1].filename, "/usr/bin/dash");
  EXPECT_EQ(out.build_ids[1].build_id, (std::vector<std::uint8_t>{9, 8, 7}));
}

TEST(PerfDataIo, FileModeRoundTripWithFeatures) {
  TempDir dir;
  const auto path = dir.file("f.data");
  const Features in = sample_features();
  auto st = write_recording(path, {}, 250, &in);
  ASSERT_TRUE(st) << st.error().message();
  EXPECT_EQ(st->samples, 250u);

  auto r = PerfDataReader::open(path);
  ASSERT_TRUE(r) << r.error().message();
  EXPECT_FALSE(r->is_pipe());
  EXPECT_FALSE(r->swapped());
  ASSERT_EQ(r->attrs().size(), 1u);
  EXPECT_EQ(r->event_name(0), "cpu-clock");
  EXPECT_EQ(r->attrs()[0].ids, (std::vector<std::uint64_t>{41, 42}));
  const Features& f = r->features();
  EXPECT_EQ(f.hostname, "testhost");
  EXPECT_EQ(f.osrelease, "6.1.0-test");
  EXPECT_EQ(f.nrcpus->available, 4u);
  EXPECT_EQ(f.nrcpus->online, 2u);
  EXPECT_EQ(f.total_mem_kb, 123456u);
  EXPECT_EQ(f.cmdline->at(2), "-g");
  ASSERT_TRUE(f.cpu_topology);
  EXPECT_EQ(f.cpu_topology->thread_siblings.size(), 2u);
  ASSERT_EQ(f.cpu_topology->cpus.size(), 4u);
  EXPECT_EQ(f.cpu_topology->cpus[3].core_id, 1u);
  EXPECT_TRUE(f.cpu_topology->has_dies);
  ASSERT_EQ(f.numa_topology.size(), 1u);
  EXPECT_EQ(f.numa_topology[0].cpus, "0-3");
  EXPECT_EQ(f.pmu_mappings[1].name, "tracepoint");
  EXPECT_EQ(f.group_desc[0].name, "{cpu-clock}");
  EXPECT_EQ(f.cache[0].size, "32K");
  EXPECT_EQ(f.clockid_res_ns, 1u);
  EXPECT_EQ(f.clock_data->wall_clock_ns, 1700000000123456789ULL);
  ASSERT_EQ(f.build_ids.size(), 2u);
  EXPECT_EQ(f.build_ids[0].filename, "[kernel.kallsyms]");
  EXPECT_EQ(f.build_ids[0].build_id.size(), 20u);
  EXPECT_EQ(f.build_ids[1].build_id, (std::vector<std::uint8_t>{1, 2, 3, 4}));
  EXPECT_EQ(f.build_ids[1].misc, PERF_RECORD_MISC_USER);
  EXPECT_EQ(f.cpu_pmu_caps->caps[0].second, "32");
  EXPECT_EQ(f.hybrid_topology[0].pmu_name, "cpu_core");
  EXPECT_EQ(f.pmu_caps[0].pmu, "ibs_op");
  ASSERT_EQ(f.event_desc.size(), 1u);  // written automatically from the attrs
  EXPECT_EQ(f.event_desc[0].name, "cpu-clock");
  ASSERT_TRUE(f.sample_time);  // tracked from the samples
  EXPECT_EQ(f.sample_time->first_ns, 1000u);
  EXPECT_EQ(f.sample_time->last_ns, 1249u);

  Seen s = read_all(*r);
  EXPECT_EQ(s.samples, 250);
  EXPECT_EQ(s.comm, 1);
  EXPECT_EQ(s.mmap2, 1);
  EXPECT_EQ(s.exit, 1);
  EXPECT_EQ(s.rounds, 2);
  EXPECT_EQ(s.ip_sum, expected_ip_sum(250));
  EXPECT_FALSE(r->error());
  EXPECT_EQ(r->stats().by_type[PERF_RECORD_SAMPLE], 250u);
  EXPECT_EQ(r->stats().malformed_records, 0u);
  EXPECT_EQ(r->stats().skipped_bytes, 0u);

  const std::string text = r->header_text();
  EXPECT_NE(text.find("# hostname : testhost\n"), std::string::npos);
  EXPECT_NE(text.find("# nrcpus online : 2\n# nrcpus avail : 4\n"), std::string::npos);
  EXPECT_NE(text.find("# cmdline : /usr/bin/perfx record -g -- prog \n"), std::string::npos);
  EXPECT_NE(text.find("# event : name = cpu-clock, , id = { 41, 42 }, type = 1, size = 128"),
            std::string::npos);
  EXPECT_NE(text.find("# sample duration :      0.000 ms"), std::string::npos);
  EXPECT_NE(text.find("# missing features: "), std::string::npos);
}

TEST(PerfDataIo, PipeModeFromFileAndFromPipe) {
  TempDir dir;
  const auto path = dir.file("p.data");
  WriterOptions o;
  o.pipe = true;
  Features in = sample_features();
  ASSERT_TRUE(write_recording(path, o, 120, &in));
  {
    auto r = PerfDataReader::open(path);
    ASSERT_TRUE(r) << r.error().message();
    EXPECT_TRUE(r->is_pipe());
    Seen s = read_all(*r);
    EXPECT_EQ(s.samples, 120);
    EXPECT_EQ(s.ip_sum, expected_ip_sum(120));
    EXPECT_EQ(r->attrs().size(), 1u);
    EXPECT_EQ(r->features().hostname, "testhost");  // from HEADER_FEATURE records
    EXPECT_EQ(r->stats().by_type[raw::PERF_RECORD_HEADER_ATTR], 1u);
  }
  // Through a real pipe with a tiny chunk size, so records straddle reads.
  const auto bytes = test_support::slurp_bytes(path);
  int fds[2];
  ASSERT_EQ(::pipe(fds), 0);
  std::thread feeder([&] {
    std::size_t off = 0;
    while (off < bytes.size()) {
      const ssize_t w =
          ::write(fds[1], bytes.data() + off, std::min<std::size_t>(1000, bytes.size() - off));
      if (w <= 0) break;
      off += static_cast<std::size_t>(w);
    }
    ::close(fds[1]);
  });
  ReaderOptions ro;
  ro.pipe_chunk = 37;
  auto r = PerfDataReader::open_fd(fds[0], true, "<pipe>", ro);
  ASSERT_TRUE(r) << r.error().message();
  Seen s = read_all(*r);
  feeder.join();
  EXPECT_EQ(s.samples, 120);
  EXPECT_EQ(s.ip_sum, expected_ip_sum(120));
  EXPECT_FALSE(r->error());
}

TEST(PerfDataIo, CompressedRecordsSpanCompressedBlocks) {
  TempDir dir;
  const auto path = dir.file("z.data");
  // Incompressible RAW payloads: each frame (<= 8 KiB of records) needs several
  // < 64 KiB COMPRESSED records only if big; use a small mmap_len and many records.
  std::vector<WriterAttr> attrs{{attr_for(PERF_COUNT_SW_CPU_CLOCK, PERF_SAMPLE_RAW), "x", {1}}};
  WriterOptions o;
  o.compress_level = 1;
  o.compress_mmap_len = 300000;
  auto w = PerfDataWriter::create(path, attrs, o);
  ASSERT_TRUE(w) << w.error().message();
  std::mt19937_64 rng(42);
  std::vector<std::byte> payload(1020);
  std::vector<std::uint64_t> chain = {PERF_CONTEXT_USER, 1, 2};
  std::uint64_t raw_sum = 0;
  const int n = 2000;
  for (int i = 0; i < n; ++i) {
    for (auto& b : payload) b = static_cast<std::byte>(rng());
    for (auto b : payload) raw_sum += std::to_integer<std::uint64_t>(b);
    Sample s;
    s.identifier = 1;
    s.ip = static_cast<std::uint64_t>(i);
    s.time = static_cast<std::uint64_t>(i);
    s.callchain = U64Array::of(chain);
    s.raw = payload;
    Record r;
    r.body = s;
    ASSERT_TRUE(w->write(r));
  }
  ASSERT_TRUE(w->finalize());
  EXPECT_GT(w->stats().compressed_bytes, 0u);

  auto r = PerfDataReader::open(path);
  ASSERT_TRUE(r) << r.error().message();
  ASSERT_TRUE(r->features().compressed);
  EXPECT_EQ(r->features().compressed->type, 1u);
  EXPECT_EQ(r->features().compressed->mmap_len, 300000u);
  RawRecord raw;
  int samples = 0;
  std::uint64_t got_sum = 0, ip_sum = 0;
  while (r->next(raw)) {
    ASSERT_TRUE(raw.from_compressed);
    auto s = r->decode_sample(raw);
    ASSERT_TRUE(s) << s.error().message();
    ++samples;
    ip_sum += s->ip;
    for (std::size_t k = 0; k < 1020; ++k) got_sum += std::to_integer<std::uint64_t>(s->raw[k]);
  }
  EXPECT_FALSE(r->error());
  EXPECT_EQ(samples, n);
  EXPECT_EQ(ip_sum, static_cast<std::uint64_t>(n) * (n - 1) / 2);
  EXPECT_EQ(got_sum, raw_sum);
  // 2 MB of random data cannot fit 64 KiB records without splitting frames.
  EXPECT_GT(r->stats().compressed_records, 30u);
  EXPECT_EQ(r->stats().skipped_bytes, 0u);
}

TEST(PerfDataIo, TruncatedFileReportsOffsetAndKeepsWhatItCould) {
  TempDir dir;
  const auto path = dir.file("t.data");
  ASSERT_TRUE(write_recording(path, {}, 50, nullptr));
  auto bytes = test_support::slurp_bytes(path);
  auto r0 = PerfDataReader::from_memory(bytes);
  ASSERT_TRUE(r0);
  const std::uint64_t data_off = r0->data_offset();
  const std::uint64_t data_size = r0->data_size();
  // Cut the data section in the middle of a record, and fix up data.size so the
  // header is consistent: the reader must stop at the torn record.
  const std::uint64_t keep = data_size / 2 + 3;
  std::vector<std::byte> cut(bytes.begin(),
                             bytes.begin() + static_cast<std::ptrdiff_t>(data_off + keep));
  std::memcpy(cut.data() + 48, &keep, 8);  // perf_file_header.data.size
  std::memset(cut.data() + 72, 0, 32);     // no features
  auto r = PerfDataReader::from_memory(cut);
  ASSERT_TRUE(r) << r.error().message();
  EXPECT_GT(count_records(*r), 10);
  ASSERT_TRUE(r->error());
  EXPECT_EQ(r->error()->code(), Errc::kMalformedData);
  EXPECT_NE(r->error()->message().find("extends past the end"), std::string::npos)
      << r->error()->message();
  EXPECT_NE(r->error()->message().find("offset 0x"), std::string::npos);
  EXPECT_GT(r->stats().skipped_bytes, 0u);

  // Data section beyond the end of the file (a truncated file): it opens, warns with the
  // offsets, reads every record that is there and counts the missing bytes as skipped.
  std::vector<std::byte> bad = bytes;
  const std::uint64_t huge = bytes.size() * 2;
  std::memcpy(bad.data() + 48, &huge, 8);
  auto e = PerfDataReader::from_memory(bad, "perf.data");
  ASSERT_TRUE(e) << e.error().message();
  ASSERT_FALSE(e->stats().warnings.empty());
  const auto& w = e->stats().warnings.front();
  EXPECT_NE(w.find("perf.data: data section at offset 0x"), std::string::npos) << w;
  EXPECT_NE(w.find("extends past end of file (size 0x"), std::string::npos) << w;
  EXPECT_EQ(e->stats().skipped_bytes, huge - (bytes.size() - data_off));
  EXPECT_GE(count_records(*e), 50);  // every record of the original data is still read

  // Offsets past the end of the file entirely: a clear open error.
  std::vector<std::byte> past = bytes;
  const std::uint64_t far = bytes.size() + 64;
  std::memcpy(past.data() + 40, &far, 8);  // perf_file_header.data.offset
  auto f = PerfDataReader::from_memory(past, "perf.data");
  ASSERT_FALSE(f);
  EXPECT_NE(f.error().message().find("extends past end of file"), std::string::npos)
      << f.error().message();

  // A record with size < 8 in the middle: stop there, count the rest as skipped.
  std::vector<std::byte> corrupt = bytes;
  const std::size_t at = static_cast<std::size_t>(data_off) + 200;
  // find the record boundary at or after `at` by walking headers
  std::size_t pos = static_cast<std::size_t>(data_off);
  while (pos < at) {
    std::uint16_t sz;
    std::memcpy(&sz, corrupt.data() + pos + 6, 2);
    pos += sz;
  }
  std::uint16_t victim_size;
  std::memcpy(&victim_size, corrupt.data() + pos + 6, 2);
  corrupt[pos + 6] = std::byte{2};
  corrupt[pos + 7] = std::byte{0};
  {
    // Default: resynchronise at the next record, count the skipped bytes.
    auto c = PerfDataReader::from_memory(corrupt);
    ASSERT_TRUE(c);
    const int records = count_records(*c);
    auto clean = PerfDataReader::from_memory(bytes);
    const int all = count_records(*clean);
    EXPECT_FALSE(c->error());
    EXPECT_EQ(records, all - 1);
    EXPECT_EQ(c->stats().skipped_bytes, victim_size);
    EXPECT_EQ(c->stats().malformed_records, 1u);
    ASSERT_FALSE(c->stats().warnings.empty());
    EXPECT_NE(c->stats().warnings[0].find(fmt::format("offset {:#x}", pos)), std::string::npos)
        << c->stats().warnings[0];
  }
  {
    // Without resync: stop there, error() names the offset.
    ReaderOptions no_resync;
    no_resync.resync = false;
    auto c = PerfDataReader::from_memory(corrupt, "x", no_resync);
    ASSERT_TRUE(c);
    count_records(*c);
    ASSERT_TRUE(c->error());
    EXPECT_NE(c->error()->message().find(fmt::format("offset {:#x}", pos)), std::string::npos)
        << c->error()->message();
  }

  // Not a perf.data file at all.
  std::vector<std::byte> junk(200, std::byte{'j'});
  auto j = PerfDataReader::from_memory(junk);
  ASSERT_FALSE(j);
  EXPECT_NE(j.error().message().find("bad magic"), std::string::npos);
}

TEST(PerfDataIo, UnfinalizedFileIsReadToTheEnd) {
  TempDir dir;
  const auto path = dir.file("u.data");
  {
    std::vector<WriterAttr> attrs{{attr_for(PERF_COUNT_SW_CPU_CLOCK), "cpu-clock", {1}}};
    auto w = PerfDataWriter::create(path, attrs, {});
    ASSERT_TRUE(w);
    std::vector<std::uint64_t> chain = {1};
    for (int i = 0; i < 10; ++i) ASSERT_TRUE(w->write(test_support::chain_sample(1, 5, 0, chain)));
    // destroyed without finalize(): crash / SIGKILL before the header rewrite
  }
  // Every flush updates data.size in the header: the file is complete up to there.
  auto r = PerfDataReader::open(path);
  ASSERT_TRUE(r) << r.error().message();
  EXPECT_EQ(count_records(*r), 10);
  EXPECT_FALSE(r->error());
  // No feature sections: the recorder never finished, and the reader says so.
  ASSERT_EQ(r->stats().warnings.size(), 1u);
  EXPECT_NE(r->stats().warnings[0].find("cut short"), std::string::npos);

  // A header still saying data size 0 (killed before the first flush, or perf's own
  // in-progress files): the reader takes the rest of the file and warns.
  auto bytes = test_support::slurp_bytes(path);
  std::memset(bytes.data() + 48, 0, 8);
  auto z = PerfDataReader::from_memory(bytes);
  ASSERT_TRUE(z) << z.error().message();
  EXPECT_EQ(count_records(*z), 10);
  ASSERT_FALSE(z->stats().warnings.empty());
  EXPECT_NE(z->stats().warnings[0].find("not finalized"), std::string::npos);
}

// Builds a big-endian copy of a file written by write_recording() (1 attr, COMM,
// MMAP2, SAMPLEs, FINISHED_ROUND, EXIT; no features) by swapping every field.
std::vector<std::byte> byte_swap_file(const std::vector<std::byte>& in) {
  std::vector<std::byte> out = in;
  auto sw = [&](std::size_t off, int width) {
    std::reverse(out.begin() + static_cast<std::ptrdiff_t>(off),
                 out.begin() + static_cast<std::ptrdiff_t>(off) + width);
  };
  auto rd64 = [&](std::size_t off) {
    std::uint64_t v;
    std::memcpy(&v, in.data() + off, 8);
    return v;
  };
  for (std::size_t o = 0; o < 104; o += 8) sw(o, 8);  // header: all u64
  const std::uint64_t attrs_off = rd64(24), data_off = rd64(40), data_size = rd64(48);
  for (std::size_t o = 104; o < attrs_off; o += 8) sw(o, 8);  // ids
  // attr fields (offset, width) up to 128, then the ids section
  const std::pair<int, int> fields[] = {{0, 4},   {4, 4},   {8, 8},   {16, 8}, {24, 8},  {32, 8},
                                        {40, 8},  {48, 4},  {52, 4},  {56, 8}, {64, 8},  {72, 8},
                                        {80, 8},  {88, 4},  {92, 4},  {96, 8}, {104, 4}, {108, 2},
                                        {110, 2}, {112, 4}, {116, 4}, {120, 8}};
  for (auto [o, w] : fields) sw(attrs_off + static_cast<std::size_t>(o), w);
  sw(attrs_off + 128, 8);
  sw(attrs_off + 136, 8);
  std::size_t pos = data_off;
  while (pos < data_off + data_size) {
    std::uint32_t type;
    std::uint16_t size;
    std::memcpy(&type, in.data() + pos, 4);
    std::memcpy(&size, in.data() + pos + 6, 2);
    sw(pos, 4);
    sw(pos + 4, 2);
    sw(pos + 6, 2);
    const std::size_t body = pos + 8, end = pos + size;
    const std::size_t trailer = end - 24;  // TID TIME IDENTIFIER
    auto swap_trailer = [&] {
      sw(trailer, 4);
      sw(trailer + 4, 4);
      sw(trailer + 8, 8);
      sw(trailer + 16, 8);
    };
    if (type == PERF_RECORD_SAMPLE) {
      sw(body, 8);                                                // identifier
      sw(body + 8, 8);                                            // ip
      sw(body + 16, 4);                                           // pid
      sw(body + 20, 4);                                           // tid
      sw(body + 24, 8);                                           // time
      sw(body + 32, 8);                                           // period
      for (std::size_t o = body + 40; o < end; o += 8) sw(o, 8);  // nr + ips
    } else if (type == PERF_RECORD_COMM) {
      sw(body, 4);
      sw(body + 4, 4);
      swap_trailer();
    } else if (type == PERF_RECORD_MMAP2) {
      sw(body, 4);
      sw(body + 4, 4);
      for (std::size_t o = body + 8; o < body + 32; o += 8) sw(o, 8);
      sw(body + 32, 4);
      sw(body + 36, 4);
      sw(body + 40, 8);
      sw(body + 48, 8);
      sw(body + 56, 4);
      sw(body + 60, 4);
      swap_trailer();
    } else if (type == PERF_RECORD_EXIT) {
      for (std::size_t o = body; o < body + 16; o += 4) sw(o, 4);
      sw(body + 16, 8);
      swap_trailer();
    }
    pos = end;
  }
  out.resize(data_off + data_size);     // drop the feature sections
  std::memset(out.data() + 72, 0, 32);  // and their bits
  return out;
}

TEST(PerfDataIo, ByteSwappedFile) {
  TempDir dir;
  const auto path = dir.file("native.data");
  ASSERT_TRUE(write_recording(path, {}, 30, nullptr));
  const auto swapped = byte_swap_file(test_support::slurp_bytes(path));
  auto r = PerfDataReader::from_memory(swapped, "swapped");
  ASSERT_TRUE(r) << r.error().message();
  EXPECT_TRUE(r->swapped());
  ASSERT_EQ(r->attrs().size(), 1u);
  EXPECT_EQ(r->attrs()[0].attr.sample_type, kSampleType);
  EXPECT_EQ(r->attrs()[0].attr.config, static_cast<std::uint64_t>(PERF_COUNT_SW_CPU_CLOCK));
  EXPECT_EQ(r->attrs()[0].ids, (std::vector<std::uint64_t>{41, 42}));
  Seen s = read_all(*r);
  EXPECT_EQ(s.samples, 30);
  EXPECT_EQ(s.comm, 1);
  EXPECT_EQ(s.mmap2, 1);
  EXPECT_EQ(s.exit, 1);
  EXPECT_EQ(s.ip_sum, expected_ip_sum(30));
  EXPECT_FALSE(r->error());
}

TEST(PerfDataIo, WriterRejectsBadInput) {
  TempDir dir;
  EXPECT_FALSE(PerfDataWriter::create(dir.file("a"), {}, {}));
  std::vector<WriterAttr> attrs{{attr_for(0), "x", {1}}};
  WriterOptions o;
  o.compress_level = 99;
  EXPECT_FALSE(PerfDataWriter::create(dir.file("b"), attrs, o));
  auto w = PerfDataWriter::create(dir.file("c"), attrs, {});
  ASSERT_TRUE(w);
  const std::byte bad[8] = {std::byte{9}, {}, {}, {}, {}, {}, std::byte{4}, {}};
  auto e = w->write_bytes(bad);
  ASSERT_FALSE(e);
  EXPECT_EQ(e.error().code(), Errc::kInvalidArgument);
  ASSERT_TRUE(w->finalize());
  EXPECT_TRUE(w->finalize());  // idempotent
  EXPECT_FALSE(w->finish_round());
  EXPECT_FALSE(PerfDataWriter::create("/nonexistent-dir/x.data", attrs, {}));
}

// perf.data files recorded by Linux perf 6.1 on the dev VM (tests/data/README.md).
TEST(PerfDataGolden, PerfRecordedFilesDecodeCleanly) {
  const fs::path dir = PERFX_TEST_DATA_DIR;
  int files = 0;
  for (const auto& entry : fs::directory_iterator(dir)) {
    const auto name = entry.path().filename().string();
    if (name.rfind("fmt-", 0) != 0 || entry.path().extension() != ".data") continue;
    ++files;
    auto r = PerfDataReader::open(entry.path().string());
    ASSERT_TRUE(r) << name << ": " << r.error().message();
    RawRecord raw;
    std::uint64_t samples = 0;
    while (r->next(raw)) {
      auto rec = r->decode(raw);
      ASSERT_TRUE(rec) << name << ": " << rec.error().message();
      if (raw.header.type == PERF_RECORD_SAMPLE) ++samples;
    }
    EXPECT_FALSE(r->error()) << name;
    EXPECT_GT(samples, 0u) << name;
    EXPECT_EQ(r->stats().malformed_records, 0u) << name;
    EXPECT_EQ(r->stats().unknown_records, 0u) << name;
    EXPECT_FALSE(r->event_name(0).empty()) << name;
  }
  if (files == 0) GTEST_SKIP() << "no tests/data/fmt-*.data files";
}

}  // namespace
}  // namespace perfx::record
