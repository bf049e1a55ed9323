// The public typed-record API (include/perfx/records.hpp, sampler.hpp, perf_data.hpp):
// every kernel record type and every sample field, encoded with the library's encoder
// and writer, decoded back through RecordDecoder, a RingRecordReader over a simulated
// ring buffer (records split at every offset across its end) and PerfDataRecords (file,
// pipe and compressed). Each decoded record is re-encoded and must give the same bytes,
// so every field of every type is compared, not just the few checked by name.
// get<T>()-> after ASSERT_NE(..., nullptr) trips GCC 12 -Wnull-dereference (false positive).
#pragma GCC diagnostic ignored "-Wnull-dereference"

#include <gtest/gtest.h>
#include <filesystem>

#include <cstring>
#include <string>
#include <vector>

#include "../temp_dir.hpp"
#include "every_field_sample.hpp"
#include "perfx/perf_data.hpp"
#include "perfx/records.hpp"
#include "record/encoder.hpp"
#include "record/sample_layout.hpp"

namespace perfx {
namespace {

using namespace perfx::record;  // the typed records are public: perfx::record::*

constexpr std::uint64_t kIdFull = test_support::kEveryFieldId;
constexpr std::uint64_t kIdWeight = 601;

// Attr 0: every sample_type field (every_field_sample.hpp). Attr 1: a different
// sample_type (plain WEIGHT, non-group read): told apart by PERF_SAMPLE_IDENTIFIER.
constexpr auto full_attr = test_support::every_field_attr;

raw::EventAttr weight_attr() {
  raw::EventAttr a{};
  a.size = raw::kAttrSizeVer8;
  a.type = PERF_TYPE_SOFTWARE;
  a.config = PERF_COUNT_SW_PAGE_FAULTS;
  a.sample_type = PERF_SAMPLE_IDENTIFIER | PERF_SAMPLE_IP | PERF_SAMPLE_TID | PERF_SAMPLE_TIME |
                  PERF_SAMPLE_READ | PERF_SAMPLE_WEIGHT;
  a.read_format = PERF_FORMAT_ID | PERF_FORMAT_TOTAL_TIME_ENABLED;
  a.sample_id_all = 1;
  return a;
}

// Backing storage for the views the input records point at.
struct Payloads : test_support::SamplePayloads {
  std::vector<std::uint64_t> ns = {1, 2, 3, 4};
  std::vector<std::byte> poke_old = {std::byte{0x90}, std::byte{0x90}, std::byte{0x90}};
  std::vector<std::byte> poke_new = {std::byte{0xcc}, std::byte{0x0f}};
  std::vector<std::uint64_t> read_group = {100, kIdFull, 0, 200, 502, 5};
};

Record make(Record::Body body, int attr, std::uint64_t time, std::uint16_t misc = 0) {
  Record r;
  r.header.type = type_of_body(body);
  r.header.misc = misc;
  r.body = std::move(body);
  r.attr_index = attr;
  r.sample_id = test_support::full_sample_id(attr == 0 ? kIdFull : kIdWeight, time);
  return r;
}

// Every kernel record type (and both MMAP2 forms), samples of both attrs in between.
std::vector<Record> every_record(const Payloads& p) {
  std::vector<Record> out;
  std::uint64_t t = 1000;
  Sample s = test_support::every_field_sample(p);
  out.push_back(make(s, 0, t++, PERF_RECORD_MISC_USER | PERF_RECORD_MISC_EXACT_IP));
  out.back().sample_id = {};  // a SAMPLE carries its identity in its fields

  out.push_back(make(Mmap{11, 12, 0x400000, 0x1000, 0, "/bin/true"}, 0, t++));
  out.push_back(make(Lost{kIdFull, 17}, 0, t++));
  out.push_back(make(Comm{11, 12, "worker"}, 0, t++, PERF_RECORD_MISC_COMM_EXEC));
  out.push_back(make(Exit{11, 1, 12, 1, 99}, 0, t++));
  Record thr = make(Throttle{5, kIdFull, 78}, 0, t++);
  out.push_back(thr);
  thr.header.type = PERF_RECORD_UNTHROTTLE;
  thr.sample_id.time = t++;
  out.push_back(thr);
  out.push_back(make(Fork{13, 11, 14, 12, 98}, 0, t++));
  Read rd;
  rd.pid = 11;
  rd.tid = 12;
  rd.values.read_format = full_attr().read_format;
  rd.values.nr = 2;
  rd.values.time_enabled = 10;
  rd.values.time_running = 9;
  rd.values.entries = std::as_bytes(std::span(p.read_group));
  out.push_back(make(rd, 0, t++));
  const Mmap2 m2 = test_support::libc_mmap2();
  out.push_back(make(m2, 1, t++));
  Mmap2 bid = m2;
  bid.has_build_id = true;
  bid.maj = bid.min = 0;
  bid.ino = bid.ino_generation = 0;
  bid.build_id_size = 20;
  for (std::uint8_t i = 0; i < 20; ++i) bid.build_id[i] = static_cast<std::uint8_t>(0xa0 + i);
  out.push_back(make(bid, 1, t++, PERF_RECORD_MISC_MMAP_BUILD_ID));
  out.push_back(make(Aux{0x1000, 0x800, PERF_AUX_FLAG_TRUNCATED}, 0, t++));
  out.push_back(make(ItraceStart{11, 12}, 0, t++));
  out.push_back(make(LostSamples{33}, 0, t++));
  out.push_back(make(Switch{}, 0, t++, PERF_RECORD_MISC_SWITCH_OUT));
  out.push_back(make(SwitchCpuWide{21, 22}, 0, t++, PERF_RECORD_MISC_SWITCH_OUT_PREEMPT));
  Namespaces ns;
  ns.pid = 11;
  ns.tid = 12;
  ns.nr_namespaces = 2;
  ns.link_info = U64Array::of(p.ns);
  out.push_back(make(ns, 0, t++));
  out.push_back(make(Ksymbol{0xffffffffc0000000, 0x100, PERF_RECORD_KSYMBOL_TYPE_BPF, 0,
                             "bpf_prog_0123456789abcdef_f"},
                     0, t++));
  BpfEvent be;
  be.type = PERF_BPF_EVENT_PROG_LOAD;
  be.id = 77;
  be.tag = {1, 2, 3, 4, 5, 6, 7, 8};
  out.push_back(make(be, 0, t++));
  out.push_back(make(Cgroup{4242, "/system.slice/x.service"}, 0, t++));
  TextPoke tp;
  tp.addr = 0xffffffff81000000;
  tp.old_len = 3;
  tp.new_len = 2;
  tp.old_bytes = p.poke_old;
  tp.new_bytes = p.poke_new;
  out.push_back(make(tp, 0, t++));
  out.push_back(make(AuxOutputHwId{0x55}, 0, t++));

  Sample w;
  w.identifier = kIdWeight;
  w.ip = 0x402000;
  w.pid = 100;
  w.tid = 102;
  w.time = t++;
  w.read.read_format = weight_attr().read_format;
  w.read.time_enabled = 3;
  w.read.single = {987, kIdWeight, 0};
  w.weight = 321;
  out.push_back(make(w, 1, 0, PERF_RECORD_MISC_KERNEL));
  out.back().sample_id = {};
  return out;
}

class TypedRecords : public ::testing::Test {
 protected:
  void SetUp() override {
    decoder.add(full_attr(), std::vector<std::uint64_t>{kIdFull}, "full");
    decoder.add(weight_attr(), std::vector<std::uint64_t>{kIdWeight}, "weight");
    layouts = {SampleLayout::from_attr(full_attr()), SampleLayout::from_attr(weight_attr())};
    records = every_record(payloads);
    for (const auto& r : records) {
      std::vector<std::byte> one;
      auto ok = encode_record(r, layouts[static_cast<std::size_t>(r.attr_index)], one);
      ASSERT_TRUE(ok) << record_type_name(r.type()) << ": " << ok.error().message();
      encoded.push_back(one);
      stream.insert(stream.end(), one.begin(), one.end());
    }
  }

  // The decoded record must re-encode to the bytes it came from (every field compared).
  void expect_same(const Record& got, std::size_t i) {
    ASSERT_LT(i, encoded.size());
    ASSERT_EQ(got.type(), records[i].type()) << "record " << i;
    EXPECT_EQ(got.attr_index, records[i].attr_index) << record_type_name(got.type());
    std::vector<std::byte> again;
    ASSERT_TRUE(encode_record(got, layouts[static_cast<std::size_t>(got.attr_index)], again));
    EXPECT_EQ(again, encoded[i]) << "re-encoding " << record_type_name(got.type());
  }

  Payloads payloads;
  RecordDecoder decoder;
  std::vector<SampleLayout> layouts;
  std::vector<Record> records;
  std::vector<std::vector<std::byte>> encoded;
  std::vector<std::byte> stream;
};

TEST_F(TypedRecords, EveryKernelRecordTypeIsCovered) {
  std::vector<bool> seen(PERF_RECORD_MAX, false);
  for (const auto& r : records) seen[r.type()] = true;
  for (std::uint32_t t = PERF_RECORD_MMAP; t < PERF_RECORD_MAX; ++t) {
    EXPECT_TRUE(seen[t]) << "no " << record_type_name(t) << " in the round trip";
  }
  EXPECT_EQ(decoder.size(), 2u);
  EXPECT_EQ(decoder.name(1), "weight");
  EXPECT_EQ(decoder.attr(0).sample_type, full_attr().sample_type);
}

TEST_F(TypedRecords, DecoderRoundTripsEveryTypeAndSampleField) {
  Record rec;
  std::size_t off = 0;
  for (std::size_t i = 0; i < records.size(); ++i) {
    auto ok = decoder.decode(std::span(stream).subspan(off), rec, false, off);
    ASSERT_TRUE(ok) << ok.error().message();
    expect_same(rec, i);
    if (rec.type() != PERF_RECORD_SAMPLE) {
      EXPECT_EQ(rec.sample_id.time, records[i].sample_id.time) << record_type_name(rec.type());
      EXPECT_EQ(rec.sample_id.id, records[i].sample_id.id);
      EXPECT_EQ(rec.sample_id.tid, 12u);
      if (rec.attr_index == 0) {  // attr 1's trailer has no CPU and no STREAM_ID
        EXPECT_EQ(rec.sample_id.cpu, 1u);
        EXPECT_EQ(rec.sample_id.stream_id, 78u);
      } else {
        EXPECT_FALSE(rec.sample_id.has(PERF_SAMPLE_CPU));
      }
    }
    off += rec.header.size;
  }
  EXPECT_EQ(off, stream.size());
}

TEST_F(TypedRecords, SampleFieldsByName) {
  Record rec;
  ASSERT_TRUE(decoder.decode(encoded[0], rec));
  const auto* s = rec.get<Sample>();
  ASSERT_NE(s, nullptr);
  EXPECT_EQ(rec.attr_index, 0);
  EXPECT_EQ(cpumode(rec.header.misc), PERF_RECORD_MISC_USER);
  EXPECT_TRUE(misc_exact_ip(rec.header.misc));
  ASSERT_NO_FATAL_FAILURE(test_support::expect_every_field(*s));

  // The other attr's sample: found by IDENTIFIER, decoded with its own layout.
  ASSERT_TRUE(decoder.decode(encoded.back(), rec));
  const auto* w = rec.get<Sample>();
  ASSERT_NE(w, nullptr);
  EXPECT_EQ(rec.attr_index, 1);
  EXPECT_EQ(w->weight, 321u);
  EXPECT_FALSE(w->read.group());
  EXPECT_EQ(w->read[0].value, 987u);
  EXPECT_EQ(w->read[0].id, kIdWeight);
  EXPECT_EQ(w->read.time_enabled, 3u);
  EXPECT_FALSE(w->has(PERF_SAMPLE_CALLCHAIN));
}

TEST_F(TypedRecords, NonSampleRecordsByName) {
  Record rec;
  auto at = [&](std::uint32_t type, std::uint16_t misc_bit = 0) -> const Record& {
    for (std::size_t i = 0; i < records.size(); ++i) {
      if (records[i].type() == type && (misc_bit == 0 || (records[i].header.misc & misc_bit))) {
        EXPECT_TRUE(decoder.decode(encoded[i], rec));
        return rec;
      }
    }
    ADD_FAILURE() << "no " << record_type_name(type);
    return rec;
  };
  const auto* comm = at(PERF_RECORD_COMM).get<Comm>();
  ASSERT_NE(comm, nullptr);
  EXPECT_EQ(comm->comm, "worker");
  EXPECT_TRUE(misc_comm_exec(rec.header.misc));
  const auto* m2 = at(PERF_RECORD_MMAP2).get<Mmap2>();
  ASSERT_NE(m2, nullptr);
  EXPECT_FALSE(m2->has_build_id);
  EXPECT_EQ(m2->ino, 123456u);
  EXPECT_EQ(m2->filename, "/usr/lib/libc.so.6");
  EXPECT_EQ(rec.attr_index, 1);  // the trailer's IDENTIFIER picks the attr
  const auto* bid = at(PERF_RECORD_MMAP2, PERF_RECORD_MISC_MMAP_BUILD_ID).get<Mmap2>();
  ASSERT_NE(bid, nullptr);
  EXPECT_TRUE(bid->has_build_id);
  EXPECT_EQ(bid->build_id_size, 20u);
  EXPECT_EQ(bid->build_id[19], 0xa0 + 19);
  const auto* tp = at(PERF_RECORD_TEXT_POKE).get<TextPoke>();
  ASSERT_NE(tp, nullptr);
  EXPECT_EQ(tp->old_bytes.size(), 3u);
  EXPECT_EQ(tp->new_bytes[0], std::byte{0xcc});
  const auto* ns = at(PERF_RECORD_NAMESPACES).get<Namespaces>();
  ASSERT_NE(ns, nullptr);
  EXPECT_EQ(ns->inode(1), 4u);
  const auto* rd = at(PERF_RECORD_READ).get<Read>();
  ASSERT_NE(rd, nullptr);
  EXPECT_EQ(rd->values[1].value, 200u);
  EXPECT_EQ(rd->values[1].lost, 5u);
  EXPECT_EQ(at(PERF_RECORD_UNTHROTTLE).get<Throttle>()->id, kIdFull);
  EXPECT_EQ(at(PERF_RECORD_LOST).get<Lost>()->lost, 17u);
  EXPECT_TRUE(misc_switch_out(at(PERF_RECORD_SWITCH).header.misc));
  EXPECT_EQ(at(PERF_RECORD_SWITCH_CPU_WIDE).get<SwitchCpuWide>()->next_prev_tid, 22u);
  EXPECT_EQ(at(PERF_RECORD_KSYMBOL).get<Ksymbol>()->name, "bpf_prog_0123456789abcdef_f");
  EXPECT_EQ(at(PERF_RECORD_BPF_EVENT).get<BpfEvent>()->tag[7], 8u);
  EXPECT_EQ(at(PERF_RECORD_CGROUP).get<Cgroup>()->path, "/system.slice/x.service");
  EXPECT_EQ(at(PERF_RECORD_AUX).get<Aux>()->flags,
            static_cast<std::uint64_t>(PERF_AUX_FLAG_TRUNCATED));
  EXPECT_EQ(at(PERF_RECORD_AUX_OUTPUT_HW_ID).get<AuxOutputHwId>()->hw_id, 0x55u);
  EXPECT_EQ(at(PERF_RECORD_LOST_SAMPLES).get<LostSamples>()->lost, 33u);
  EXPECT_EQ(at(PERF_RECORD_ITRACE_START).get<ItraceStart>()->tid, 12u);
  EXPECT_EQ(at(PERF_RECORD_FORK).get<Fork>()->ptid, 12u);
  EXPECT_EQ(at(PERF_RECORD_EXIT).get<Exit>()->time, 99u);
  EXPECT_EQ(at(PERF_RECORD_MMAP).get<Mmap>()->filename, "/bin/true");
}

// A simulated ring buffer: the stream is written at every 8-byte start offset of a small
// data area, so each record (and each record header) is split across the end once.
TEST_F(TypedRecords, RingReaderJoinsRecordsThatWrapAtEveryOffset) {
  std::size_t cap = 1;
  while (cap < stream.size()) cap <<= 1;
  std::vector<std::byte> area(cap);
  std::uint64_t wrapped = 0;
  RingRecordReader reader(area, decoder);
  for (std::size_t start = 0; start < cap; start += 8) {
    std::fill(area.begin(), area.end(), std::byte{0xee});
    for (std::size_t i = 0; i < stream.size(); ++i) area[(start + i) % cap] = stream[i];
    const std::uint64_t tail = 3 * cap + start;  // free-running positions
    const std::uint64_t head = tail + stream.size();
    reader.begin(head, tail);
    std::size_t i = 0;
    while (const Record* rec = reader.next()) {
      expect_same(*rec, i);
      EXPECT_EQ(reader.bytes().size(), rec->header.size);
      ++i;
    }
    ASSERT_EQ(i, records.size()) << "start " << start;
    EXPECT_EQ(reader.position(), head);
  }
  const RingRecordStats st = reader.stats();
  wrapped = st.wrapped_records;
  EXPECT_EQ(st.records, records.size() * (cap / 8));
  EXPECT_EQ(st.samples, 2 * (cap / 8));
  EXPECT_EQ(st.lost_records, cap / 8);
  EXPECT_EQ(st.lost_samples, 17 * (cap / 8));
  EXPECT_EQ(st.throttle, cap / 8);
  EXPECT_EQ(st.unthrottle, cap / 8);
  EXPECT_EQ(st.malformed_records, 0u);
  EXPECT_EQ(st.corrupt_events, 0u);
  // A record wraps whenever the area's end falls inside it (not at a boundary).
  EXPECT_GT(wrapped, cap / 8 / 2);
}

TEST_F(TypedRecords, RingReaderSkipsMalformedAndDropsCorrupt) {
  // A SAMPLE whose header is sane but whose fields run past its size, between two COMMs.
  std::vector<std::byte> bad(32, std::byte{0});
  const std::uint32_t type = PERF_RECORD_SAMPLE;
  const std::uint16_t size = 32;
  std::memcpy(bad.data(), &type, 4);
  std::memcpy(bad.data() + 6, &size, 2);
  const std::uint64_t id = kIdFull;
  std::memcpy(bad.data() + 8, &id, 8);
  std::size_t comm = 0;
  while (records[comm].type() != PERF_RECORD_COMM) ++comm;
  std::vector<std::byte> area(4096);
  std::size_t n = 0;
  for (const auto* part : {&encoded[comm], &bad, &encoded[comm]}) {
    std::memcpy(area.data() + n, part->data(), part->size());
    n += part->size();
  }
  RingRecordReader reader(area, decoder);
  reader.begin(n, 0);
  std::size_t got = 0;
  while (const Record* rec = reader.next()) {
    EXPECT_NE(rec->get<Comm>(), nullptr);
    ++got;
  }
  EXPECT_EQ(got, 2u);
  EXPECT_EQ(reader.stats().malformed_records, 1u);
  EXPECT_NE(reader.last_error().find("SAMPLE"), std::string::npos) << reader.last_error();

  // An impossible header (size 12: not a multiple of 8) ends the pass; the rest is dropped.
  const std::uint16_t twelve = 12;
  reader.begin(2 * n, n);  // the same bytes again at the next positions: tail = n
  std::fill(area.begin(), area.end(), std::byte{0});
  std::memcpy(area.data() + n, encoded[comm].data(), encoded[comm].size());
  std::memcpy(area.data() + n + encoded[comm].size(), bad.data(), bad.size());
  std::memcpy(area.data() + n + encoded[comm].size() + 6, &twelve, 2);
  got = 0;
  while (reader.next() != nullptr) ++got;
  EXPECT_EQ(got, 1u);
  EXPECT_EQ(reader.stats().corrupt_events, 1u);
  EXPECT_EQ(reader.stats().dropped_bytes, n - encoded[comm].size());
  EXPECT_EQ(reader.position(), 2 * n);  // the tail moves past the dropped bytes
}

// The same records written as a perf.data (file, pipe and zstd-compressed) come back as
// the same typed records through PerfDataRecords / for_each_record.
class TypedRecordsPerfData : public TypedRecords,
                             public ::testing::WithParamInterface<const char*> {};

TEST_P(TypedRecordsPerfData, SameRecordsFromPerfData) {
  const std::string mode = GetParam();
  test_support::TempDir dir("perfx_typed");
  const std::string path = dir.file("typed.data");
  PerfDataWriterOptions wo;
  wo.pipe = mode == "pipe";
  wo.compress_level = mode == "zstd" ? 1 : 0;
  std::vector<PerfDataWriterEvent> events = {{"full", full_attr(), {kIdFull}},
                                             {"weight", weight_attr(), {kIdWeight}}};
  {
    auto w = perfx::PerfDataWriter::create(path, events, wo);
    ASSERT_TRUE(w) << w.error().message();
    // Raw bytes (what Sampler::drain hands out) for the first half, typed for the rest.
    for (std::size_t i = 0; i < encoded.size(); ++i) {
      if (i < encoded.size() / 2) {
        ASSERT_TRUE(w->write_bytes(encoded[i]));
      } else {
        auto ok = w->write(records[i]);
        ASSERT_TRUE(ok) << ok.error().message();
      }
    }
    ASSERT_TRUE(w->finalize());
    // A symlink at the path is never followed: as perf record -o, it is moved aside to
    // .old and a new file is created; the file it pointed to is left as it was.
    const std::string link = path + ".link";
    std::filesystem::remove(link);
    std::filesystem::remove(link + ".old");
    std::filesystem::create_symlink(path, link);
    const auto size_before = std::filesystem::file_size(path);
    {
      auto again = perfx::PerfDataWriter::create(link, events, wo);
      ASSERT_TRUE(again) << again.error().message();
    }
    EXPECT_TRUE(std::filesystem::is_symlink(link + ".old"));
    EXPECT_FALSE(std::filesystem::is_symlink(link));
    EXPECT_EQ(std::filesystem::file_size(path), size_before);
    std::filesystem::remove(link);
    std::filesystem::remove(link + ".old");
  }
  auto file = PerfDataRecords::open(path);
  ASSERT_TRUE(file) << file.error().message();
  std::size_t i = 0;
  while (const Record* rec = file->next()) {
    if (rec->type() >= raw::PERF_RECORD_HEADER_ATTR) continue;  // perf's own records
    expect_same(*rec, i);
    EXPECT_EQ(file->bytes().size(), rec->header.size);
    ++i;
  }
  EXPECT_EQ(file->error(), nullptr);
  EXPECT_EQ(i, records.size());
  const PerfDataInfo info = file->info();
  ASSERT_EQ(info.events.size(), 2u);
  EXPECT_EQ(info.events[1].attr.sample_type, weight_attr().sample_type);
  EXPECT_EQ(file->attr(0).read_format, full_attr().read_format);
  EXPECT_EQ(info.samples, 2u);
  EXPECT_EQ(info.lost, 17u);
  EXPECT_EQ(info.malformed, 0u);

  std::size_t kernel = 0;
  auto walked = for_each_record(path, [&](const Record& rec) -> Result<void> {
    if (rec.type() < raw::PERF_RECORD_HEADER_ATTR) ++kernel;
    return {};
  });
  ASSERT_TRUE(walked) << walked.error().message();
  EXPECT_EQ(kernel, records.size());
  auto stopped = for_each_record(
      path, [&](const Record&) -> Result<void> { return fail(Errc::kInvalidArgument, "stop"); });
  ASSERT_FALSE(stopped);
  EXPECT_EQ(stopped.error().message(), "stop");
}

INSTANTIATE_TEST_SUITE_P(Modes, TypedRecordsPerfData, ::testing::Values("file", "pipe", "zstd"));

TEST(TypedRecordsErrors, MissingFileAndSampleWithoutAttr) {
  auto file = PerfDataRecords::open("/nonexistent/perf.data");
  ASSERT_FALSE(file);
  EXPECT_EQ(file.error().code(), Errc::kNotFound);
  RecordDecoder empty;
  std::vector<std::byte> bytes(16, std::byte{0});
  const std::uint32_t type = PERF_RECORD_SAMPLE;
  const std::uint16_t size = 16;
  std::memcpy(bytes.data(), &type, 4);
  std::memcpy(bytes.data() + 6, &size, 2);
  Record rec;
  auto r = empty.decode(bytes, rec);
  ASSERT_FALSE(r);
  EXPECT_EQ(r.error().code(), Errc::kInvalidArgument);
  const std::uint16_t four = 4;
  std::memcpy(bytes.data() + 6, &four, 2);
  auto m = empty.decode(bytes, rec);
  ASSERT_FALSE(m);
  EXPECT_EQ(m.error().code(), Errc::kMalformedData);
}

}  // namespace
}  // namespace perfx
